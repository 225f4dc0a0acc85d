import { scopeOf } from "../../../server/http/context";
import { getPublishedNewsletterBySlug } from "../../../server/newsletters/listing";
import { shareCardRefusal } from "../../../server/newsletters/reading-limits";
import { newsletterShareCard } from "../../../server/newsletters/share-card";
import { z } from "../../../shared/zod";
import type { Route } from "./+types/share-card";

const slugSchema = z
  .string()
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/)
  .max(120);

/** GET /newsletter/{slug}/share-card: the published newsletter's og:image (1200×630). */
export async function loader({ params, context }: Route.LoaderArgs) {
  const scope = scopeOf(context);
  const refused = await shareCardRefusal(scope);
  if (refused) return refused;
  const slug = slugSchema.safeParse(params.id);
  const newsletter = slug.success ? await getPublishedNewsletterBySlug(scope, slug.data) : null;
  if (!newsletter) {
    return new Response("Not found", { status: 404, headers: { "Content-Type": "text/plain" } });
  }
  const card = await newsletterShareCard(scope, newsletter, scope.tenant.branding);
  return new Response(new Uint8Array(card.bytes), {
    headers: {
      "Content-Type": card.contentType,
      "Content-Length": String(card.bytes.length),
      // The URL carries a version (?v=): a changed newsletter is a new address.
      "Cache-Control": "public, max-age=86400",
      "X-Content-Type-Options": "nosniff",
      "Cross-Origin-Resource-Policy": "cross-origin",
    },
  });
}
