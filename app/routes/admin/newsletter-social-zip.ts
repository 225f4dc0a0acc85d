import { data } from "react-router";
import { requireTenantAccess } from "../../../server/auth/guards";
import { scopeOf } from "../../../server/http/context";
import { getNewsletter } from "../../../server/newsletters/listing";
import { packZip } from "../../../server/social/bundle";
import { socialPackOf } from "../../../server/social/pack";
import { NEWSLETTER_NOT_FOUND as NOT_FOUND } from "../../../shared/newsletters";
import type { Route } from "./+types/newsletter-social-zip";

/** GET /admin/newsletter/social/:id/pack.zip: the posts as .txt and the images as .png, one zip. */
export async function loader({ params, context }: Route.LoaderArgs) {
  requireTenantAccess(context);
  const scope = scopeOf(context);
  const newsletter = await getNewsletter(scope, params.id);
  if (!newsletter) throw data({ message: NOT_FOUND }, { status: 404 });
  const zip = await packZip(scope, newsletter, await socialPackOf(scope, newsletter));
  return new Response(new Uint8Array(zip), {
    headers: {
      "Content-Type": "application/zip",
      "Content-Length": String(zip.length),
      "Content-Disposition": `attachment; filename="${newsletter.slug}-social.zip"`,
      "Cache-Control": "private, no-store",
    },
  });
}
