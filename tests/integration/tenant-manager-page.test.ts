import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateToLatest } from "../../server/db/migrate";
import { webhookSecretAt } from "../../server/providers/mailerlite-webhook";
import { getSecretBox } from "../../server/secret-box";
import { createTenant } from "../../server/tenants/admin";
import { seedTenants } from "../../server/tenants/seed";
import { createStaffUser, signIn } from "../support/auth";
import { createTestDatabase, type TestDatabase } from "../support/database";
import { textOf } from "../support/html";
import { type RunningServer, startServer } from "../support/server";

/** The manager's Delete asks for the id, then says it is done; 403 pages are valid HTML. */
describe("the tenant manager page", () => {
  let database: TestDatabase;
  let server: RunningServer;
  let chief = "";
  let editor = "";

  beforeAll(async () => {
    database = await createTestDatabase("sqlite");
    await migrateToLatest(database.db);
    await seedTenants(database.db);
    await createTenant(database.db, "test", {
      id: "acme",
      name: "Acme",
      domain: "acme.example.com",
    });
    server = await startServer({
      databaseUrl: database.url,
      env: { SESSION_SECRET: "tenant-manager-page-secret-0123456789" },
    });
    await createStaffUser(database.db, { email: "chief@example.com", role: "super_admin" });
    await createStaffUser(database.db, { email: "editor@example.com", products: { main: true } });
    chief = await signIn(server.url, "chief@example.com");
    editor = await signIn(server.url, "editor@example.com");
  });

  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  const remove = (confirm: string) =>
    fetch(`${server.url}/admin/tenants/acme`, {
      method: "POST",
      body: new URLSearchParams({ intent: "delete", confirm }),
      headers: { cookie: chief, origin: server.url },
      redirect: "manual",
    });
  const acme = () =>
    database.db.selectFrom("tenants").select("id").where("id", "=", "acme").executeTakeFirst();

  it("keeps the tenant's MailerLite webhook secret: set, shown only as set, replaced, removed", async () => {
    const post = (fields: Record<string, string>) =>
      fetch(`${server.url}/admin/tenants/main`, {
        method: "POST",
        body: new URLSearchParams(fields),
        headers: { cookie: chief, origin: server.url },
        redirect: "manual",
      });
    const secretRow = async () => {
      const row = await database.db
        .selectFrom("webhook_secrets")
        .select(["secret", "created_by"])
        .where("tenant_id", "=", "main")
        .executeTakeFirst();
      if (!row) return undefined;
      // Sealed at rest (decision 027): opened with the key this process shares with the server.
      expect(row.secret).toMatch(/^v1\./);
      return { ...row, secret: getSecretBox().open(row.secret, webhookSecretAt("main")) };
    };
    const page = async () =>
      (await fetch(`${server.url}/admin/tenants/main`, { headers: { cookie: chief } })).text();

    expect(textOf(await page())).toContain(
      "No signing secret yet: the webhook refuses every call.",
    );
    expect(textOf(await page())).toContain("/api/webhooks/mailerlite/main");
    // Too short, or a form shown for another tenant: refused, nothing stored.
    expect((await post({ intent: "webhook:save", tenantId: "main", secret: "short" })).status).toBe(
      400,
    );
    const other = await post({
      intent: "webhook:save",
      tenantId: "keydiscovery",
      secret: "x".repeat(20),
    });
    expect(other.status).toBe(400);
    expect(await secretRow()).toBeUndefined();

    const saved = await post({
      intent: "webhook:save",
      tenantId: "main",
      secret: "whsec-first-0123",
    });
    expect(saved.status).toBe(302);
    expect(await secretRow()).toEqual({
      secret: "whsec-first-0123",
      created_by: "chief@example.com",
    });
    const html = await page();
    expect(textOf(html)).toMatch(/Signing secret set .* by chief@example\.com\./);
    expect(html).not.toContain("whsec-first-0123");
    // Nor is it part of the tenant's API answer.
    const api = await fetch(`${server.url}/api/tenants/main`, { headers: { cookie: chief } });
    expect(await api.text()).not.toContain("whsec-first-0123");

    await post({ intent: "webhook:save", tenantId: "main", secret: "whsec-second-0123" });
    expect((await secretRow())?.secret).toBe("whsec-second-0123");
    expect((await post({ intent: "webhook:remove", tenantId: "main" })).status).toBe(302);
    expect(await secretRow()).toBeUndefined();
    // An editor is not a tenant manager.
    const refused = await fetch(`${server.url}/admin/tenants/main`, {
      method: "POST",
      body: new URLSearchParams({
        intent: "webhook:save",
        tenantId: "main",
        secret: "x".repeat(20),
      }),
      headers: { cookie: editor, origin: server.url },
      redirect: "manual",
    });
    expect(refused.status).toBe(302);
    expect(refused.headers.get("location")).toBe("/unauthorized");
    expect(await secretRow()).toBeUndefined();
  });

  it("deletes only when the id is typed, then says so on the list", async () => {
    const unconfirmed = await remove("acm");
    expect(unconfirmed.status).toBe(400);
    expect(textOf(await unconfirmed.text())).toContain("Type acme to confirm the deletion.");
    expect(await acme()).toBeDefined();

    const confirmed = await remove(" acme ");
    expect(confirmed.status).toBe(302);
    expect(confirmed.headers.get("location")).toBe("/admin/tenants?deleted=acme");
    expect(await acme()).toBeUndefined();
    const list = await fetch(`${server.url}/admin/tenants?deleted=acme`, {
      headers: { cookie: chief },
    });
    expect(textOf(await list.text())).toContain("Tenant acme deleted.");
  });

  it("answers a forbidden staff page with a 403 page whose form is not inside a paragraph", async () => {
    const response = await fetch(`${server.url}/admin/api-tokens`, { headers: { cookie: editor } });
    expect(response.status).toBe(403);
    const html = await response.text();
    expect(textOf(html)).toMatch(
      /signed in as editor@example\.com\s*, which does not have access to this page/,
    );
    expect(html).toContain("Sign in as someone else");
    // A <form> inside a <p> is invalid HTML: the browser splits it and hydration fails.
    // (The inlined stylesheet's `syntax:"<percentage>"` is not markup: only the body is read.)
    const body = html.slice(html.indexOf("<body"));
    expect(body).not.toMatch(/<p[^>]*>(?:(?!<\/p>).)*<form/s);
  });
});
