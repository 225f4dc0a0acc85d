import { Link, type MetaDescriptor, useNavigation } from "react-router";
import { formatDate } from "../../../shared/format";
import { SubscribeBox } from "../../components/subscribe-box";
import { Container, LinkLine, PageHero, TextCards } from "../../components/ui/layout";
import { pageMeta } from "../../lib/meta";
import type { Route } from "./+types/index";

export { loader } from "./index.server";

export const meta: Route.MetaFunction = (args) => {
  const page = args.loaderData?.page ?? 1;
  const tags = pageMeta(args, {
    title: page > 1 ? `The newsletter — page ${page}` : "The newsletter",
    description:
      "A weekly briefing on eDiscovery, defensible AI-assisted review and legal-technology strategy, written for general counsel and litigation-support leaders.",
  });
  const feed: MetaDescriptor = {
    tagName: "link",
    rel: "alternate",
    type: "application/rss+xml",
    title: "Newsletter RSS feed",
    href: "/newsletter/rss.xml",
  };
  if (page === 1) return [...tags, feed];
  // Later pages are pages of their own: their canonical URL keeps ?page=N.
  return [
    ...tags.map((tag) => {
      if ("rel" in tag && tag.rel === "canonical" && typeof tag.href === "string") {
        return { ...tag, href: `${tag.href}?page=${page}` };
      }
      if ("property" in tag && tag.property === "og:url" && typeof tag.content === "string") {
        return { ...tag, content: `${tag.content}?page=${page}` };
      }
      return tag;
    }),
    feed,
  ];
};

const pageHref = (page: number) => (page <= 1 ? "/newsletter" : `/newsletter?page=${page}`);

const PROMISES = [
  {
    title: "What you get",
    text: "One issue a week: a lead essay, three developments worth your attention, and one practical takeaway your team can use on Monday.",
  },
  {
    title: "Who writes it",
    text: "Practitioners who have run reviews, negotiated ESI protocols and built the workflows they write about.",
  },
  {
    title: "Your inbox, your rules",
    text: "Choose the lists you want and change or cancel your subscription at any time from the link in every email.",
  },
];

export default function NewsletterIndex({ loaderData }: Route.ComponentProps) {
  const { newsletters, page, pageCount, total, signup } = loaderData;
  const navigation = useNavigation();
  const opening =
    navigation.state === "loading" &&
    /^\/newsletter\/(?!rss\.xml)[^/]+$/.test(navigation.location.pathname);

  return (
    <main>
      <PageHero
        eyebrow="Newsletter"
        title="Insights on legal technology, every week"
        lead="Practical analysis of eDiscovery, AI-assisted review, information governance and the rules that shape them — in five minutes a week."
      />
      <Container className="py-14">
        <TextCards items={PROMISES} columns="md:grid-cols-3" />

        <div className="mt-14 grid gap-10 lg:grid-cols-[2fr_1fr]">
          <section aria-labelledby="issues-heading">
            <div className="flex flex-wrap items-baseline justify-between gap-x-4 gap-y-1">
              <h2 id="issues-heading" className="text-2xl font-bold">
                Latest issues
              </h2>
              <a href="/newsletter/rss.xml" className="text-sm font-semibold">
                RSS feed
              </a>
            </div>

            {opening ? (
              <p
                role="status"
                className="mt-4 rounded-brand bg-brand/10 px-4 py-2 text-sm font-medium"
              >
                Loading newsletter...
              </p>
            ) : null}

            {total === 0 ? (
              <p className="mt-6 rounded-brand border border-dashed border-black/20 p-6 text-lg">
                No newsletters have been published yet.
              </p>
            ) : newsletters.length === 0 ? (
              <div className="mt-6 rounded-brand border border-dashed border-black/20 p-6">
                <p className="text-lg">
                  There is no page {page}: the newsletter has {pageCount}{" "}
                  {pageCount === 1 ? "page" : "pages"} of issues.
                </p>
                <LinkLine to="/newsletter" className="mt-3">
                  Go to the latest issues
                </LinkLine>
              </div>
            ) : (
              <ol className="mt-6 divide-y divide-black/10 border-y border-black/10">
                {newsletters.map((newsletter) => (
                  <li key={newsletter.id} className="py-6">
                    <article aria-labelledby={`issue-${newsletter.id}`}>
                      <h3
                        id={`issue-${newsletter.id}`}
                        className="text-xl font-semibold leading-snug"
                      >
                        <Link
                          to={`/newsletter/${newsletter.slug}`}
                          className="text-ink no-underline hover:text-brand-strong hover:underline"
                        >
                          {newsletter.title}
                        </Link>
                      </h3>
                      <p className="mt-1 flex flex-wrap gap-x-2 text-sm opacity-90">
                        <time dateTime={newsletter.date}>{formatDate(newsletter.date)}</time>
                        <span aria-hidden="true">·</span>
                        <span>{newsletter.readTime} min read</span>
                      </p>
                      <p className="mt-3 leading-relaxed">{newsletter.excerpt}</p>
                    </article>
                  </li>
                ))}
              </ol>
            )}

            {total > 0 && pageCount > 1 ? (
              <nav
                aria-label="Pagination"
                className="mt-6 flex items-center justify-between gap-4 text-sm font-semibold"
              >
                {page > 1 && page <= pageCount ? (
                  <Link to={pageHref(page - 1)} rel="prev" className="no-underline hover:underline">
                    <span aria-hidden="true">←</span> Previous
                  </Link>
                ) : (
                  <span aria-hidden="true" />
                )}
                {page <= pageCount ? (
                  <p>
                    Page {page} of {pageCount}
                  </p>
                ) : null}
                {page < pageCount ? (
                  <Link to={pageHref(page + 1)} rel="next" className="no-underline hover:underline">
                    Next <span aria-hidden="true">→</span>
                  </Link>
                ) : (
                  <span aria-hidden="true" />
                )}
              </nav>
            ) : null}
          </section>

          <div className="lg:pt-1">
            <SubscribeBox signup={signup} />
          </div>
        </div>
      </Container>
    </main>
  );
}
