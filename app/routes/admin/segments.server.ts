// The loader of segments.tsx.
import { requireTenantAccess } from "../../../server/auth/guards";
import { scopeOf } from "../../../server/http/context";
import { countSegment } from "../../../server/subscribers/segment-counts";
import { listSegments, segmentRuleProblem } from "../../../server/subscribers/segments";
import type { Route } from "./+types/segments";

/** /admin/segments — the tenant's saved filters, each with how many it matches now. */
export async function loader({ url, context }: Route.LoaderArgs) {
  requireTenantAccess(context);
  const { db, tenant } = scopeOf(context);
  const segments = await listSegments(db, tenant.id);
  const counted = await Promise.all(
    segments.map(async (segment) => {
      // A rule saved before its values were checked is shown as invalid, not counted.
      const problem = await segmentRuleProblem(db, tenant.id, segment.rule);
      const count = problem ? null : await countSegment(db, tenant.id, segment.rule);
      return { id: segment.id, name: segment.name, problem, count };
    }),
  );
  const deleted = url.searchParams.get("deleted") === "1";
  return { segments: counted, notice: deleted ? "Segment deleted." : null };
}
