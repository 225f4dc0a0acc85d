import { scopeOf } from "../../../server/http/context";
import { renderSitemap } from "../../../server/newsletters/feeds";
import type { Route } from "./+types/sitemap";

/** /sitemap.xml: the tenant's public pages and published newsletters, as absolute URLs. */
export async function loader({ context }: Route.LoaderArgs) {
  const xml = await renderSitemap(scopeOf(context));
  return new Response(xml, {
    headers: {
      "Content-Type": "application/xml; charset=utf-8",
      "Cache-Control": "public, max-age=300",
    },
  });
}
