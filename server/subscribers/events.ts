import type { Db } from "../db";
import type { SubscriberChunkWrite } from "./store";

/*
 * A subscriber's timeline (issue 16, point 3): what happened to them, and when. Sign-ups keep the
 * consent evidence (how, on which page, from which client address) that GDPR asks a sender to be
 * able to show. Campaign deliveries, opens, clicks and bounces are read from the campaign tables.
 */

export type ConsentSource = "form" | "embed" | "api" | "staff" | "import";

/** Where an imported audience came from (issue 33): its name as the timeline shows it. */
export const IMPORT_ORIGINS = {
  ghost: "Ghost",
  substack: "Substack",
  mailerlite: "MailerLite",
} as const;

export type ImportOrigin = keyof typeof IMPORT_ORIGINS;

export interface SubscriberEventDetail {
  "signed-up": {
    source: ConsentSource;
    lists: string[];
    /** the page whose form was used */
    page?: string | null;
    clientAddress?: string | null;
    /** the staff member who added them */
    by?: string | null;
    /** staff chose to send the double opt-in instead of adding them as active */
    optIn?: boolean;
    /** active at once (no double opt-in): growth counts them as confirmed that day */
    active?: boolean;
    /** an import: the platform they came from (issue 33), when not a Herald CSV */
    origin?: ImportOrigin;
    /** an import: the note the other platform kept about them (Ghost's member note) */
    note?: string;
  };
  /** the lists they confirmed (growth per list) */
  confirmed: { lists?: string[] };
  "preferences-changed": { lists: string[]; added?: string[]; removed?: string[] };
  edited: { by: string; changes: string[] };
  "lists-changed": { by: string; added: string[]; removed: string[] };
  /** the reason they gave, if any, is in unsubscribe_feedback */
  unsubscribed: { via: "link" | "preference-centre" | "staff"; by?: string; lists?: string[] };
}

export type SubscriberEventKind = keyof SubscriberEventDetail;

export interface SubscriberEvent<K extends SubscriberEventKind = SubscriberEventKind> {
  subscriberId: number;
  kind: K;
  detail: SubscriberEventDetail[K];
}

/** Adds events to subscribers' timelines; pass the transaction the change itself is written in. */
export async function recordEvents(
  db: Db,
  tenantId: string,
  events: readonly SubscriberEvent[],
  at = new Date().toISOString(),
): Promise<void> {
  if (events.length === 0) return;
  // A few hundred rows per statement stays under either database's parameter limit.
  for (let start = 0; start < events.length; start += 500) {
    await db
      .insertInto("subscriber_events")
      .values(
        events.slice(start, start + 500).map((event) => ({
          tenant_id: tenantId,
          subscriber_id: event.subscriberId,
          kind: event.kind,
          detail: JSON.stringify(event.detail),
          created_at: at,
        })),
      )
      .execute();
  }
}

export function recordEvent<K extends SubscriberEventKind>(
  db: Db,
  tenantId: string,
  event: SubscriberEvent<K>,
  at?: string,
): Promise<void> {
  return recordEvents(db, tenantId, [event as SubscriberEvent], at);
}

/** Drops these subscribers' timelines (erasure: the consent record goes with the person). */
export const clearEvents: SubscriberChunkWrite = (db, ids) =>
  db.deleteFrom("subscriber_events").where("subscriber_id", "in", ids).execute();
