import { requireTenantAccess } from "../../../server/auth/guards";
import { recipientActivityCsv } from "../../../server/campaigns/recipient-activity";
import { scopeOf } from "../../../server/http/context";
import { readActivityQuery } from "../../../shared/schemas/campaign-activity";
import type { Route } from "./+types/campaign-recipients-export";
import { loadCampaign } from "./campaign-form.server";

/** GET /admin/campaigns/:id/recipients.csv?filter=&q=: the report's recipients as a CSV download. */
export async function loader({ url, params, context }: Route.LoaderArgs) {
  requireTenantAccess(context);
  const campaign = await loadCampaign(context, params.id);
  const query = readActivityQuery(url.searchParams);
  const csv = await recipientActivityCsv(scopeOf(context).db, campaign.id, query);
  const name = query.filter === "all" ? "recipients" : `recipients-${query.filter}`;
  return new Response(csv, {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="campaign-${campaign.id}-${name}.csv"`,
      // Personal data: never kept by a shared cache.
      "Cache-Control": "private, no-store",
    },
  });
}
