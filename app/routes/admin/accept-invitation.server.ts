// The loader and action of accept-invitation.tsx.
import { acceptInvitation, invitationFor } from "../../../server/auth/account-links";
import { scopeOf } from "../../../server/http/context";
import type { Route } from "./+types/accept-invitation";
import { choosePasswordAction, signInAs } from "./staff-link.server";

export async function loader({ params, context }: Route.LoaderArgs) {
  return { invitation: await invitationFor(scopeOf(context).db, params.token) };
}

export function action({ params, request, context }: Route.ActionArgs) {
  const scope = scopeOf(context);
  return choosePasswordAction(request, async (chosen) => {
    const user = await acceptInvitation(scope.db, params.token, chosen);
    scope.logger.info({ userId: user.id }, "staff invitation accepted");
    return signInAs(scope, request, user);
  });
}
