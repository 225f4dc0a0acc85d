// The loader and action of accept-invitation.tsx.
import { acceptInvitation, invitationFor } from "../../../server/auth/account-links";
import { scopeOf } from "../../../server/http/context";
import type { Route } from "./+types/accept-invitation";
import { chosenPassword, refusedBy, signInAs } from "./staff-link.server";

export async function loader({ params, context }: Route.LoaderArgs) {
  return { invitation: await invitationFor(scopeOf(context).db, params.token) };
}

export async function action({ params, request, context }: Route.ActionArgs) {
  const scope = scopeOf(context);
  const chosen = await chosenPassword(request);
  if ("refused" in chosen) return chosen.refused;
  try {
    const user = await acceptInvitation(scope.db, params.token, chosen.password);
    scope.logger.info({ userId: user.id }, "staff invitation accepted");
    return signInAs(scope, request, user);
  } catch (error) {
    return refusedBy(error);
  }
}
