import { requireTenantAccess } from "../../../server/auth/guards";
import { scopeOf } from "../../../server/http/context";
import { exportSubscribersCsv } from "../../../server/subscribers/csv-export";
import { subscriberFilterFrom } from "../../../server/subscribers/search";
import type { Route } from "./+types/subscribers-export";

/** GET /admin/subscribers/export.csv?q=&status=&list=: the filtered subscribers as a CSV download. */
export async function loader({ url, context }: Route.LoaderArgs) {
  requireTenantAccess(context);
  const ctx = scopeOf(context);
  const csv = await exportSubscribersCsv(ctx, subscriberFilterFrom(url.searchParams));
  const tenant = ctx.tenant.id.replace(/[^a-zA-Z0-9-]+/g, "-");
  const date = new Date().toISOString().slice(0, 10);
  return new Response(csv, {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="subscribers-${tenant}-${date}.csv"`,
      // Personal data: never kept by a shared cache.
      "Cache-Control": "private, no-store",
    },
  });
}
