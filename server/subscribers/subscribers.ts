import type { SubscriberRow, SubscriberStatus } from "../db/schema";
import { tenantDb } from "../db/tenant-guard";
import { pullSubscriber } from "../providers/mailerlite-mirror";
import type { Scope } from "../scope";
import { MESSAGES } from "./errors";
import { chunks } from "./store";

/*
 * A subscriber as the subscription flows see them: the context every flow runs in, the view the
 * pages show, and the lookups by address or id. The flows themselves are signup.ts,
 * preferences.ts and unsubscribe.ts; the signed links they mail are links.ts.
 */

/** Everything a subscription operation needs: the tenant, its database, its mail and its links. */
export type SubscriptionContext = Pick<
  Scope,
  "db" | "logger" | "transport" | "tenant" | "origin" | "sessionSecret"
>;

export interface SubscriberView {
  id: number;
  email: string;
  name: string;
  status: SubscriberStatus;
  subscribedAt: string | null;
  /** keys of the lists the subscriber is on */
  lists: string[];
}

export function normaliseSubscriberEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** How a subscriber is named: by address (normalised here) or by id. */
export type SubscriberKey = { email: string } | { subscriberId: number };

export async function findSubscriberRow(
  ctx: SubscriptionContext,
  who: SubscriberKey,
): Promise<SubscriberRow | undefined> {
  const query = tenantDb(ctx.db, ctx.tenant.id)
    .selectFrom("subscribers")
    .selectAll()
    .where("erased_at", "is", null);
  return (
    "email" in who
      ? query.where("email", "=", normaliseSubscriberEmail(who.email))
      : query.where("id", "=", who.subscriberId)
  ).executeTakeFirst();
}

export async function listKeysOfSubscriber(
  ctx: SubscriptionContext,
  subscriberId: number,
): Promise<string[]> {
  const rows = await tenantDb(ctx.db, ctx.tenant.id)
    .selectFrom("subscriptions")
    .innerJoin("lists", "lists.id", "subscriptions.list_id")
    .select("lists.key")
    .where("subscriptions.subscriber_id", "=", subscriberId)
    .orderBy("lists.id")
    .execute();
  return rows.map((row) => row.key);
}

export function toSubscriberView(row: SubscriberRow, lists: string[]): SubscriberView {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    status: row.status,
    subscribedAt: row.subscribed_at,
    lists,
  };
}

export async function findSubscriber(
  ctx: SubscriptionContext,
  email: string,
): Promise<SubscriberView | null> {
  await pullSubscriber(ctx, email, MESSAGES.loadFailed);
  const row = await findSubscriberRow(ctx, { email });
  return row ? toSubscriberView(row, await listKeysOfSubscriber(ctx, row.id)) : null;
}

export async function getSubscriberById(
  ctx: SubscriptionContext,
  id: number,
): Promise<SubscriberView | null> {
  const row = await findSubscriberRow(ctx, { subscriberId: id });
  return row ? toSubscriberView(row, await listKeysOfSubscriber(ctx, row.id)) : null;
}

/** subscriber id → keys of the lists they are on, in list order (a page or a selection at once). */
export async function listKeysBySubscriber(
  ctx: Pick<Scope, "db" | "tenant">,
  ids: readonly number[],
): Promise<Map<number, string[]>> {
  const db = tenantDb(ctx.db, ctx.tenant.id);
  const keys = new Map<number, string[]>();
  for (const part of chunks(ids)) {
    const rows = await db
      .selectFrom("subscriptions")
      .innerJoin("lists", "lists.id", "subscriptions.list_id")
      .select(["subscriptions.subscriber_id", "lists.key"])
      .where("subscriptions.subscriber_id", "in", part)
      .orderBy("lists.id")
      .execute();
    for (const row of rows) {
      const id = Number(row.subscriber_id);
      keys.set(id, [...(keys.get(id) ?? []), row.key]);
    }
  }
  return keys;
}
