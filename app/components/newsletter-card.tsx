import type { NewsletterSummary } from "../../server/newsletters/model";
import { formatDate, plural } from "../../shared/format";
import { Kept, Link } from "../lib/page-scripts";

/** What a card shows: the staff list's summary without its sort key. */
export type NewsletterCardData = Omit<NewsletterSummary, "updatedAt">;

/**
 * A newsletter as its card shows it, and nothing more: a staff page's data is encoded again for
 * the browser on every load, and a card needs a third of a newsletter's fields.
 */
export function newsletterCardData(newsletter: NewsletterCardData): NewsletterCardData {
  const { id, title, excerpt, date, status, metrics, slug } = newsletter;
  return { id, title, excerpt, date, status, metrics, slug };
}

/** Where a card's Edit and View go (View: only once the newsletter is published). */
export interface NewsletterLinks {
  editHref: string;
  viewHref: string | null;
}

/**
 * The card's links, on this site or, through `href`, on the tenant's own site (the CMS page
 * lists every granted tenant's newsletters).
 */
export function newsletterLinks(
  newsletter: Pick<NewsletterCardData, "id" | "slug" | "status">,
  href: (path: string) => string = (path) => path,
): NewsletterLinks {
  return {
    editHref: href(`/admin/newsletter/edit/${newsletter.id}`),
    viewHref: newsletter.status === "published" ? href(`/newsletter/${newsletter.slug}`) : null,
  };
}

interface NewsletterCardProps {
  newsletter: NewsletterCardData;
  /** this site's pages of the newsletter unless told otherwise */
  links?: NewsletterLinks;
  /** 'Send as email', for a published newsletter */
  sendHref?: string | null;
}

const CARD_PROPS = {
  className: "flex h-full flex-col rounded-brand border border-black/10 bg-surface p-5 shadow-sm",
};

/**
 * A newsletter in the staff grid: title, date, views, comments, status, Edit and View (SPEC §2).
 * Kept (app/lib/page-scripts.tsx): a page of cards changes only when a newsletter does.
 */
export function NewsletterCard({
  newsletter,
  links = newsletterLinks(newsletter),
  sendHref = null,
}: NewsletterCardProps) {
  return (
    <Kept
      as="article"
      props={CARD_PROPS}
      part={CardContent}
      // Only what the card shows: a summary with more fields would make each its own entry.
      data={{ newsletter: newsletterCardData(newsletter), ...links, sendHref }}
    />
  );
}

function CardContent({
  newsletter,
  editHref,
  viewHref,
  sendHref,
}: { newsletter: NewsletterCardData; sendHref: string | null } & NewsletterLinks) {
  const published = newsletter.status === "published";
  return (
    <>
      <div className="flex items-start justify-between gap-3">
        <h3 className="text-lg font-semibold leading-snug">{newsletter.title}</h3>
        <span
          className={`shrink-0 rounded-full px-2.5 py-0.5 text-xs font-semibold ${published ? "bg-ok text-white" : "bg-black/10 text-ink"}`}
        >
          {published ? "Published" : "Draft"}
        </span>
      </div>
      <p className="mt-1 text-sm">
        <time dateTime={newsletter.date}>{formatDate(newsletter.date)}</time>
      </p>
      <p className="mt-3 line-clamp-3 flex-1 text-sm leading-relaxed">{newsletter.excerpt}</p>
      <p className="mt-3 text-sm">
        {plural(newsletter.metrics.views, "view")} ·{" "}
        {plural(newsletter.metrics.comments, "comment")}
      </p>
      <div className="mt-4 flex flex-wrap gap-3">
        <Link
          to={editHref}
          className="rounded-brand border-2 border-brand-strong bg-brand-strong px-4 py-2 text-sm font-semibold text-on-brand-strong no-underline"
        >
          Edit
        </Link>
        {viewHref ? (
          <Link
            to={viewHref}
            className="rounded-brand border-2 border-brand-strong px-4 py-2 text-sm font-semibold text-brand-strong no-underline"
          >
            View
          </Link>
        ) : (
          <span className="px-1 py-2 text-sm opacity-80">Not public yet</span>
        )}
        {sendHref && published ? (
          <Link
            to={sendHref}
            className="rounded-brand border-2 border-brand-strong px-4 py-2 text-sm font-semibold text-brand-strong no-underline"
          >
            Send as email
          </Link>
        ) : null}
      </div>
    </>
  );
}
