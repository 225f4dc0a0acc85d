// The loader and action of reset-password.tsx.
import { resetLinkAccount, resetPassword } from "../../../server/auth/account-links";
import { getUser } from "../../../server/auth/users";
import { scopeOf } from "../../../server/http/context";
import type { Route } from "./+types/reset-password";
import { choosePasswordAction, signInAs } from "./staff-link.server";

export async function loader({ params, context }: Route.LoaderArgs) {
  return { account: await resetLinkAccount(scopeOf(context).db, params.token) };
}

export function action({ params, request, context }: Route.ActionArgs) {
  const scope = scopeOf(context);
  return choosePasswordAction(request, async ({ password }) => {
    const userId = await resetPassword(scope.db, params.token, password);
    scope.logger.info({ userId }, "password reset from an emailed link; every session ended");
    const user = await getUser(scope.db, userId);
    if (!user) throw new Error("the account of a spent reset link is gone");
    // A second factor still guards the account: the new password alone does not sign it in.
    return user.twoFactor ? { done: true as const } : signInAs(scope, request, user);
  });
}
