import { answerApi, methodNotAllowed } from "../../../../server/api/route";
import { namedTenantDbOf } from "../../../../server/http/context";
import { listTenantLists, offeredLists } from "../../../../server/subscribers/lists";
import { getTenantView } from "../../../../server/tenants/views";
import type { Route } from "./+types/email-groups";

/** GET /api/tenants/{id}/email-groups — open: the lists a visitor may subscribe to. */
export async function loader({ params, context }: Route.LoaderArgs) {
  return answerApi(context, async () => {
    const db = namedTenantDbOf(context);
    const tenant = await getTenantView(db, params.id);
    // Public lists not archived (issue 16, point 1): what sign-up offers.
    const lists = offeredLists(await listTenantLists(db, tenant));
    return {
      default: tenant.emailGroups.default,
      groups: lists.map((list) => ({
        id: String(list.id),
        key: list.key,
        name: list.name,
        description: list.description,
      })),
    };
  });
}

export function action() {
  return methodNotAllowed(["GET"]);
}
