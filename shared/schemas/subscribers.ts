/** Client-safe constants of the staff's subscriber pages (used by server/subscribers/search.ts and import-rows.ts too). */
export const SUBSCRIBER_STATUSES = [
  "active",
  "unsubscribed",
  "unconfirmed",
  "bounced",
  "complained",
] as const;

/** The statuses as staff choose them (the subscriber filter, a segment's rule): "Active", … */
export const SUBSCRIBER_STATUS_OPTIONS = SUBSCRIBER_STATUSES.map((status) => ({
  value: status,
  label: status[0].toUpperCase() + status.slice(1),
}));

/**
 * The largest CSV accepted: 10 MB (about 200,000 rows), inside the import route's body limit
 * (server/http/security.ts).
 */
export const MAX_IMPORT_BYTES = 10_000_000;
export const MAX_IMPORT_LABEL = "10 MB";

/** Where an import's people come from (issue 33), as staff read it. */
export const IMPORT_SOURCE_LABELS = {
  herald: "Herald CSV",
  ghost: "Ghost members CSV",
  substack: "Substack email list",
  mailerlite: "MailerLite account",
} as const;
