import type { ComponentProps, ReactNode } from "react";
import { useNavigation } from "react-router";
import type { Picture } from "../../server/files/stored-images";
import type { ArchivePage, IssueSummary } from "../../server/newsletters/archive";
import type { Tag, TagCount } from "../../server/newsletters/tags";
import { formatDate } from "../../shared/format";
import { Link } from "../lib/page-scripts";
import { NewsletterErrorPage } from "./error-page";
import { NewsletterSearchBox } from "./newsletter-search-box";
import { SubscribeBox } from "./subscribe-box";
import { Container, LinkLine, PageHero } from "./ui/layout";

/** The pieces the archive, a tag's page and a year's page share (issue 15, part 2). */

export const tagPath = (slug: string) => `/newsletter/tag/${slug}`;
export const yearPath = (year: number) => `/newsletter/archive/${year}`;
export const withPage = (path: string, page: number) =>
  page <= 1 ? path : `${path}${path.includes("?") ? "&" : "?"}page=${page}`;

/** An uploaded image with its AVIF/WebP sources and its alt text; `sizes` says how wide it is shown. */
export function ResponsivePicture({
  picture,
  sizes,
  className,
  eager = false,
}: {
  picture: Picture & { alt: string };
  sizes: string;
  className?: string;
  eager?: boolean;
}) {
  return (
    <picture>
      {picture.sources.map((source) => (
        <source key={source.type} type={source.type} srcSet={source.srcset} sizes={sizes} />
      ))}
      <img
        src={picture.src}
        alt={picture.alt}
        width={picture.width}
        height={picture.height}
        loading={eager ? "eager" : "lazy"}
        decoding="async"
        className={className}
      />
    </picture>
  );
}

export function TagLinks({ tags, className = "" }: { tags: Tag[]; className?: string }) {
  if (tags.length === 0) return null;
  return (
    <ul aria-label="Tags" className={`flex flex-wrap gap-2 ${className}`}>
      {tags.map((tag) => (
        <li key={tag.slug}>
          <Link
            to={tagPath(tag.slug)}
            className="inline-block rounded-full bg-brand/10 px-3 py-0.5 text-sm font-medium text-ink no-underline hover:underline"
          >
            {tag.name}
          </Link>
        </li>
      ))}
    </ul>
  );
}

/** A page of issues, newest first. */
export function IssueList({ newsletters }: { newsletters: IssueSummary[] }) {
  return (
    <ol className="mt-6 divide-y divide-black/10 border-y border-black/10">
      {newsletters.map((newsletter) => (
        <li key={newsletter.id} className="py-6">
          <article
            aria-labelledby={`issue-${newsletter.id}`}
            className={newsletter.cover ? "grid gap-4 sm:grid-cols-[minmax(0,1fr)_11rem]" : ""}
          >
            <div className="min-w-0">
              <h3 id={`issue-${newsletter.id}`} className="text-xl font-semibold leading-snug">
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
              <TagLinks tags={newsletter.tags} className="mt-3" />
            </div>
            {newsletter.cover ? (
              <ResponsivePicture
                picture={newsletter.cover}
                sizes="(min-width: 40rem) 11rem, 100vw"
                className="aspect-[16/9] w-full rounded-brand object-cover sm:row-start-1 sm:col-start-2"
              />
            ) : null}
          </article>
        </li>
      ))}
    </ol>
  );
}

/** Previous / next links and "Page N of M"; `path` is the list's address without ?page. */
export function Pagination({
  path,
  page,
  pageCount,
}: {
  path: string;
  page: number;
  pageCount: number;
}) {
  if (pageCount <= 1) return null;
  return (
    <nav
      aria-label="Pagination"
      className="mt-6 flex items-center justify-between gap-4 text-sm font-semibold"
    >
      {page > 1 && page <= pageCount ? (
        <Link to={withPage(path, page - 1)} rel="prev" className="no-underline hover:underline">
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
        <Link to={withPage(path, page + 1)} rel="next" className="no-underline hover:underline">
          Next <span aria-hidden="true">→</span>
        </Link>
      ) : (
        <span aria-hidden="true" />
      )}
    </nav>
  );
}

