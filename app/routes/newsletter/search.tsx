import { formatCount, formatDate } from "../../../shared/format";
import { Pagination } from "../../components/newsletter-archive";
import { NewsletterSearchBox } from "../../components/newsletter-search-box";
import { Container, PageHero } from "../../components/ui/layout";
import { noindexMeta } from "../../lib/meta";
import { Link, withoutScripts } from "../../lib/page-scripts";
import { pageWithoutScripts } from "../../lib/render-only.server";
import type { Route } from "./+types/search";

export { loader } from "./search.server";

/** Pure content: no JavaScript (app/lib/page-scripts.tsx). */
export const handle = withoutScripts;
/** Its render-only data stays out of the hydration data (app/lib/render-only.tsx). */
export const middleware: Route.MiddlewareFunction[] = [pageWithoutScripts];

export const meta: Route.MetaFunction = ({ loaderData }) =>
  noindexMeta(loaderData?.query ? `Search: ${loaderData.query}` : "Search the newsletter");

export default function NewsletterSearch({ loaderData }: Route.ComponentProps) {
  const { query, results, total, more, page, pageCount, limited } = loaderData;
  return (
    <main>
      <PageHero
        eyebrow="Newsletter"
        title="Search the newsletter"
        lead="Every published issue: titles, excerpts and the full text."
      />
      <Container className="max-w-3xl py-12">
        <NewsletterSearchBox query={query} />
        {limited ? (
          <p role="alert" className="mt-8 font-medium text-danger">
            {limited}
          </p>
        ) : query ? (
          <section aria-labelledby="results-heading" className="mt-8">
            <h2 id="results-heading" className="text-xl font-bold" aria-live="polite">
              {total === 0
                ? `No newsletters match “${query}”.`
                : more
                  ? `More than ${formatCount(total)} results for “${query}”`
                  : `${total} ${total === 1 ? "result" : "results"} for “${query}”`}
            </h2>
            {results.length > 0 ? (
              <ol className="mt-4 divide-y divide-black/10 border-y border-black/10">
                {results.map((result) => (
                  <li key={result.id} className="py-5">
                    <h3 className="text-lg font-semibold leading-snug">
                      <Link
                        to={`/newsletter/${result.slug}`}
                        className="text-ink no-underline hover:text-brand-strong hover:underline"
                      >
                        {result.title}
                      </Link>
                    </h3>
                    <p className="mt-1 flex flex-wrap gap-x-2 text-sm opacity-90">
                      <time dateTime={result.date}>{formatDate(result.date)}</time>
                      <span aria-hidden="true">·</span>
                      <span>{result.readTime} min read</span>
                    </p>
                    <p className="mt-2 leading-relaxed" data-testid="snippet">
                      {result.snippet.map((part, index) =>
                        part.highlighted ? (
                          // biome-ignore lint/suspicious/noArrayIndexKey: the parts never move
                          <mark key={index} className="bg-secondary/25 px-0.5 text-ink">
                            {part.text}
                          </mark>
                        ) : (
                          part.text
                        ),
                      )}
                    </p>
                  </li>
                ))}
              </ol>
            ) : total > 0 ? (
              <p className="mt-4">
                There is no page {page} of results.{" "}
                <Link to={`/newsletter/search?q=${encodeURIComponent(query)}`}>
                  Go to the first page
                </Link>
              </p>
            ) : (
              <p className="mt-4">
                Try fewer or other words, or <Link to="/newsletter">browse all newsletters</Link>.
              </p>
            )}
            <Pagination
              path={`/newsletter/search?q=${encodeURIComponent(query)}`}
              page={page}
              pageCount={pageCount}
            />
          </section>
        ) : null}
      </Container>
    </main>
  );
}
