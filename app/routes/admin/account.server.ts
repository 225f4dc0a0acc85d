// The loader and action of account.tsx: a staff member's own sign-in settings.
import { data, redirect } from "react-router";
import { maxTokenLifetimeDays, setMaxTokenLifetimeDays } from "../../../server/auth/api-tokens";
import { requireStaff, requireSuperAdmin } from "../../../server/auth/guards";
import { readCookieHeader, SESSION_COOKIE } from "../../../server/auth/sessions";
import {
  pendingEnrolment,
  recoveryCodesLeft,
  setTwoFactorRequired,
  startEnrolment,
  turnOffTwoFactor,
  turnOnTwoFactor,
  twoFactorRequired,
} from "../../../server/auth/two-factor";
import { findUserById, setDisplayName } from "../../../server/auth/users";
import { enrolmentOnlyContext, scopeOf } from "../../../server/http/context";
import { createRateLimit } from "../../../server/http/rate-limit";
import { tokenMaxLifetimeSchema } from "../../../shared/schemas/api-tokens";
import { turnOffTwoFactorSchema, turnOnTwoFactorSchema } from "../../../shared/schemas/staff";
import type { Route } from "./+types/account";

/** Tries at proving it is the owner (turning two-factor sign-in on or off), per account. */
const proofAttempts = createRateLimit({
  name: "two-factor-off",
  points: 5,
  windowSeconds: 15 * 60,
});

export async function loader({ url, context }: Route.LoaderArgs) {
  const user = requireStaff(context);
  const { db, tenant } = scopeOf(context);
  // An enrolment-only session is shown only what it may do: set up two-factor sign-in.
  const enrolmentOnly = context.get(enrolmentOnlyContext) !== null;
  return {
    email: user.email,
    displayName: (await findUserById(db, user.id))?.display_name ?? "",
    enrolmentOnly,
    isSuperAdmin: user.isSuperAdmin && !enrolmentOnly,
    twoFactor: user.twoFactor,
    pending: user.twoFactor ? null : await pendingEnrolment(db, user, tenant.branding.companyName),
    recoveryLeft: user.twoFactor ? await recoveryCodesLeft(db, user.id) : 0,
    required: await twoFactorRequired(db),
    tokenMaxDays: user.isSuperAdmin ? await maxTokenLifetimeDays(db) : 0,
    mustEnrol: url.searchParams.get("required") === "1",
  };
}

export type AccountAnswer =
  | { kind: "recovery-codes"; codes: string[] }
  | { kind: "error"; intent: string; message: string }
  | { kind: "ok"; message: string };

export async function action({ request, context }: Route.ActionArgs) {
  const user = requireStaff(context);
  const { db, tenant, logger } = scopeOf(context);
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  const refuse = (message: string, status = 400) =>
    data<AccountAnswer>({ kind: "error", intent, message }, { status });
  // An enrolment-only session (decision 024) may set up two-factor sign-in and nothing else: not
  // its byline, and not, for a super admin, the requirement that holds it.
  if (context.get(enrolmentOnlyContext) && intent !== "start" && intent !== "confirm") {
    return refuse("Set up two-factor sign-in first.", 403);
  }

  if (intent === "start") {
    if (user.twoFactor) return refuse("Two-factor sign-in is already on.");
    await startEnrolment(db, user, tenant.branding.companyName);
    return redirect("/admin/account#two-factor");
  }
  if (intent === "confirm") {
    const input = turnOnTwoFactorSchema.safeParse(Object.fromEntries(form));
    if (!input.success) return refuse(input.error.issues[0]?.message ?? "Enter your password.");
    if (!(await proofAttempts.take(user.id))) {
      return refuse("Too many tries. Please wait a few minutes and try again.", 429);
    }
    const result = await turnOnTwoFactor(db, user.id, {
      ...input.data,
      keepToken: readCookieHeader(request.headers.get("cookie"), SESSION_COOKIE),
    });
    if (!result.ok) {
      return result.wrong === "password"
        ? refuse("That is not your password.", 401)
        : refuse("That code is not right. Enter the current one from your app.");
    }
    await proofAttempts.reset(user.id);
    logger.info({ userId: user.id }, "two-factor sign-in turned on; other sessions ended");
    return data<AccountAnswer>({ kind: "recovery-codes", codes: result.codes });
  }
  if (intent === "disable") {
    if (await twoFactorRequired(db)) {
      return refuse("Two-factor sign-in is required for all staff: it cannot be turned off.");
    }
    const input = turnOffTwoFactorSchema.safeParse(Object.fromEntries(form));
    if (!input.success) return refuse(input.error.issues[0]?.message ?? "Enter your password.");
    // A stolen session must not guess its way through: a few tries, then a wait.
    if (!(await proofAttempts.take(user.id))) {
      return refuse("Too many tries. Please wait a few minutes and try again.", 429);
    }
    if (!(await turnOffTwoFactor(db, user.id, input.data.proof))) {
      return refuse("That is neither your password nor a valid code.", 401);
    }
    await proofAttempts.reset(user.id);
    logger.info({ userId: user.id }, "two-factor sign-in turned off");
    return data<AccountAnswer>({ kind: "ok", message: "Two-factor sign-in is off." });
  }
  if (intent === "name") {
    const name = String(form.get("displayName") ?? "").trim();
    if (name.length > 100) return refuse("Your name must be at most 100 characters.");
    await setDisplayName(db, user.id, name);
    return data<AccountAnswer>({
      kind: "ok",
      message: name ? `Newsletters you write are signed "${name}".` : "Your byline is removed.",
    });
  }
  if (intent === "require") {
    requireSuperAdmin(context);
    const required = form.get("required") === "1";
    await setTwoFactorRequired(db, required);
    logger.info({ userId: user.id, required }, "two-factor requirement changed");
    return data<AccountAnswer>({
      kind: "ok",
      message: required
        ? "Every staff member now sets up two-factor sign-in before using the admin."
        : "Two-factor sign-in is optional again.",
    });
  }
  if (intent === "token-lifetime") {
    requireSuperAdmin(context);
    const input = tokenMaxLifetimeSchema.safeParse(Object.fromEntries(form));
    if (!input.success) return refuse(input.error.issues[0]?.message ?? "Choose a lifetime.");
    await setMaxTokenLifetimeDays(db, input.data.maxDays);
    logger.info({ userId: user.id, maxDays: input.data.maxDays }, "API token lifetime changed");
    return data<AccountAnswer>({
      kind: "ok",
      message: input.data.maxDays
        ? `API tokens now live at most ${input.data.maxDays} days; tokens that never expire stop working.`
        : "API tokens may live as long as their creator chooses.",
    });
  }
  return refuse("Unknown action.");
}
