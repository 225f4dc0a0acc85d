import { createHmac, timingSafeEqual } from "node:crypto";
import { recordUnsubscribe } from "../campaigns/tracking";
import type { Db } from "../db";
import { markUnsubscribed } from "../subscribers/store";

/**
 * MailerLite's webhooks (subscriber.unsubscribed, subscriber.bounced): the `Signature` header is
 * the hex HMAC-SHA256 of the raw JSON body with the webhook's secret. Unsigned, wrongly signed and
 * stale calls (no event newer than WEBHOOK_MAX_AGE_MS: MailerLite's own retries end within about
 * 20 minutes) change nothing.
 */
export const WEBHOOK_MAX_AGE_MS = 30 * 60_000;

export function verifyMailerLiteSignature(
  secret: string,
  rawBody: string,
  signature: string | null,
): boolean {
  if (!secret || !signature || !/^[0-9a-f]{64}$/i.test(signature)) return false;
  const expected = createHmac("sha256", secret).update(rawBody).digest();
  return timingSafeEqual(expected, Buffer.from(signature, "hex"));
}

export interface WebhookEvent {
  type: "subscriber.unsubscribed" | "subscriber.bounced";
  email: string;
  /** when MailerLite says it happened, epoch ms */
  at: number;
}

type Json = Record<string, unknown>;

const timeOf = (value: unknown): number | null => {
  if (typeof value === "number") return value < 1e12 ? value * 1000 : value;
  if (typeof value === "string") {
    const parsed = Date.parse(
      value.includes("T") || value.endsWith("Z") ? value : `${value.replace(" ", "T")}Z`,
    );
    return Number.isNaN(parsed) ? null : parsed;
  }
  return null;
};

/** The events we act on, from a single event or a batch (`events: […]`); others are ignored. */
export function parseWebhookEvents(body: unknown): WebhookEvent[] {
  const items: Json[] =
    body && typeof body === "object" && Array.isArray((body as Json).events)
      ? ((body as Json).events as Json[])
      : body && typeof body === "object"
        ? [body as Json]
        : [];
  const events: WebhookEvent[] = [];
  for (const item of items) {
    const type = String(item.type ?? item.event ?? "");
    if (type !== "subscriber.unsubscribed" && type !== "subscriber.bounced") continue;
    const data = (item.data as Json | undefined) ?? item;
    const subscriber = (data.subscriber as Json | undefined) ?? data;
    const email = typeof subscriber.email === "string" ? subscriber.email.trim().toLowerCase() : "";
    const at = [item.timestamp, item.created_at, subscriber.unsubscribed_at, subscriber.updated_at]
      .map(timeOf)
      .find((time): time is number => time !== null);
    if (email && at !== undefined) events.push({ type, email, at });
  }
  return events;
}

export type WebhookOutcome =
  | { ok: true; applied: number }
  | { ok: false; status: 400 | 401; message: string };

/** Checks, then applies MailerLite's word to our copy of the tenant's subscribers. */
export async function handleMailerLiteWebhook(
  db: Db,
  tenantId: string,
  secret: string | undefined,
  rawBody: string,
  signature: string | null,
  now = Date.now(),
): Promise<WebhookOutcome> {
  if (!secret || !verifyMailerLiteSignature(secret, rawBody, signature)) {
    return { ok: false, status: 401, message: "Invalid signature" };
  }
  let body: unknown;
  try {
    body = JSON.parse(rawBody);
  } catch {
    return { ok: false, status: 400, message: "Malformed JSON" };
  }
  const events = parseWebhookEvents(body);
  const fresh = events.filter(
    (event) => now - event.at <= WEBHOOK_MAX_AGE_MS && event.at - now < 5 * 60_000,
  );
  if (events.length > 0 && fresh.length === 0) {
    return { ok: false, status: 400, message: "Stale event" };
  }
  let applied = 0;
  for (const event of fresh) {
    const stamp = new Date(now).toISOString();
    await db.transaction().execute(async (trx) => {
      const row = await trx
        .selectFrom("subscribers")
        .select(["id", "status"])
        .where("tenant_id", "=", tenantId)
        .where("email", "=", event.email)
        .executeTakeFirst();
      if (!row || row.status === "unsubscribed") return;
      // A bounced address gets no more mail either: it leaves like an unsubscribe.
      await markUnsubscribed(trx, tenantId, row.id, stamp);
      if (event.type === "subscriber.unsubscribed")
        await recordUnsubscribe(trx, tenantId, row.id, stamp);
      applied++;
    });
  }
  return { ok: true, applied };
}
