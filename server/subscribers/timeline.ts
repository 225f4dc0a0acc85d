import { tenantDb } from "../db/tenant-guard";
import type { SubscriberEventDetail } from "./events";
import { IMPORT_ORIGINS } from "./events";
import { listTenantLists } from "./lists";
import type { SubscriptionContext } from "./subscribers";

/*
 * A subscriber's timeline as staff read it on the profile (issue 16, point 3): their own events
 * (sign-up and consent, confirmations, changes, leaving), the campaigns sent to them with opens,
 * clicks, bounces and complaints, and why they left.
 */

export interface TimelineEntry {
  /** its place in the timeline, newest first: a stable key for the page */
  position?: number;
  at: string;
  kind: string;
  title: string;
  detail?: string;
}

const VIA: Record<SubscriberEventDetail["unsubscribed"]["via"], string> = {
  link: "through the unsubscribe link",
  "preference-centre": "in the preference centre",
  staff: "by staff",
};

function describeEvent(
  kind: string,
  detail: Record<string, unknown>,
  listName: (key: string) => string,
): Omit<TimelineEntry, "at" | "kind"> {
  const names = (keys: unknown) =>
    Array.isArray(keys) && keys.length ? keys.map((key) => listName(String(key))).join(", ") : "";
  switch (kind) {
    case "signed-up": {
      const d = detail as SubscriberEventDetail["signed-up"];
      const how =
        d.source === "staff"
          ? d.optIn
            ? `Invited by ${d.by}: the double opt-in email was sent`
            : `Added by ${d.by} as active`
          : d.source === "import"
            ? d.origin
              ? `Imported from ${IMPORT_ORIGINS[d.origin]}`
              : "Imported from a CSV file"
            : d.source === "api"
              ? "Signed up through the API"
              : d.source === "embed"
                ? "Signed up through a form on another site"
                : "Signed up through the form";
      const evidence = [
        d.page ? `page ${d.page}` : null,
        d.clientAddress ? `client address ${d.clientAddress}` : null,
        names(d.lists) ? `lists: ${names(d.lists)}` : null,
        d.note ? `note: ${d.note}` : null,
      ].filter(Boolean);
      return { title: how, detail: evidence.join(" · ") || undefined };
    }
    case "confirmed":
      return { title: "Confirmed the subscription (double opt-in)" };
    case "preferences-changed":
      return { title: "Changed their preferences", detail: `Now on: ${names(detail.lists)}` };
    case "edited":
      return {
        title: `Edited by ${String(detail.by)}`,
        detail: `Changed: ${(detail.changes as string[]).join(", ")}`,
      };
    case "lists-changed": {
      const d = detail as SubscriberEventDetail["lists-changed"];
      return {
        title: `Lists changed by ${d.by}`,
        detail: [
          d.added.length ? `added to ${names(d.added)}` : null,
          d.removed.length ? `removed from ${names(d.removed)}` : null,
        ]
          .filter(Boolean)
          .join("; "),
      };
    }
    case "unsubscribed": {
      const d = detail as SubscriberEventDetail["unsubscribed"];
      return { title: `Unsubscribed ${VIA[d.via] ?? ""}${d.by ? ` (${d.by})` : ""}`.trim() };
    }
    default:
      return { title: kind };
  }
}

/** The most recent entries of each kind the timeline shows. */
export const TIMELINE_LIMIT = 200;

/** Everything that happened to a subscriber, newest first. */
export async function subscriberTimeline(
  ctx: SubscriptionContext,
  id: number,
): Promise<TimelineEntry[]> {
  const db = tenantDb(ctx.db, ctx.tenant.id);
  const lists = await listTenantLists(db, ctx.tenant);
  const listName = (key: string) => lists.find((list) => list.key === key)?.name ?? key;
  const [events, deliveries, campaignEvents, feedback] = await Promise.all([
    db
      .selectFrom("subscriber_events")
      .select(["kind", "detail", "created_at"])
      .where("subscriber_id", "=", id)
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .limit(TIMELINE_LIMIT)
      .execute(),
    db
      .selectFrom("deliveries")
      .innerJoin("campaigns", "campaigns.id", "deliveries.campaign_id")
      .select([
        "campaigns.subject",
        "deliveries.status",
        "deliveries.sent_at",
        "deliveries.bounced_at",
        "deliveries.complained_at",
        "deliveries.feedback",
      ])
      .where("deliveries.subscriber_id", "=", id)
      .orderBy("deliveries.id", "desc")
      .limit(TIMELINE_LIMIT)
      .execute(),
    db
      .selectFrom("campaign_events")
      .innerJoin("deliveries", "deliveries.id", "campaign_events.delivery_id")
      .innerJoin("campaigns", "campaigns.id", "campaign_events.campaign_id")
      .select([
        "campaign_events.kind",
        "campaign_events.url",
        "campaign_events.created_at",
        "campaigns.subject",
      ])
      .where("deliveries.subscriber_id", "=", id)
      .where("campaign_events.kind", "in", ["open", "click"])
      .orderBy("campaign_events.id", "desc")
      .limit(TIMELINE_LIMIT)
      .execute(),
    db
      .selectFrom("unsubscribe_feedback")
      .select(["reason", "details", "created_at"])
      .where("subscriber_id", "=", id)
      .execute(),
  ]);
  const entries: TimelineEntry[] = [
    ...events.map((event) => ({
      at: event.created_at,
      kind: event.kind,
      ...describeEvent(event.kind, JSON.parse(event.detail) as Record<string, unknown>, listName),
    })),
    ...deliveries.flatMap((delivery) => [
      ...(delivery.sent_at
        ? [{ at: delivery.sent_at, kind: "delivered", title: `Sent “${delivery.subject}”` }]
        : []),
      ...(delivery.bounced_at
        ? [
            {
              at: delivery.bounced_at,
              kind: "bounced",
              title: `“${delivery.subject}” bounced`,
              detail: delivery.feedback ?? undefined,
            },
          ]
        : []),
      ...(delivery.complained_at
        ? [
            {
              at: delivery.complained_at,
              kind: "complained",
              title: `Marked “${delivery.subject}” as spam`,
            },
          ]
        : []),
    ]),
    ...campaignEvents.map((event) => ({
      at: event.created_at,
      kind: event.kind === "open" ? "opened" : "clicked",
      title:
        event.kind === "open"
          ? `Opened “${event.subject}”`
          : `Clicked a link in “${event.subject}”`,
      detail: event.url ?? undefined,
    })),
    ...feedback.map((answer) => ({
      at: answer.created_at,
      kind: "feedback",
      title: `Said why they left: ${answer.reason}`,
      detail: answer.details ?? undefined,
    })),
  ];
  return entries
    .sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0))
    .slice(0, TIMELINE_LIMIT * 2)
    .map((entry, position) => ({ ...entry, position }));
}
