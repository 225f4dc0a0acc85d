// What the reset-password and accept-invitation pages share: reading the chosen password, and
// signing the account in once it is set.
import { data, redirect } from "react-router";
import { landingPathFor, type StaffUser } from "../../../server/auth/permissions";
import { createSession, sessionCookie } from "../../../server/auth/sessions";
import { UserError } from "../../../server/auth/users";
import type { Scope } from "../../../server/scope";
import { choosePasswordSchema } from "../../../shared/schemas/staff";

export type ChoosePasswordAnswer = { fields: Record<string, string[]>; error: string | null };

/**
 * The action of both pages: reads the chosen password, lets `apply` use it (it answers the page's
 * response), and turns the account rules' refusals into the form's errors.
 */
export async function choosePasswordAction(
  request: Request,
  apply: (chosen: { password: string; displayName?: string }) => Promise<Response | { done: true }>,
) {
  const chosen = await chosenPassword(request);
  if ("refused" in chosen) return chosen.refused;
  try {
    return await apply(chosen.chosen);
  } catch (error) {
    return refusedBy(error);
  }
}

/** The chosen password, or the answer that says what is wrong with it. */
async function chosenPassword(request: Request) {
  const input = choosePasswordSchema.safeParse(Object.fromEntries(await request.formData()));
  if (input.success) {
    return { chosen: { password: input.data.password, displayName: input.data.displayName } };
  }
  const fields: Record<string, string[]> = {};
  for (const issue of input.error.issues) {
    const name = String(issue.path[0] ?? "password");
    fields[name] = [...(fields[name] ?? []), issue.message];
  }
  return { refused: data<ChoosePasswordAnswer>({ fields, error: null }, { status: 400 }) };
}

/** A refusal from the account rules (a common password, a spent link) as the form shows it. */
function refusedBy(error: unknown) {
  if (!(error instanceof UserError)) throw error;
  const fields: Record<string, string[]> =
    error.field === "password" ? { password: [error.message] } : {};
  return data<ChoosePasswordAnswer>(
    { fields, error: error.field === "password" ? null : error.message },
    { status: 400 },
  );
}

/** Starts a session for the account and takes it to its landing page. */
export async function signInAs(scope: Pick<Scope, "db">, request: Request, user: StaffUser) {
  const session = await createSession(scope.db, user.id);
  const secure = new URL(request.url).protocol === "https:";
  return redirect(landingPathFor(user), {
    headers: { "Set-Cookie": sessionCookie(session.token, { secure, ...session }) },
  });
}
