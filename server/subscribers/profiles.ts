import type { SubscriberRow } from "../db/schema";
import { tenantDb } from "../db/tenant-guard";
import type { SubscriberEventDetail } from "./events";
import { fieldValuesOf, listFields } from "./fields";
import { listTenantLists } from "./lists";
import type { SubscriptionContext } from "./subscribers";
import { subscriberTimeline, type TimelineEntry } from "./timeline";

/*
 * One subscriber as staff see them (issue 16, points 3 and 5): the profile with its lists, fields,
 * consent record and timeline, and the data export. Staff's changes are profile-edit.ts (one at a
 * time) and bulk-actions.ts (a selection); the timeline is timeline.ts.
 */

export class ProfileError extends Error {
  constructor(
    message: string,
    readonly status: 400 | 404 | 409 | 503 = 400,
    /** per-field messages, for the form */
    readonly fields: Record<string, string[]> = {},
  ) {
    super(message);
  }
}

export const PROFILE_MESSAGES = {
  notFound: "Subscriber not found",
  taken: "Another subscriber already has this address",
  exists: "This address is already a subscriber",
} as const;

const RECORD_COLUMNS = [
  "id",
  "email",
  "name",
  "status",
  "subscribed_at",
  "unsubscribed_at",
  "created_at",
] as const;

export type SubscriberRecord = Pick<SubscriberRow, (typeof RECORD_COLUMNS)[number]>;

export async function requireSubscriber(
  ctx: SubscriptionContext,
  id: number,
): Promise<SubscriberRecord> {
  const row = await tenantDb(ctx.db, ctx.tenant.id)
    .selectFrom("subscribers")
    .select(RECORD_COLUMNS)
    .where("id", "=", id)
    .where("erased_at", "is", null)
    .executeTakeFirst();
  if (!row) throw new ProfileError(PROFILE_MESSAGES.notFound, 404);
  return row;
}

export async function listIdsOfSubscriber(ctx: SubscriptionContext, id: number): Promise<number[]> {
  const rows = await tenantDb(ctx.db, ctx.tenant.id)
    .selectFrom("subscriptions")
    .select("list_id")
    .where("subscriber_id", "=", id)
    .execute();
  return rows.map((row) => row.list_id);
}

export interface SubscriberProfile extends SubscriberRecord {
  /** list keys */
  lists: string[];
  values: Record<string, string>;
  /** the sign-up that put them here: how, where, from which address, when */
  consent: (SubscriberEventDetail["signed-up"] & { at: string }) | null;
  timeline: TimelineEntry[];
}

export async function subscriberProfile(
  ctx: SubscriptionContext,
  id: number,
): Promise<SubscriberProfile> {
  const row = await requireSubscriber(ctx, id);
  const db = tenantDb(ctx.db, ctx.tenant.id);
  const [listIds, lists, values, consent, timeline] = await Promise.all([
    listIdsOfSubscriber(ctx, id),
    listTenantLists(db, ctx.tenant),
    fieldValuesOf(db, ctx.tenant.id, [id]),
    db
      .selectFrom("subscriber_events")
      .select(["detail", "created_at"])
      .where("subscriber_id", "=", id)
      .where("kind", "=", "signed-up")
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .executeTakeFirst(),
    subscriberTimeline(ctx, id),
  ]);
  return {
    ...row,
    lists: lists.filter((list) => listIds.includes(list.id)).map((list) => list.key),
    values: values.get(id) ?? {},
    consent: consent
      ? {
          ...(JSON.parse(consent.detail) as SubscriberEventDetail["signed-up"]),
          at: consent.created_at,
        }
      : null,
    timeline,
  };
}

/**
 * One subscriber's data as JSON (GDPR Art. 15 and 20): who they are, their lists and fields, the
 * consent record, every event and each campaign sent to them with what they did with it.
 */
export async function exportSubscriberData(
  ctx: SubscriptionContext,
  id: number,
): Promise<Record<string, unknown>> {
  const profile = await subscriberProfile(ctx, id);
  const lists = await listTenantLists(ctx.db, ctx.tenant);
  const fields = await listFields(ctx.db, ctx.tenant.id);
  return {
    exportedAt: new Date().toISOString(),
    controller: { name: ctx.tenant.branding.companyName || ctx.tenant.name, site: ctx.origin },
    subscriber: {
      email: profile.email,
      name: profile.name,
      status: profile.status,
      createdAt: profile.created_at,
      subscribedAt: profile.subscribed_at,
      unsubscribedAt: profile.unsubscribed_at,
    },
    lists: lists
      .filter((list) => profile.lists.includes(list.key))
      .map((list) => ({ key: list.key, name: list.name })),
    fields: Object.fromEntries(
      fields
        .filter((field) => profile.values[field.key] !== undefined)
        .map((field) => [field.label, profile.values[field.key]]),
    ),
    consent: profile.consent,
    history: profile.timeline,
  };
}
