/** Client-safe constants of the staff's subscriber pages (used by server/subscribers/admin.ts too). */
export const SUBSCRIBER_STATUSES = [
  "active",
  "unsubscribed",
  "unconfirmed",
  "bounced",
  "complained",
] as const;

/** The largest CSV accepted: 1 MB, which leaves the upload's envelope inside the host's 1 MiB cap. */
export const MAX_IMPORT_BYTES = 1_000_000;
