import type { NewsletterRow, NewsletterStatus } from "../db/schema";

/** What pages show of a newsletter (SPEC §3 field names). */
export interface Newsletter {
  id: string;
  tenantId: string;
  title: string;
  excerpt: string;
  content: string;
  readTime: number;
  status: NewsletterStatus;
  /** publishedAt for published newsletters, else createdAt (SPEC's `date`) */
  date: string;
  metrics: { views: number; comments: number };
  createdAt: string;
  updatedAt: string;
  publishedAt: string | null;
  sentAt: string | null;
  campaignId: string | null;
  sendStatus: string | null;
  /** its readable URL: /newsletter/{slug} */
  slug: string;
  /** the staff member who wrote it, when known */
  authorId: string | null;
  /** an imported post's byline, shown when no staff member's byline applies */
  authorName: string | null;
  /** the cover image's /uploads/… URL and its description, when it has one */
  coverImage: string | null;
  coverAlt: string | null;
  /** when this draft publishes itself (UTC), and whether it is sent as email then */
  scheduledAt: string | null;
  scheduledSend: boolean;
  /** whether preview links may be live (they are signed with this key) */
  sharing: boolean;
}

/** A newsletter as lists show it: all but its content, which no list reads. */
export type NewsletterListItem = Omit<Newsletter, "content">;

/**
 * A newsletter as the staff lists' cards show it (the dashboard, the CMS), with the list's order
 * (its last change). A page of cards reads these columns only: most of a row's columns lie after
 * its content in the row, and reading each costs SQLite a walk past it (decision 022, fourth pass).
 */
export interface NewsletterSummary {
  id: string;
  title: string;
  excerpt: string;
  status: NewsletterStatus;
  /** published, else created */
  date: string;
  updatedAt: string;
  metrics: { views: number; comments: number };
  /** its public address's part, for the View link */
  slug: string;
}

export const SUMMARY_COLUMNS = [
  "id",
  "title",
  "excerpt",
  "status",
  "views",
  "comments",
  "created_at",
  "updated_at",
  "published_at",
  "slug",
] as const satisfies readonly Exclude<keyof NewsletterRow, "content">[];

/** The columns of a NewsletterListItem: a list leaves the content's pages unread. */
export const LIST_COLUMNS = [
  ...SUMMARY_COLUMNS,
  "tenant_id",
  "read_time",
  "sent_at",
  "campaign_id",
  "send_status",
  "author_id",
  "author_name",
  "cover_image",
  "cover_alt",
  "scheduled_at",
  "scheduled_send",
  "preview_key",
] as const satisfies readonly Exclude<keyof NewsletterRow, "content">[];

type ListedRow = Pick<NewsletterRow, (typeof LIST_COLUMNS)[number]>;

export type SummaryRow = Pick<NewsletterRow, (typeof SUMMARY_COLUMNS)[number]>;

export function toSummary(row: SummaryRow): NewsletterSummary {
  return {
    id: row.id,
    title: row.title,
    excerpt: row.excerpt,
    status: row.status,
    date: row.published_at ?? row.created_at,
    updatedAt: row.updated_at,
    metrics: { views: Number(row.views), comments: Number(row.comments) },
    slug: row.slug ?? row.id,
  };
}

export function toNewsletter(row: NewsletterRow): Newsletter {
  return { ...toListItem(row), content: row.content };
}

export function toListItem(row: ListedRow): NewsletterListItem {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    title: row.title,
    excerpt: row.excerpt,
    readTime: row.read_time,
    status: row.status,
    date: row.published_at ?? row.created_at,
    metrics: { views: Number(row.views), comments: Number(row.comments) },
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    publishedAt: row.published_at,
    sentAt: row.sent_at,
    campaignId: row.campaign_id,
    sendStatus: row.send_status,
    slug: row.slug ?? row.id,
    authorId: row.author_id,
    authorName: row.author_name,
    coverImage: row.cover_image,
    coverAlt: row.cover_image ? (row.cover_alt ?? "") : null,
    scheduledAt: row.scheduled_at,
    scheduledSend: Number(row.scheduled_send) === 1,
    sharing: row.preview_key !== null,
  };
}
