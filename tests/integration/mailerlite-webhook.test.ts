import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateToLatest } from "../../server/db/migrate";
import { saveWebhookSecret } from "../../server/providers/mailerlite-webhook";
import { seedTenants } from "../../server/tenants/seed";
import { createTestDatabase, type TestDatabase, testDialects } from "../support/database";
import { type RunningServer, startServer } from "../support/server";
import { insertSubscriber } from "../support/subscribers";

const WEBHOOK_SECRET = "ml-webhook-secret-main";
const KD_SECRET = "ml-webhook-secret-keydiscovery";

describe.each(testDialects())("the MailerLite webhook on %s", (dialect) => {
  let database: TestDatabase;
  let server: RunningServer;

  const status = async (email: string, tenantId = "main") =>
    (
      await database.db
        .selectFrom("subscribers")
        .select("status")
        .where("tenant_id", "=", tenantId)
        .where("email", "=", email)
        .executeTakeFirstOrThrow()
    ).status;
  const call = (
    body: unknown,
    signature?: string | null,
    path = "/api/webhooks/mailerlite/main",
  ) => {
    const raw = JSON.stringify(body);
    const headers: Record<string, string> = { "content-type": "application/json" };
    const sig =
      signature === undefined
        ? createHmac("sha256", WEBHOOK_SECRET).update(raw).digest("hex")
        : signature;
    if (sig) headers.signature = sig;
    return fetch(`${server.url}${path}`, { method: "POST", body: raw, headers });
  };

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    await migrateToLatest(database.db);
    await seedTenants(database.db);
    for (const email of [
      "gone@example.com",
      "forged@example.com",
      "old@example.com",
      "twice@example.com",
    ]) {
      await insertSubscriber(database.db, { email });
    }
    await insertSubscriber(database.db, { email: "gone@example.com", tenantId: "keydiscovery" });
    await saveWebhookSecret(database.db, "main", WEBHOOK_SECRET, "staff@example.com");
    await saveWebhookSecret(database.db, "keydiscovery", KD_SECRET, "staff@example.com");
    server = await startServer({ databaseUrl: database.url });
  });

  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  it("applies a signed, fresh unsubscribe", async () => {
    const response = await call({
      event: "subscriber.unsubscribed",
      email: "gone@example.com",
      updated_at: new Date().toISOString(),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ applied: 1, replayed: 0 });
    expect(await status("gone@example.com")).toBe("unsubscribed");
    // The same address at keydiscovery is another subscriber: untouched.
    expect(await status("gone@example.com", "keydiscovery")).toBe("active");
  });

  it("binds the webhook to the tenant in its URL: a body signed for main changes nothing at keydiscovery", async () => {
    const event = {
      event: "subscriber.unsubscribed",
      email: "gone@example.com",
      updated_at: new Date().toISOString(),
    };
    const replayedElsewhere = await call(event, undefined, "/api/webhooks/mailerlite/keydiscovery");
    expect(replayedElsewhere.status).toBe(401);
    expect(await status("gone@example.com", "keydiscovery")).toBe("active");
    // keydiscovery's own secret works there; the Host plays no part.
    const own = createHmac("sha256", KD_SECRET).update(JSON.stringify(event)).digest("hex");
    const mine = await call(event, own, "/api/webhooks/mailerlite/keydiscovery");
    expect(mine.status).toBe(200);
    expect(await status("gone@example.com", "keydiscovery")).toBe("unsubscribed");
    // No tenant, no secret, the old host-decided address: nothing to verify against.
    expect((await call(event, undefined, "/api/webhooks/mailerlite/nowhere")).status).toBe(401);
    // (no route there any more: the 404 page, which takes no POST)
    expect([404, 405]).toContain((await call(event, undefined, "/api/webhooks/mailerlite")).status);
  });

  it("applies each event once: a replayed call is answered but changes nothing", async () => {
    const event = {
      id: "evt-twice-1",
      type: "subscriber.unsubscribed",
      data: { subscriber: { email: "twice@example.com" } },
      timestamp: Math.floor(Date.now() / 1000),
    };
    const first = await call(event);
    expect(await first.json()).toEqual({ applied: 1, replayed: 0 });
    // Staff subscribe the address again; the replay of the old event must not undo that.
    await database.db
      .updateTable("subscribers")
      .set({ status: "active" })
      .where("tenant_id", "=", "main")
      .where("email", "=", "twice@example.com")
      .execute();
    const again = await call(event);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ applied: 0, replayed: 1 });
    expect(await status("twice@example.com")).toBe("active");
  });

  it("changes nothing for an unsigned, forged or stale call", async () => {
    const event = {
      event: "subscriber.unsubscribed",
      email: "forged@example.com",
      updated_at: new Date().toISOString(),
    };
    expect((await call(event, null)).status).toBe(401);
    expect((await call(event, "0".repeat(64))).status).toBe(401);
    const otherSecret = createHmac("sha256", "guess").update(JSON.stringify(event)).digest("hex");
    expect((await call(event, otherSecret)).status).toBe(401);
    expect(await status("forged@example.com")).toBe("active");
    const stale = {
      event: "subscriber.bounced",
      email: "old@example.com",
      updated_at: "2026-01-01T00:00:00Z",
    };
    expect((await call(stale)).status).toBe(400);
    expect(await status("old@example.com")).toBe("active");
  });
});
