import { data } from "react-router";
import { requireTenantAccess } from "../../../server/auth/guards";
import { scopeOf } from "../../../server/http/context";
import { getNewsletter } from "../../../server/newsletters/listing";
import { drawPackImage, packImages } from "../../../server/social/bundle";
import { NEWSLETTER_NOT_FOUND as NOT_FOUND } from "../../../shared/newsletters";
import type { Route } from "./+types/newsletter-social-image";

/** GET /admin/newsletter/social/:id/:image (link.png, square.png, quote-1.png…): one pack image. */
export async function loader({ params, context }: Route.LoaderArgs) {
  requireTenantAccess(context);
  const scope = scopeOf(context);
  const newsletter = await getNewsletter(scope, params.id);
  if (!newsletter) throw data({ message: NOT_FOUND }, { status: 404 });
  const image = packImages(scope, newsletter).find((one) => one.name === params.image);
  const png = image ? await drawPackImage(scope, newsletter, image) : null;
  if (!png)
    throw data({ message: "This newsletter's social pack has no such image." }, { status: 404 });
  return new Response(new Uint8Array(png), {
    headers: {
      "Content-Type": "image/png",
      "Content-Length": String(png.length),
      // A draft's pictures: kept by the staff member's browser only.
      "Cache-Control": "private, no-cache",
    },
  });
}
