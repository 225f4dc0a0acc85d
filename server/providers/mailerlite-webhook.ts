import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { recordUnsubscribe } from "../campaigns/tracking";
import type { Db } from "../db";
import { crossTenant, tenantDb } from "../db/tenant-guard";
import { getSecretBox, type Reseal, resealAll, type SealedAt } from "../secret-box";
import { markUnsubscribed } from "../subscribers/store";

/**
 * MailerLite's webhooks (subscriber.unsubscribed, subscriber.bounced), one URL per tenant:
 * /api/webhooks/mailerlite/{tenantId}. The `Signature` header is the hex HMAC-SHA256 of the raw
 * JSON body with the secret MailerLite shows for that webhook, which staff paste into the tenant's
 * provider settings (webhook_secrets). The URL names the tenant and only its own secret verifies,
 * so a body signed for one tenant changes nothing at another. Unsigned, wrongly signed and stale
 * calls (no event newer than WEBHOOK_MAX_AGE_MS: MailerLite's own retries end within about 20
 * minutes) change nothing, and an event already applied is not applied again (webhook_events).
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
  /** MailerLite's event id, else a digest of the event: a replay has the same one */
  id: string;
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
    if (!email || at === undefined) continue;
    const given = typeof item.id === "string" || typeof item.id === "number" ? String(item.id) : "";
    const id = given
      ? `id:${given.slice(0, 200)}`
      : `sha256:${createHash("sha256").update(`${type}\n${email}\n${at}`).digest("hex")}`;
    events.push({ id, type, email, at });
  }
  return events;
}

export type WebhookOutcome =
  | { ok: true; applied: number; replayed: number }
  | { ok: false; status: 400 | 401; message: string };

/** How long applied event ids are remembered: far longer than MailerLite retries or WEBHOOK_MAX_AGE_MS. */
const EVENT_MEMORY_MS = 7 * 86_400_000;

/** Where a tenant's webhook secret is sealed (server/secret-box.ts): it opens on that row only. */
export const webhookSecretAt = (tenantId: string, provider = "mailerlite"): SealedAt => ({
  table: "webhook_secrets",
  column: "secret",
  row: `${tenantId}/${provider}`,
});

/** Staff paste the secret MailerLite shows for the tenant's webhook; it replaces the one before. */
export async function saveWebhookSecret(
  db: Db,
  tenantId: string,
  secret: string,
  actor: string,
): Promise<void> {
  const values = {
    secret: getSecretBox().seal(secret, webhookSecretAt(tenantId)),
    created_by: actor,
    created_at: new Date().toISOString(),
  };
  await db
    .insertInto("webhook_secrets")
    .values({ tenant_id: tenantId, provider: "mailerlite", ...values })
    .onConflict((oc) => oc.columns(["tenant_id", "provider"]).doUpdateSet(values))
    .execute();
}

/** Seals every webhook secret not sealed under the current key (at start, `herald secrets rotate`). */
export async function resealWebhookSecrets(db: Db, which: Reseal): Promise<number> {
  return db.transaction().execute(async (trx) => {
    // Every tenant's secrets at once, on purpose: the key is the installation's, not a tenant's.
    const all = crossTenant(trx);
    const rows = await all
      .selectFrom("webhook_secrets")
      .select(["tenant_id", "provider", "secret"])
      .execute();
    return resealAll(
      which,
      rows,
      (row) => row.secret,
      (row) => webhookSecretAt(row.tenant_id, row.provider),
      async (row, sealed) => {
        await tenantDb(all, row.tenant_id)
          .updateTable("webhook_secrets")
          .set({ secret: sealed })
          .where("provider", "=", row.provider)
          .where("secret", "=", row.secret)
          .execute();
      },
    );
  });
}

export async function removeWebhookSecret(root: Db, tenantId: string): Promise<void> {
  const db = tenantDb(root, tenantId);
  await db.deleteFrom("webhook_secrets").where("provider", "=", "mailerlite").execute();
}

/** Whether the tenant has a secret, and since when: never the secret itself. */
export async function webhookSecretStatus(
  db: Db,
  tenantId: string,
): Promise<{ setAt: string; setBy: string } | null> {
  const row = await tenantDb(db, tenantId)
    .selectFrom("webhook_secrets")
    .select(["created_at", "created_by"])
    .where("provider", "=", "mailerlite")
    .executeTakeFirst();
  return row ? { setAt: row.created_at, setBy: row.created_by } : null;
}

async function webhookSecretOf(root: Db, tenantId: string): Promise<string | null> {
  const db = tenantDb(root, tenantId);
  const row = await db
    .selectFrom("webhook_secrets")
    .select("secret")
    .where("provider", "=", "mailerlite")
    .executeTakeFirst();
  return row ? getSecretBox().openStored(row.secret, webhookSecretAt(tenantId)) : null;
}

/** Checks, then applies MailerLite's word to our copy of the tenant's subscribers. */
export async function handleMailerLiteWebhook(
  root: Db,
  tenantId: string,
  rawBody: string,
  signature: string | null,
  now = Date.now(),
): Promise<WebhookOutcome> {
  const db = tenantDb(root, tenantId);
  const secret = await webhookSecretOf(db, tenantId);
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
  let replayed = 0;
  const stamp = new Date(now).toISOString();
  await db
    .deleteFrom("webhook_events")
    .where("received_at", "<", new Date(now - EVENT_MEMORY_MS).toISOString())
    .execute();
  for (const event of fresh) {
    await db.transaction().execute(async (trx) => {
      // The event's id is taken first, in the same transaction: a replay finds it and stops.
      const first = await trx
        .insertInto("webhook_events")
        .values({
          tenant_id: tenantId,
          provider: "mailerlite",
          event_id: event.id,
          received_at: stamp,
        })
        .onConflict((oc) => oc.columns(["tenant_id", "provider", "event_id"]).doNothing())
        .executeTakeFirst();
      if (Number(first.numInsertedOrUpdatedRows ?? 0) === 0) {
        replayed++;
        return;
      }
      const row = await trx
        .selectFrom("subscribers")
        .select(["id", "status"])
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
  return { ok: true, applied, replayed };
}
