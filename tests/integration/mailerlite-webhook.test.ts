import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateToLatest } from "../../server/db/migrate";
import { seedTenants } from "../../server/tenants/seed";
import { createTestDatabase, type TestDatabase, testDialects } from "../support/database";
import { type RunningServer, startServer } from "../support/server";
import { insertSubscriber } from "../support/subscribers";

const WEBHOOK_SECRET = "ml-webhook-secret";

describe.each(testDialects())("the MailerLite webhook on %s", (dialect) => {
  let database: TestDatabase;
  let server: RunningServer;

  const status = async (email: string) =>
    (
      await database.db
        .selectFrom("subscribers")
        .select("status")
        .where("tenant_id", "=", "main")
        .where("email", "=", email)
        .executeTakeFirstOrThrow()
    ).status;
  const call = (body: unknown, signature?: string | null) => {
    const raw = JSON.stringify(body);
    const headers: Record<string, string> = { "content-type": "application/json" };
    const sig =
      signature === undefined
        ? createHmac("sha256", WEBHOOK_SECRET).update(raw).digest("hex")
        : signature;
    if (sig) headers.signature = sig;
    return fetch(`${server.url}/api/webhooks/mailerlite`, { method: "POST", body: raw, headers });
  };

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    await migrateToLatest(database.db);
    await seedTenants(database.db);
    for (const email of ["gone@example.com", "forged@example.com", "old@example.com"]) {
      await insertSubscriber(database.db, { email });
    }
    server = await startServer({
      databaseUrl: database.url,
      env: { MAILERLITE_WEBHOOK_SECRET: WEBHOOK_SECRET },
    });
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
    expect(await response.json()).toEqual({ applied: 1 });
    expect(await status("gone@example.com")).toBe("unsubscribed");
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
