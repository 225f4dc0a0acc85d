import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateToLatest } from "../../server/db/migrate";
import { crossTenant } from "../../server/db/tenant-guard";
import { createField } from "../../server/subscribers/fields";
import { seedTenants } from "../../server/tenants/seed";
import { createStaffUser, signIn, TEST_PASSWORD } from "../support/auth";
import { createTestDatabase, type TestDatabase, testDialects } from "../support/database";
import { textOf } from "../support/html";
import { type RunningServer, startServer } from "../support/server";

/*
 * Issue 32, findings 4, 5 and 6: a body that is not a form, text PostgreSQL cannot store, and a
 * segment comparing a number with "abc" each answered 500. Now: 415 or 400 in the tenant's layout
 * (or SPEC §8's envelope on the APIs), nothing stored, and no error in the server's log.
 */
describe.each(testDialects())("no input gives a 5xx (%s)", (dialect) => {
  let database: TestDatabase;
  let server: RunningServer;
  let admin = "";
  let clients = 0;

  const send = (path: string, init: RequestInit & { headers?: Record<string, string> } = {}) => {
    clients += 1;
    return fetch(`${server.url}${path}`, {
      redirect: "manual",
      ...init,
      headers: { "x-forwarded-for": `198.18.7.${clients % 250}`, ...init.headers },
    });
  };
  const contactMessages = async () =>
    (await crossTenant(database.db).selectFrom("contact_messages").select("id").execute()).length;
  const segmentRows = () =>
    crossTenant(database.db).selectFrom("segments").select(["id", "rule"]).execute();

  /** Error-level lines and stack traces the server wrote. */
  const loggedErrors = () =>
    server
      .output()
      .split("\n")
      .filter((line) => /"level":(50|60)|^\s+at |^\w*Error\b/.test(line));

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    await migrateToLatest(database.db);
    await seedTenants(database.db);
    await createStaffUser(database.db, { email: "root@example.com", role: "super_admin" });
    server = await startServer({ databaseUrl: database.url });
    admin = await signIn(server.url, "root@example.com");
  });

  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  const CONTACT = { name: "Ada", email: "ada@example.com", message: "Hello" };

  describe("finding 4: a body that is not a form", () => {
    it.each([
      ["JSON", "application/json", JSON.stringify(CONTACT), 415],
      ["text/plain", "text/plain", "name=Ada", 415],
      ["XML", "application/xml", "<contact><name>Ada</name></contact>", 415],
      ["no Content-Type", undefined, "name=Ada", 415],
      ["broken multipart", "multipart/form-data; boundary=x", "--x\r\nContent-Dis", 400],
      ["multipart without a boundary", "multipart/form-data", "--x", 400],
    ] as const)(
      "%s to a page's action (%s): refused in the tenant's layout",
      async (_name, type, body, status) => {
        const before = await contactMessages();
        const response = await send("/contact", {
          method: "POST",
          headers: type ? { "content-type": type } : {},
          body: new TextEncoder().encode(body),
        });
        expect(response.status).toBe(status);
        const html = await response.text();
        expect(html).toMatch(/<html[^>]*data-tenant="main"/);
        expect(html).toContain("<footer");
        expect(textOf(html)).toContain("We could not read your request");
        expect(await contactMessages()).toBe(before);
      },
    );

    it("a staff form answers the same, signed in", async () => {
      const response = await send("/admin/account", {
        method: "POST",
        headers: { cookie: admin, "content-type": "application/json" },
        body: "{}",
      });
      expect(response.status).toBe(415);
      expect(textOf(await response.text())).toContain("We could not read your request");
    });

    it("forms still work, and the JSON APIs still take JSON", async () => {
      const before = await contactMessages();
      const posted = await send("/contact", { method: "POST", body: new URLSearchParams(CONTACT) });
      expect(posted.status).toBe(302);
      expect(await contactMessages()).toBe(before + 1);
      const api = await send("/api/tenants/main/branding", {
        method: "PATCH",
        headers: { cookie: admin, "content-type": "application/json" },
        body: JSON.stringify({ companyName: "Still JSON" }),
      });
      expect(api.status).toBe(200);
      const notJson = await send("/api/tenants/main/branding", {
        method: "PATCH",
        headers: { cookie: admin, "content-type": "text/plain" },
        body: "description=x",
      });
      expect(notJson.status).toBe(400);
      expect(await notJson.json()).toMatchObject({ error: { status: "INVALID_ARGUMENT" } });
    });
  });

  describe("finding 5: NUL and lone surrogates", () => {
    it("NUL in a page's form field: 400, nothing stored", async () => {
      const before = await contactMessages();
      const contact = await send("/contact", {
        method: "POST",
        body: new URLSearchParams({ ...CONTACT, message: "a\u0000b" }),
      });
      expect(contact.status).toBe(400);
      expect(textOf(await contact.text())).toContain("NUL");
      expect(await contactMessages()).toBe(before);
    });

    it("NUL in the sign-in form: 400, not 500", async () => {
      const response = await send("/admin/login", {
        method: "POST",
        body: new URLSearchParams({ email: "root\u0000@example.com", password: TEST_PASSWORD }),
      });
      expect(response.status).toBe(400);
      expect(textOf(await response.text())).toContain("NUL");
    });

    it("NUL in a path parameter or the query: 400", async () => {
      expect((await send("/admin/tenants/a%00b", { headers: { cookie: admin } })).status).toBe(400);
      expect(
        (await send("/admin/subscribers?q=a%00b", { headers: { cookie: admin } })).status,
      ).toBe(400);
      const api = await send("/api/tenants/a%00b");
      expect(api.status).toBe(400);
      expect(await api.json()).toMatchObject({ error: { status: "INVALID_ARGUMENT" } });
      const webhook = await send("/api/webhooks/mailerlite/a%00b", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      expect(webhook.status).toBe(400);
    });

    it.each([
      ["NUL", '{"companyName":"a\\u0000b"}'],
      ["a lone surrogate", '{"companyName":"a\\ud800b"}'],
      ["NUL in a key", '{"a\\u0000":"b"}'],
    ])(
      "%s in a JSON API's body: 400 in SPEC §8's envelope, nothing changed",
      async (_name, body) => {
        const response = await send("/api/tenants/main/branding", {
          method: "PATCH",
          headers: { cookie: admin, "content-type": "application/json" },
          body,
        });
        expect(response.status).toBe(400);
        expect(await response.json()).toMatchObject({
          error: { status: "INVALID_ARGUMENT", message: expect.stringContaining("NUL") },
        });
        const tenant = await crossTenant(database.db)
          .selectFrom("tenants")
          .select("config")
          .where("id", "=", "main")
          .executeTakeFirstOrThrow();
        expect(tenant.config).not.toContain("\\u0000");
        expect(tenant.config).not.toContain("\\ud800");
      },
    );
  });

  describe("finding 6: a segment comparing a number with text", () => {
    const segmentForm = (value: string) =>
      new URLSearchParams({
        name: `Over ${value}`,
        "field.0.key": "age",
        "field.0.op": "greater",
        "field.0.value": value,
      });

    beforeAll(async () => {
      await createField(database.db, "main", { label: "Age", type: "number", choices: [] });
    });

    it('refuses "greater than abc" on a number field, and saves numbers as numbers', async () => {
      const before = (await segmentRows()).length;
      const refused = await send("/admin/segments/new", {
        method: "POST",
        headers: { cookie: admin },
        body: segmentForm("abc"),
      });
      expect(refused.status).toBe(400);
      expect(textOf(await refused.text())).toContain("Compare Age with a number");
      expect((await segmentRows()).length).toBe(before);

      const counted = await send("/admin/segments/new", {
        method: "POST",
        headers: { cookie: admin },
        body: new URLSearchParams([...segmentForm("abc"), ["intent", "count"]]),
      });
      expect(counted.status).toBe(400);

      const saved = await send("/admin/segments/new", {
        method: "POST",
        headers: { cookie: admin },
        body: segmentForm("1,000"),
      });
      expect(saved.status).toBe(303);
      const rules = (await segmentRows()).map((row) => JSON.parse(row.rule));
      expect(rules.at(-1).fields).toEqual([{ key: "age", op: "greater", value: "1000" }]);
    });

    it("shows a bad rule already stored as invalid, where the pages answered 500", async () => {
      const now = new Date().toISOString();
      const { id } = await database.db
        .insertInto("segments")
        .values({
          tenant_id: "main",
          name: "Saved before the check",
          rule: JSON.stringify({
            lists: [],
            statuses: [],
            fields: [{ key: "age", op: "greater", value: "abc" }],
          }),
          created_at: now,
          updated_at: now,
        })
        .returning("id")
        .executeTakeFirstOrThrow();
      const list = await send("/admin/segments", { headers: { cookie: admin } });
      expect(list.status).toBe(200);
      expect(textOf(await list.text())).toContain("Invalid rule: Compare Age with a number");
      const page = await send(`/admin/segments/${id}`, { headers: { cookie: admin } });
      expect(page.status).toBe(200);
      expect(textOf(await page.text())).toContain("This segment's rule cannot be used");
    });
  });

  it("logged no error and no stack trace", () => {
    expect(loggedErrors()).toEqual([]);
  });
});
