import { data } from "react-router";
import { scopeOf } from "../../../server/http/context";
import { RATE_LIMITED_MESSAGE } from "../../../server/http/rate-limit";
import { searchRateLimit, takeReading } from "../../../server/newsletters/reading-limits";
import { searchNewsletters, searchQuerySchema } from "../../../server/newsletters/search";
import type { Route } from "./+types/search";
import { pageOf } from "./index.server";

export const SEARCH_PAGE_SIZE = 10;

/** /newsletter/search?q=…&page=N: the tenant's published newsletters that match, best first. */
export async function loader({ url, context }: Route.LoaderArgs) {
  const scope = scopeOf(context);
  const query = searchQuerySchema.parse(url.searchParams.get("q") ?? "");
  const page = pageOf(url);
  // Only a query costs anything; past the allowance, the page says so with a 429 (issue 32).
  const limited = query !== "" && !(await takeReading(searchRateLimit, scope));
  const { items, total, more } =
    query && !limited
      ? await searchNewsletters(scope, query, { page, pageSize: SEARCH_PAGE_SIZE })
      : { items: [], total: 0, more: false };
  return data(
    {
      query,
      page,
      pageCount: Math.max(1, Math.ceil(total / SEARCH_PAGE_SIZE)),
      total,
      more,
      results: items,
      limited: limited ? RATE_LIMITED_MESSAGE : null,
    },
    limited ? { status: 429 } : undefined,
  );
}
