// The loader of segments.tsx.
import { requireTenantAccess } from "../../../server/auth/guards";
import { scopeOf } from "../../../server/http/context";
import { countSegment, listSegments } from "../../../server/subscribers/segments";
import type { Route } from "./+types/segments";

/** /admin/segments — the tenant's saved filters, each with how many it matches now. */
export async function loader({ request, context }: Route.LoaderArgs) {
  requireTenantAccess(context, request);
  const { db, tenant } = scopeOf(context);
  const segments = await listSegments(db, tenant.id);
  const counted = await Promise.all(
    segments.map(async (segment) => ({
      id: segment.id,
      name: segment.name,
      ...(await countSegment(db, tenant.id, segment.rule)),
    })),
  );
  const deleted = new URL(request.url).searchParams.get("deleted") === "1";
  return { segments: counted, notice: deleted ? "Segment deleted." : null };
}
