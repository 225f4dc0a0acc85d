// The loader and action of account.tsx: a staff member's own sign-in settings.
import { data, redirect } from "react-router";
import { requireStaff, requireSuperAdmin } from "../../../server/auth/guards";
import {
  confirmEnrolment,
  pendingEnrolment,
  recoveryCodesLeft,
  setTwoFactorRequired,
  startEnrolment,
  turnOffTwoFactor,
  twoFactorRequired,
} from "../../../server/auth/two-factor";
import { findUserById, setDisplayName } from "../../../server/auth/users";
import { scopeOf } from "../../../server/http/context";
import { createRateLimit } from "../../../server/http/rate-limit";
import { turnOffTwoFactorSchema } from "../../../shared/schemas/staff";
import type { Route } from "./+types/account";

/** Tries at turning two-factor sign-in off, per account. */
const turnOffAttempts = createRateLimit({
  name: "two-factor-off",
  points: 5,
  windowSeconds: 15 * 60,
});

export async function loader({ request, context }: Route.LoaderArgs) {
  const user = requireStaff(context, request);
  const { db, tenant } = scopeOf(context);
  return {
    email: user.email,
    displayName: (await findUserById(db, user.id))?.display_name ?? "",
    isSuperAdmin: user.isSuperAdmin,
    twoFactor: user.twoFactor,
    pending: user.twoFactor ? null : await pendingEnrolment(db, user, tenant.branding.companyName),
    recoveryLeft: user.twoFactor ? await recoveryCodesLeft(db, user.id) : 0,
    required: await twoFactorRequired(db),
    mustEnrol: new URL(request.url).searchParams.get("required") === "1",
  };
}

export type AccountAnswer =
  | { kind: "recovery-codes"; codes: string[] }
  | { kind: "error"; intent: string; message: string }
  | { kind: "ok"; message: string };

export async function action({ request, context }: Route.ActionArgs) {
  const user = requireStaff(context, request);
  const { db, tenant, logger } = scopeOf(context);
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  const refuse = (message: string, status = 400) =>
    data<AccountAnswer>({ kind: "error", intent, message }, { status });

  if (intent === "start") {
    if (user.twoFactor) return refuse("Two-factor sign-in is already on.");
    await startEnrolment(db, user, tenant.branding.companyName);
    return redirect("/admin/account#two-factor");
  }
  if (intent === "confirm") {
    const code = String(form.get("code") ?? "").slice(0, 20);
    const codes = await confirmEnrolment(db, user.id, code);
    if (!codes) return refuse("That code is not right. Enter the current one from your app.");
    logger.info({ userId: user.id }, "two-factor sign-in turned on");
    return data<AccountAnswer>({ kind: "recovery-codes", codes });
  }
  if (intent === "disable") {
    if (await twoFactorRequired(db)) {
      return refuse("Two-factor sign-in is required for all staff: it cannot be turned off.");
    }
    const input = turnOffTwoFactorSchema.safeParse(Object.fromEntries(form));
    if (!input.success) return refuse(input.error.issues[0]?.message ?? "Enter your password.");
    // A stolen session must not guess its way through: a few tries, then a wait.
    if (!(await turnOffAttempts.take(user.id))) {
      return refuse("Too many tries. Please wait a few minutes and try again.", 429);
    }
    if (!(await turnOffTwoFactor(db, user.id, input.data.proof))) {
      return refuse("That is neither your password nor a valid code.", 401);
    }
    await turnOffAttempts.reset(user.id);
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
    requireSuperAdmin(context, request);
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
  return refuse("Unknown action.");
}
