import { answerApi, methodNotAllowed } from "../../../../server/api/route";
import { listTenantLists, offeredLists } from "../../../../server/subscribers/lists";
import { bindNamedTenant } from "../../../../server/tenants/named-tenant";
import type { Route } from "./+types/email-groups";

/** GET /api/tenants/{id}/email-groups — open: the lists a visitor may subscribe to. */
export async function loader({ params, context }: Route.LoaderArgs) {
  return answerApi(context, async () => {
    const { tenant, db } = await bindNamedTenant(context, params.id, { anyone: "public lists" });
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
