import { scopeOf } from "../../../server/http/context";
import { searchNewsletters, searchQuerySchema } from "../../../server/newsletters/search";
import type { Route } from "./+types/search";
import { pageOf } from "./index.server";

export const SEARCH_PAGE_SIZE = 10;

/** /newsletter/search?q=…&page=N: the tenant's published newsletters that match, best first. */
export async function loader({ request, context }: Route.LoaderArgs) {
  const url = new URL(request.url);
  const query = searchQuerySchema.parse(url.searchParams.get("q") ?? "");
  const page = pageOf(request);
  const { items, total, more } = query
    ? await searchNewsletters(scopeOf(context), query, { page, pageSize: SEARCH_PAGE_SIZE })
    : { items: [], total: 0, more: false };
  return {
    query,
    page,
    pageCount: Math.max(1, Math.ceil(total / SEARCH_PAGE_SIZE)),
    total,
    more,
    results: items,
  };
}
