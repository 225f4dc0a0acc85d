import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateToLatest } from "../../server/db/migrate";
import { crossTenant } from "../../server/db/tenant-guard";
import { seedTenants } from "../../server/tenants/seed";
import { callApi, sessionTokenOf } from "../support/api";
import { createStaffUser, signIn } from "../support/auth";
import { createTestDatabase, type TestDatabase } from "../support/database";
import { type RunningServer, startServer } from "../support/server";

/*
 * Decision 057 through the running server (SQLite; the counting SQL runs on both databases in
 * server/tenants/limits.test.ts): super admins alone read and set a tenant's limits, by the API and
 * on the tenant page; bad limits change nothing; a tenant's API requests a minute answer 429 naming
 * the limit; staff see their usage on the dashboard; /metrics shows usage and limits per tenant.
 */

const ADMIN = "limits-admin@example.com";
const EDITOR = "limits-editor@example.com";
const SECRET = "limits-session-secret-limits-session-secret";
const METRICS_TOKEN = "limits-metrics-token-0123456789";

describe("tenant limits through the server", () => {
  let database: TestDatabase;
  let server: RunningServer;
  const cookies: Record<string, string> = {};
  const tokens: Record<string, string> = {};

  const limitsOf = async (tenantId: string) =>
    crossTenant(database.db)
      .selectFrom("tenant_limits")
      .selectAll()
      .where("tenant_id", "=", tenantId)
      .executeTakeFirst();
  const patch = (tenantId: string, json: unknown, token = tokens.admin) =>
    callApi(server.url, `/api/tenants/${tenantId}/limits`, { method: "PATCH", json, token });

  beforeAll(async () => {
    database = await createTestDatabase("sqlite");
    await migrateToLatest(database.db);
    await seedTenants(database.db);
    server = await startServer({
      databaseUrl: database.url,
      env: { SESSION_SECRET: SECRET, METRICS_TOKEN },
    });
    await createStaffUser(database.db, { email: ADMIN, role: "super_admin" });
    await createStaffUser(database.db, { email: EDITOR, products: { main: true } });
    cookies.admin = await signIn(server.url, ADMIN);
    cookies.editor = await signIn(server.url, EDITOR);
    tokens.admin = sessionTokenOf(cookies.admin);
    tokens.editor = sessionTokenOf(cookies.editor);
  });

  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  it("lets super admins read and change a tenant's limits; null goes back to the default", async () => {
    const read = await callApi(server.url, "/api/tenants/main/limits", { token: tokens.admin });
    expect(read.status, read.text).toBe(200);
    const body = JSON.parse(read.text) as {
      limits: { limits: Record<string, unknown>; usage: Record<string, number> };
    };
    expect(body.limits.limits.testSendsPerDay).toBe(100);
    expect(body.limits.limits.subscribers).toBe("unlimited");
    const saved = await patch("main", { subscribers: 1000, storageBytes: "unlimited" });
    expect(saved.status, saved.text).toBe(200);
    expect(JSON.parse(saved.text).limits).toMatchObject({
      tenantId: "main",
      limits: { subscribers: 1000, storageBytes: "unlimited", testSendsPerDay: 100 },
      own: { subscribers: 1000, storageBytes: "unlimited", testSendsPerDay: null },
    });
    expect(Number((await limitsOf("main"))?.subscribers)).toBe(1000);
    const reset = await patch("main", { storageBytes: null });
    expect(JSON.parse(reset.text).limits.own.storageBytes).toBeNull();
  });

  it("refuses everyone else, another tenant's staff included, and unknown tenants", async () => {
    const before = await limitsOf("keydiscovery");
    // An editor of main, on main and on another tenant; anonymous; a tenant that is not there.
    expect((await patch("main", { subscribers: 5 }, tokens.editor)).status).toBe(403);
    expect((await patch("keydiscovery", { subscribers: 5 }, tokens.editor)).status).toBe(403);
    const editorRead = await callApi(server.url, "/api/tenants/main/limits", {
      token: tokens.editor,
    });
    expect(editorRead.status).toBe(403);
    const anonymous = await callApi(server.url, "/api/tenants/main/limits", {
      method: "PATCH",
      json: { subscribers: 5 },
    });
    expect(anonymous.status).toBe(401);
    const missing = await patch("no-such-tenant", { subscribers: 5 });
    expect(missing.status).toBe(404);
    expect(await limitsOf("keydiscovery")).toEqual(before);
    expect(await limitsOf("no-such-tenant")).toBeUndefined();
  });

  it("refuses bad limits whole, naming the field, and changes nothing", async () => {
    const before = await limitsOf("main");
    for (const bad of [
      { subscribers: -1 },
      { subscribers: "lots" },
      { subscribers: 2.5 },
      { subscribers: 10 ** 18 },
      { testSendsPerDay: 5, subscribers: -1 },
      { storage: 5 },
    ]) {
      const response = await patch("main", bad);
      expect(response.status, JSON.stringify(bad)).toBe(400);
      expect(response.body.error?.status).toBe("INVALID_ARGUMENT");
    }
    const text = await callApi(server.url, "/api/tenants/main/limits", {
      method: "PATCH",
      raw: "{not json",
      token: tokens.admin,
    });
    expect(text.status).toBe(400);
    expect(await limitsOf("main")).toEqual(before);
  });

  it("saves limits from the tenant page's Limits section, and refuses a bad one there", async () => {
    const page = await fetch(`${server.url}/admin/tenants/keydiscovery`, {
      headers: { cookie: cookies.admin as string },
    });
    const html = await page.text();
    expect(html).toContain('id="limits"');
    expect(html).toContain("Test emails today");
    const post = (fields: Record<string, string>) =>
      fetch(`${server.url}/admin/tenants/keydiscovery`, {
        method: "POST",
        body: new URLSearchParams({ intent: "limits:save", tenantId: "keydiscovery", ...fields }),
        headers: { cookie: cookies.admin as string, origin: server.url },
        redirect: "manual",
      });
    const refused = await post({ subscribers: "-4", testSendsPerDay: "20" });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain("The limits were not saved");
    expect(await limitsOf("keydiscovery")).toBeUndefined();
    const saved = await post({ subscribers: "2,500", testSendsPerDay: "unlimited" });
    expect(saved.status).toBe(302);
    const row = await limitsOf("keydiscovery");
    expect(Number(row?.subscribers)).toBe(2500);
    expect(Number(row?.test_sends_per_day)).toBe(-1);
    expect(row?.storage_bytes).toBeNull();
    // An editor cannot.
    const editor = await fetch(`${server.url}/admin/tenants/keydiscovery`, {
      method: "POST",
      body: new URLSearchParams({
        intent: "limits:save",
        tenantId: "keydiscovery",
        subscribers: "1",
      }),
      headers: { cookie: cookies.editor as string, origin: server.url },
      redirect: "manual",
    });
    expect(editor.status).toBe(302);
    expect(editor.headers.get("location")).toBe("/unauthorized");
    expect(Number((await limitsOf("keydiscovery"))?.subscribers)).toBe(2500);
  });

  it("answers 429 naming the limit past a tenant's API requests a minute, others unaffected", async () => {
    expect((await patch("keydiscovery", { apiRequestsPerMinute: 3 })).status).toBe(200);
    const call = (subdomain: string) =>
      callApi(server.url, `/api/tenants/${subdomain}/email-groups?subdomain=${subdomain}`);
    const statuses: number[] = [];
    let refusal = "";
    for (let i = 0; i < 4; i++) {
      const response = await call("keydiscovery");
      statuses.push(response.status);
      if (response.status === 429) refusal = response.body.error?.message ?? "";
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(refusal).toBe("This tenant's limit of 3 API requests a minute is reached.");
    // main has no such limit: its site's API answers.
    expect((await call("main")).status).toBe(200);
    expect((await patch("keydiscovery", { apiRequestsPerMinute: null })).status).toBe(200);
  });

  it("shows the tenant's staff their usage against each limit on the dashboard", async () => {
    expect((await patch("main", { subscribers: 1000, testSendsPerDay: 0 })).status).toBe(200);
    const subscribers = await crossTenant(database.db)
      .selectFrom("subscribers")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("tenant_id", "=", "main")
      .executeTakeFirstOrThrow();
    const response = await fetch(`${server.url}/admin/dashboard`, {
      headers: { cookie: cookies.editor as string },
    });
    expect(response.status).toBe(200);
    const html = await response.text();
    const usage = html.slice(html.indexOf('data-testid="dashboard-usage"'));
    expect(usage).toContain("Usage and limits");
    expect(usage).toContain(`${Number(subscribers.n).toLocaleString("en-US")}<!-- --> of 1,000`);
    expect(usage).toMatch(/Test emails today[\s\S]*0[\s\S]*of 0[\s\S]*limit reached/);
  });

  it("exposes every tenant's usage and limits in /metrics", async () => {
    const response = await fetch(`${server.url}/metrics`, {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain("# TYPE herald_tenant_usage gauge");
    expect(text).toContain('herald_tenant_limit{tenant="main",limit="subscribers"} 1000');
    expect(text).toContain('herald_tenant_limit{tenant="main",limit="storage_bytes"} -1');
    expect(text).toContain('herald_tenant_limit{tenant="keydiscovery",limit="subscribers"} 2500');
    expect(text).toMatch(/herald_tenant_usage\{tenant="main",limit="subscribers"\} \d+/);
    expect(text).toMatch(
      /herald_tenant_usage\{tenant="keydiscovery",limit="api_requests_per_minute"\} \d+/,
    );
  });
});
