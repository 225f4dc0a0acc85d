// The loader and action of users.tsx.
import { parseWithZod } from "@conform-to/zod/v4";
import { data } from "react-router";
import {
  inviteStaff,
  listInvitations,
  resendInvitation,
  revokeInvitation,
} from "../../../server/auth/account-links";
import { requireSuperAdmin } from "../../../server/auth/guards";
import { changeUserAccess, removeUser } from "../../../server/auth/staff-admin";
import { clearSecondFactor } from "../../../server/auth/two-factor";
import { createUser, listUsers, setUserPassword, UserError } from "../../../server/auth/users";
import { scopeOf } from "../../../server/http/context";
import { listTenants } from "../../../server/tenants/store";
import {
  addUserSchema,
  invitationActionSchema,
  inviteUserSchema,
  removeUserSchema,
  resetPasswordSchema,
  resetTwoFactorSchema,
  updateAccessSchema,
} from "../../../shared/schemas/staff";
import type { Route } from "./+types/users";

export async function loader({ context }: Route.LoaderArgs) {
  const actor = requireSuperAdmin(context);
  const { db } = scopeOf(context);
  const [users, tenants, invitations] = await Promise.all([
    listUsers(db),
    listTenants(db),
    listInvitations(db),
  ]);
  return { actorId: actor.id, users, tenants, invitations };
}

export type ActionResult =
  /** `created`: which new-staff form did its work (the page empties it) */
  | { ok: true; message: string; created?: "add" | "invite" }
  | { ok: false; message: string; userId?: string };

export async function action({ request, context }: Route.ActionArgs) {
  const actor = requireSuperAdmin(context);
  const scope = scopeOf(context);
  const { db, logger } = scope;
  const formData = await request.formData();
  const intent = formData.get("intent");
  const fail = (message: string, userId?: string) =>
    data<ActionResult>({ ok: false, message, userId }, { status: 400 });
  const firstError = (error: Record<string, string[] | null> | null | undefined) =>
    Object.values(error ?? {})
      .flat()
      .find(Boolean) ?? "Please check the form.";

  const known = new Set((await listTenants(db)).map((tenant) => tenant.id));
  const unknownProduct = formData.getAll("products").find((key) => !known.has(String(key)));
  if (unknownProduct !== undefined) return fail(`Unknown product: ${String(unknownProduct)}`);

  try {
    if (intent === "add") {
      const submission = parseWithZod(formData, { schema: addUserSchema });
      if (submission.status !== "success") return fail(firstError(submission.error));
      const products = Object.fromEntries(
        submission.value.products.map((key) => [key, true] as const),
      );
      const user = await createUser(db, { ...submission.value, products });
      logger.info({ actor: actor.id, userId: user.id }, "staff user added");
      return data<ActionResult>({ ok: true, message: `Added ${user.email}.`, created: "add" });
    }
    if (intent === "invite") {
      const submission = parseWithZod(formData, { schema: inviteUserSchema });
      if (submission.status !== "success") return fail(firstError(submission.error));
      const products = Object.fromEntries(
        submission.value.products.map((key) => [key, true] as const),
      );
      await inviteStaff(scope, actor, { ...submission.value, products });
      logger.info({ actor: actor.id }, "staff member invited");
      return data<ActionResult>({
        ok: true,
        message: `Invitation sent to ${submission.value.email}.`,
        created: "invite",
      });
    }
    if (intent === "revoke-invitation" || intent === "resend-invitation") {
      const submission = parseWithZod(formData, { schema: invitationActionSchema });
      if (submission.status !== "success") return fail(firstError(submission.error));
      const { invitationId } = submission.value;
      if (intent === "revoke-invitation") await revokeInvitation(db, invitationId);
      else await resendInvitation(scope, actor, invitationId);
      return data<ActionResult>({
        ok: true,
        message:
          intent === "revoke-invitation" ? "Invitation withdrawn." : "Invitation sent again.",
      });
    }
    if (intent === "access") {
      const submission = parseWithZod(formData, { schema: updateAccessSchema });
      if (submission.status !== "success") return fail(firstError(submission.error));
      await changeUserAccess(db, actor, submission.value);
      return data<ActionResult>({ ok: true, message: "Access updated." });
    }
    if (intent === "password") {
      const submission = parseWithZod(formData, { schema: resetPasswordSchema });
      if (submission.status !== "success")
        return fail(firstError(submission.error), String(formData.get("userId")));
      await setUserPassword(db, submission.value.userId, submission.value.password);
      return data<ActionResult>({
        ok: true,
        message: "Password reset. The user was signed out everywhere.",
      });
    }
    if (intent === "reset-2fa") {
      const submission = parseWithZod(formData, { schema: resetTwoFactorSchema });
      if (submission.status !== "success") return fail(firstError(submission.error));
      const { userId } = submission.value;
      if (!(await clearSecondFactor(db, userId)))
        return fail("Two-factor sign-in is not on.", userId);
      // There is no staff audit table: the log keeps who cleared whose.
      logger.info({ actor: actor.id, userId }, "staff member's two-factor sign-in cleared");
      return data<ActionResult>({
        ok: true,
        message: "Two-factor sign-in cleared. The user was signed out everywhere.",
      });
    }
    if (intent === "remove") {
      const submission = parseWithZod(formData, { schema: removeUserSchema });
      if (submission.status !== "success") return fail(firstError(submission.error));
      await removeUser(db, actor, submission.value.userId);
      return data<ActionResult>({ ok: true, message: "User removed." });
    }
    return fail("Unknown action.");
  } catch (error) {
    if (error instanceof UserError) return fail(error.message);
    throw error;
  }
}