/** Browse by tag: every tag with published issues; the current one marked. */
export function TagFilter({ tags, current }: { tags: TagCount[]; current?: string }) {
  if (tags.length === 0) return null;
  const chip = "inline-block rounded-full px-3 py-1 text-sm font-medium no-underline";
  return (
    <nav aria-label="Tags" className="mt-4">
      <ul className="flex flex-wrap gap-2">
        <li>
          <Link
            to="/newsletter"
            aria-current={current === undefined ? "page" : undefined}
            className={`${chip} ${current === undefined ? "bg-brand-strong text-on-brand-strong" : "bg-black/5 text-ink hover:underline"}`}
          >
            All issues
          </Link>
        </li>
        {tags.map((tag) => (
          <li key={tag.slug}>
            <Link
              to={tagPath(tag.slug)}
              aria-current={current === tag.slug ? "page" : undefined}
              className={`${chip} ${current === tag.slug ? "bg-brand-strong text-on-brand-strong" : "bg-black/5 text-ink hover:underline"}`}
            >
              {tag.name} <span>({tag.count})</span>
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** The archive by year. */
export function YearList({
  years,
  current,
}: {
  years: { year: number; count: number }[];
  current?: number;
}) {
  if (years.length === 0) return null;
  return (
    <nav aria-labelledby="years-heading" className="mt-8">
      <h2 id="years-heading" className="text-lg font-bold">
        Archive by year
      </h2>
      <ul className="mt-3 space-y-1">
        {years.map(({ year, count }) => (
          <li key={year}>
            <Link
              to={yearPath(year)}
              aria-current={current === year ? "page" : undefined}
              className={`font-medium ${current === year ? "font-bold" : ""}`}
            >
              {year}
            </Link>{" "}
            <span className="text-sm opacity-80">
              ({count} {count === 1 ? "issue" : "issues"})
            </span>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/**
 * A list page of the reading room: its issues with tag filter and pagination, the subscribe box
 * and the years beside them. `path` is the page's address without ?page.
 */
export function ArchiveSection({
  heading,
  archive,
  path,
  currentTag,
  currentYear,
  aside,
  empty,
}: {
  heading: string;
  archive: ArchivePage;
  path: string;
  currentTag?: string;
  currentYear?: number;
  aside: ReactNode;
  empty: string;
}) {
  const { newsletters, page, pageCount, total } = archive;
  const navigation = useNavigation();
  const opening =
    navigation.state === "loading" &&
    /^\/newsletter\/(?!rss\.xml$|search$)[^/]+$/.test(navigation.location.pathname);
  return (
    <div className="grid gap-10 lg:grid-cols-[2fr_1fr]">
      <section aria-labelledby="issues-heading" className="min-w-0">
        <div className="flex flex-wrap items-baseline justify-between gap-x-4 gap-y-1">
          <h2 id="issues-heading" className="text-2xl font-bold">
            {heading}
          </h2>
          <a href="/newsletter/rss.xml" className="text-sm font-semibold">
            RSS feed
          </a>
        </div>
        <div className="mt-4">
          <NewsletterSearchBox />
        </div>
        <TagFilter tags={archive.tags} current={currentTag} />

        {opening ? (
          <p role="status" className="mt-4 rounded-brand bg-brand/10 px-4 py-2 text-sm font-medium">
            Loading newsletter...
          </p>
        ) : null}

        {total === 0 ? (
          <p className="mt-6 rounded-brand border border-dashed border-black/20 p-6 text-lg">
            {empty}
          </p>
        ) : newsletters.length === 0 ? (
          <div className="mt-6 rounded-brand border border-dashed border-black/20 p-6">
            <p className="text-lg">
              There is no page {page}: this list has {pageCount}{" "}
              {pageCount === 1 ? "page" : "pages"} of issues.
            </p>
            <LinkLine to={path} className="mt-3">
              Go to the latest issues
            </LinkLine>
          </div>
        ) : (
          <IssueList newsletters={newsletters} />
        )}
        {total > 0 ? <Pagination path={path} page={page} pageCount={pageCount} /> : null}
      </section>

      <div className="lg:pt-1">
        {aside}
        <YearList years={archive.years} current={currentYear} />
      </div>
    </div>
  );
}

/**
 * The reading room narrowed to one tag or one year (app/routes/newsletter/tag.tsx and year.tsx):
 * a hero that counts its issues, then the narrowed list beside the subscribe box.
 */
export function NarrowedArchivePage({
  eyebrow,
  title,
  lead,
  archive,
  ...section
}: {
  eyebrow: string;
  title: string;
  lead: string;
  archive: ArchivePage & { signup: ComponentProps<typeof SubscribeBox>["signup"] };
} & Omit<ComponentProps<typeof ArchiveSection>, "archive" | "aside">) {
  return (
    <main>
      <PageHero eyebrow={eyebrow} title={title} lead={lead} />
      <Container className="py-14">
        <ArchiveSection
          {...section}
          archive={archive}
          aside={<SubscribeBox signup={archive.signup} />}
        />
      </Container>
    </main>
  );
}

/** The error page of a narrowed list: its own words when there is nothing to list (404). */
export function NarrowedArchiveError({
  error,
  notFound,
}: {
  error: unknown;
  notFound: { title: string; text: string };
}) {
  return (
    <NewsletterErrorPage
      error={error}
      notFound={notFound}
      failure="The list could not be loaded. Please try again later."
    />
  );
}
