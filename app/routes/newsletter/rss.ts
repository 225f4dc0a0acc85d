import { scopeOf } from "../../../server/http/context";
import { renderNewsletterFeed } from "../../../server/newsletters/feeds";
import type { Route } from "./+types/rss";

/** /newsletter/rss.xml: RSS 2.0 feed of the tenant's latest published newsletters. */
export async function loader({ context }: Route.LoaderArgs) {
  const scope = scopeOf(context);
  const tenant = scopeOf(context).tenant;
  const companyName = tenant.branding.companyName;
  const xml = await renderNewsletterFeed(scope, {
    title: companyName,
    description: tenant.description || `The latest newsletters from ${companyName}.`,
  });
  return new Response(xml, {
    headers: {
      "Content-Type": "application/rss+xml; charset=utf-8",
      "Cache-Control": "public, max-age=300",
    },
  });
}
