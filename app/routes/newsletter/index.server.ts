import { data } from "react-router";
import { z } from "zod";
import { scopeOf } from "../../../server/http/context";
import { listPublishedNewsletters } from "../../../server/newsletters/newsletters";
import { signupFormData } from "../../../server/subscribers/signup-form-data";
import type { Route } from "./+types/index";

const PAGE_SIZE = 10;

/** ?page=N; anything that is not a whole number from 1 up means the first page. */
const pageSchema = z.coerce.number().int().min(1).max(100_000).catch(1);

/**
 * The reading room's index: the tenant's published newsletters, newest first, ten to a page. It sits
 * under the marketing layout, so the anonymous first page is kept by the page cache (up to 60 s).
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const scope = scopeOf(context);
  const page = pageSchema.parse(new URL(request.url).searchParams.get("page") ?? undefined);
  const { items, total } = await listPublishedNewsletters(scope, { page, pageSize: PAGE_SIZE });
  const pageCount = Math.max(1, Math.ceil(total / PAGE_SIZE));
  return data(
    {
      newsletters: items.map((newsletter) => ({
        id: newsletter.id,
        title: newsletter.title,
        slug: newsletter.slug,
        excerpt: newsletter.excerpt,
        date: newsletter.date,
        readTime: newsletter.readTime,
      })),
      page,
      pageCount,
      total,
      signup: await signupFormData(context),
    },
    // A page past the last one is answered, with a way back, but not as a page that exists.
    { status: page > pageCount ? 404 : 200 },
  );
}
