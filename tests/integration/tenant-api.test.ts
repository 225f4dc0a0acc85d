import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_MESSAGES } from "../../server/api/errors";
import { createApiToken, revokeApiToken } from "../../server/auth/api-tokens";
import { migrateToLatest } from "../../server/db/migrate";
import { crossTenant } from "../../server/db/tenant-guard";
import { createNewsletter } from "../../server/newsletters/editing";
import { createTenant } from "../../server/tenants/admin";
import { seedTenants } from "../../server/tenants/seed";
import { TOKEN_SCOPES } from "../../shared/schemas/api-tokens";
import { TENANT_MESSAGES } from "../../shared/schemas/tenant";
import {
  type ApiCallOptions,
  type ApiResponse,
  brandPrimaryOf,
  callApi,
  sessionTokenOf,
  type TenantChange,
  type TenantView,
} from "../support/api";
import { createStaffUser, signIn, TEST_PASSWORD } from "../support/auth";
import {
  countRows,
  createTestDatabase,
  type TestDatabase,
  testDialects,
} from "../support/database";
import { textOf } from "../support/html";
import { type RunningServer, startServer } from "../support/server";
import { insertSubscriber } from "../support/subscribers";
import { scaled } from "../support/timing";

const ALL_SCOPES = { scopes: TOKEN_SCOPES };

/**
 * Issue 6: the tenant REST API (SPEC §7) against the real production server, its guard and
 * status mapping (SPEC §8), the audit history, the tenant manager's guard and forms, and the tenant
 * cache across two instances sharing one PostgreSQL database.
 */

const SECRET = "tenant-api-secret-0123456789abcdef0123";
const ADMIN_EMAIL = "chief@example.com";
const EDITOR_EMAIL = "editor@example.com";
const API_TOKEN_NAME = "deploy-script";
const DEFAULT_PRIMARY = "#4a90e2";

/** The PUT body for a tenant: its editable settings, as the API documents them. */
function settingsBody(tenant: TenantView) {
  return {
    name: tenant.name,
    description: tenant.description,
    mailerLiteGroupId: tenant.mailerLiteGroupId ?? "",
    branding: { ...tenant.branding },
    emailTemplates: structuredClone(tenant.emailTemplates),
    features: { ...tenant.features },
    email: { ...tenant.email },
    emailGroups: structuredClone(tenant.emailGroups),
    mailProvider: tenant.mailProvider,
    mailerLiteGroups: { ...tenant.mailerLiteGroups },
  };
}

function expectError(
  response: ApiResponse,
  http: number,
  status: string,
  message?: string | RegExp,
): void {
  expect(response.status, response.text).toBe(http);
  expect(response.contentType).toContain("application/json");
  expect(response.body.error?.status).toBe(status);
  if (typeof message === "string") expect(response.body.error?.message).toBe(message);
  else if (message) expect(response.body.error?.message).toMatch(message);
}

describe.each(testDialects())("the tenant API on %s", (dialect) => {
  let database: TestDatabase;
  let server: RunningServer;
  const cookies = { admin: "", editor: "" };
  const tokens = { adminSession: "", editorSession: "", api: "", revoked: "", editorApi: "" };

  const api = (path: string, options: ApiCallOptions = {}) => callApi(server.url, path, options);
  const asAdmin = (options: ApiCallOptions = {}): ApiCallOptions => ({
    ...options,
    cookie: cookies.admin,
  });
  const page = (path: string, cookie = "") =>
    fetch(`${server.url}${path}`, { headers: { cookie }, redirect: "manual" });
  const postForm = (path: string, fields: Record<string, string>, cookie = cookies.admin) =>
    fetch(`${server.url}${path}`, {
      method: "POST",
      body: new URLSearchParams(fields),
      headers: { cookie, origin: server.url },
      redirect: "manual",
    });

  const tenantRow = (id: string) =>
    database.db.selectFrom("tenants").selectAll().where("id", "=", id).executeTakeFirst();
  const tenantCount = () => countRows(database.db, "tenants");
  const history = async (id: string) =>
    (
      await database.db
        .selectFrom("tenant_changes")
        .selectAll()
        .where("tenant_id", "=", id)
        .orderBy("id", "asc")
        .execute()
    ).map((row) => ({
      action: row.action,
      actor: row.actor,
      changes: JSON.parse(row.changes) as TenantChange[],
    }));
  const allChangesCount = () => countRows(database.db, "tenant_changes");
  /** Everything a failed write must leave as it was: the row and the audit trail. */
  const snapshot = async (id: string) => ({
    row: await tenantRow(id),
    tenants: await tenantCount(),
    changes: await allChangesCount(),
  });
  /** What a save that changes nothing must leave as it was: the tenant as read, its stamp, the trail. */
  const viewSnapshot = async (id: string) => ({
    tenant: await fullTenant(id),
    updatedAt: (await tenantRow(id))?.updated_at,
    changes: await allChangesCount(),
  });
  const fullTenant = async (id: string): Promise<TenantView> => {
    const response = await api(`/api/tenants/${id}`, asAdmin());
    expect(response.status, response.text).toBe(200);
    const tenant = response.body.tenant;
    if (!tenant) throw new Error(`no tenant in ${response.text}`);
    return tenant;
  };
  const publicPrimary = async (id: string) =>
    brandPrimaryOf(await (await page(`/?subdomain=${id}`)).text());
  const create = async (id: string, name = `Tenant ${id}`, domain = `${id}.example.com`) => {
    const response = await api(
      "/api/tenants",
      asAdmin({ method: "POST", json: { id, name, domain } }),
    );
    expect(response.status, response.text).toBe(201);
    return response.body.tenant as TenantView;
  };

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    await migrateToLatest(database.db);
    await seedTenants(database.db);
    server = await startServer({ databaseUrl: database.url, env: { SESSION_SECRET: SECRET } });
    const admin = await createStaffUser(database.db, { email: ADMIN_EMAIL, role: "super_admin" });
    const editor = await createStaffUser(database.db, {
      email: EDITOR_EMAIL,
      products: { main: true },
    });
    cookies.admin = await signIn(server.url, ADMIN_EMAIL);
    cookies.editor = await signIn(server.url, EDITOR_EMAIL);
    tokens.adminSession = sessionTokenOf(cookies.admin);
    tokens.editorSession = sessionTokenOf(cookies.editor);
    tokens.api = (await createApiToken(database.db, admin, API_TOKEN_NAME, ALL_SCOPES)).token;
    const revoked = await createApiToken(database.db, admin, "old-script", ALL_SCOPES);
    expect(await revokeApiToken(database.db, revoked.id)).toBe(true);
    tokens.revoked = revoked.token;
    tokens.editorApi = (
      await createApiToken(database.db, editor, "editor-script", ALL_SCOPES)
    ).token;
  });

  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  describe("POST /api/tenants", () => {
    it("creates a tenant that GET, the list, the domain look-up and its public site show", async () => {
      const response = await api("/api/tenants", {
        method: "POST",
        token: tokens.api,
        json: {
          id: "acme",
          name: "Acme Legal",
          domain: "News.Acme.example",
          description: "Weekly notes",
        },
      });
      expect(response.status, response.text).toBe(201);
      const tenant = response.body.tenant;
      expect(tenant).toMatchObject({
        id: "acme",
        name: "Acme Legal",
        domain: "news.acme.example",
        description: "Weekly notes",
        branding: { primaryColor: DEFAULT_PRIMARY, companyName: "Acme Legal" },
      });
      expect(tenant?.emailTemplates.welcomeEmail.subject).toBe("Welcome to our newsletter");
      expect(typeof tenant?.createdAt).toBe("string");

      const row = await tenantRow("acme");
      expect(row).toMatchObject({ name: "Acme Legal", domain: "news.acme.example" });

      const list = await api("/api/tenants", asAdmin());
      expect(list.status).toBe(200);
      expect(list.body.tenants).toContainEqual(
        expect.objectContaining({ id: "acme", name: "Acme Legal", domain: "news.acme.example" }),
      );

      const byDomain = await api("/api/tenants/domain/NEWS.acme.example");
      expect(byDomain.status, byDomain.text).toBe(200);
      expect(byDomain.body.tenant?.id).toBe("acme");
      expect(byDomain.body.tenant).not.toHaveProperty("emailTemplates");

      const html = await (await page("/?subdomain=acme")).text();
      expect(html).toContain('data-tenant="acme"');
      expect(brandPrimaryOf(html)).toBe(DEFAULT_PRIMARY);

      const records = await history("acme");
      expect(records).toHaveLength(1);
      expect(records[0]?.action).toBe("created");
      expect(records[0]?.actor).toBe(`${ADMIN_EMAIL} (API token "${API_TOKEN_NAME}")`);
      expect(records[0]?.changes).toContainEqual({
        field: "name",
        before: null,
        after: "Acme Legal",
      });
      expect(records[0]?.changes).toContainEqual({
        field: "branding.primaryColor",
        before: null,
        after: DEFAULT_PRIMARY,
      });
    });

    it("refuses each invalid field with INVALID_ARGUMENT and its message, creating nothing", async () => {
      const valid = { id: "valid-id", name: "Valid", domain: "valid.example.com" };
      const cases: [Record<string, unknown>, string, string][] = [
        [
          { ...valid, id: "Bad_ID!" },
          "id",
          "Tenant id may only use lower-case letters, digits and hyphens",
        ],
        [{ ...valid, id: "a".repeat(41) }, "id", "Tenant id must be at most 40 characters"],
        [{ ...valid, name: "   " }, "name", "Name is required"],
        [{ ...valid, name: "n".repeat(101) }, "name", "Name must be at most 100 characters"],
        [{ ...valid, name: 42 }, "name", "Name must be text"],
        [
          { ...valid, domain: "https://x.com/path" },
          "domain",
          "Domain must be a host name such as news.example.com (no https:// or path)",
        ],
        [{ id: valid.id, name: valid.name }, "domain", "Domain is required"],
        [
          {
            ...valid,
            features: {
              allowCustomSubscription: "yes",
              enableDarkMode: false,
              showBranding: true,
              doubleOptIn: false,
            },
          },
          "features.allowCustomSubscription",
          "allowCustomSubscription must be true or false",
        ],
      ];
      const before = await snapshot(valid.id);
      for (const [json, field, message] of cases) {
        const response = await api("/api/tenants", asAdmin({ method: "POST", json }));
        expectError(response, 400, "INVALID_ARGUMENT");
        expect(response.body.error?.fields?.[field], JSON.stringify(json)).toContain(message);
      }
      const notJson = await api("/api/tenants", asAdmin({ method: "POST", raw: "{not json" }));
      expectError(notJson, 400, "INVALID_ARGUMENT", API_MESSAGES.notJson);
      const notObject = await api("/api/tenants", asAdmin({ method: "POST", raw: "null" }));
      expectError(notObject, 400, "INVALID_ARGUMENT");
      expect(Object.keys(notObject.body.error?.fields ?? {})).not.toHaveLength(0);
      expect(await snapshot(valid.id)).toEqual(before);
    });

    it("answers a taken id or domain with 409 ABORTED", async () => {
      await create("taken");
      const before = await snapshot("other");
      const sameId = await api(
        "/api/tenants",
        asAdmin({
          method: "POST",
          json: { id: "main", name: "Again", domain: "again.example.com" },
        }),
      );
      expectError(sameId, 409, "ABORTED", TENANT_MESSAGES.idTaken);
      const sameDomain = await api(
        "/api/tenants",
        asAdmin({
          method: "POST",
          json: { id: "other", name: "Other", domain: "TAKEN.example.com" },
        }),
      );
      expectError(sameDomain, 409, "ABORTED", TENANT_MESSAGES.domainTaken);
      expect(await snapshot("other")).toEqual(before);
      expect((await tenantRow("main"))?.name).toBe("KeyDiscovery");
    });

    it("lets only super admins write, by cookie, session token or live API token", async () => {
      const body = (id: string) => ({ id, name: `Name ${id}`, domain: `${id}.example.com` });
      const before = await snapshot("nope");
      const refusals: [ApiCallOptions, number, string][] = [
        [{}, 401, "UNAUTHENTICATED"],
        [{ cookie: cookies.editor }, 403, "PERMISSION_DENIED"],
        [{ token: tokens.editorSession }, 403, "PERMISSION_DENIED"],
        [{ token: tokens.editorApi }, 403, "PERMISSION_DENIED"],
        [{ token: "garbage" }, 401, "UNAUTHENTICATED"],
        [{ token: "hrld_not-a-real-token" }, 401, "UNAUTHENTICATED"],
        // A bad x-auth-token is judged alone, even next to a valid super admin cookie.
        [{ token: "garbage", cookie: cookies.admin }, 401, "UNAUTHENTICATED"],
        [{ token: tokens.revoked }, 401, "UNAUTHENTICATED"],
      ];
      for (const [options, http, status] of refusals) {
        const response = await api("/api/tenants", {
          ...options,
          method: "POST",
          json: body("nope"),
        });
        expectError(response, http, status);
        if (http === 401) {
          expect(response.body.error?.message).toBe(API_MESSAGES.unauthenticated);
          expect(response.headers.get("www-authenticate")).toBe("x-auth-token");
        } else {
          expect(response.body.error?.message).toBe(API_MESSAGES.superAdminOnly);
        }
      }
      expect(await snapshot("nope")).toEqual(before);

      // A browser riding the admin's cookie from another site is refused before the route runs.
      const crossSite = await api("/api/tenants", {
        method: "POST",
        cookie: cookies.admin,
        headers: { origin: "https://evil.example" },
        json: body("nope"),
      });
      expect(crossSite.status).toBe(403);
      expect(await tenantRow("nope")).toBeUndefined();

      const bySessionToken = await api("/api/tenants", {
        method: "POST",
        token: tokens.adminSession,
        json: body("by-session-token"),
      });
      expect(bySessionToken.status, bySessionToken.text).toBe(201);
      const byCookie = await api("/api/tenants", {
        method: "POST",
        cookie: cookies.admin,
        headers: { origin: server.url },
        json: body("by-cookie"),
      });
      expect(byCookie.status, byCookie.text).toBe(201);
      expect((await history("by-session-token"))[0]?.actor).toBe(ADMIN_EMAIL);
      expect((await history("by-cookie"))[0]?.actor).toBe(ADMIN_EMAIL);
    });
  });

  describe("reading", () => {
    it("GET /api/tenants needs a caller and lists what the caller may manage", async () => {
      expectError(await api("/api/tenants"), 401, "UNAUTHENTICATED");
      expectError(await api("/api/tenants", { token: "garbage" }), 401, "UNAUTHENTICATED");
      const all = await api("/api/tenants", { token: tokens.api });
      expect(all.status).toBe(200);
      const ids = all.body.tenants?.map((tenant) => tenant.id) ?? [];
      expect(ids).toEqual(expect.arrayContaining(["main", "keydiscovery", "acme"]));
      const editor = await api("/api/tenants", { cookie: cookies.editor });
      expect(editor.status).toBe(200);
      expect(editor.body.tenants?.map((tenant) => tenant.id)).toEqual(["main"]);
    });

    it("GET /api/tenants/{id} gives anyone the public part and staff who manage it all of it", async () => {
      const anonymous = await api("/api/tenants/keydiscovery");
      expect(anonymous.status).toBe(200);
      expect(Object.keys(anonymous.body.tenant ?? {}).sort()).toEqual(
        ["branding", "description", "domain", "features", "id", "name"].sort(),
      );
      expect(anonymous.body.tenant?.branding.primaryColor).toBe("#1b365d");
      expect(anonymous.text).not.toContain("newsletter@keydiscovery.com");

      const admin = await api("/api/tenants/keydiscovery", { token: tokens.api });
      expect(admin.body.tenant?.email.senderEmail).toBe("newsletter@keydiscovery.com");
      expect(admin.body.tenant?.emailTemplates.welcomeEmail.subject).toBeTruthy();
      expect(admin.body.tenant?.emailGroups.default).toBe("newsletter");

      // The editor manages main, not keydiscovery.
      const editorOther = await api("/api/tenants/keydiscovery", { cookie: cookies.editor });
      expect(editorOther.body.tenant).not.toHaveProperty("emailTemplates");
      const editorOwn = await api("/api/tenants/main", { token: tokens.editorSession });
      expect(editorOwn.body.tenant).toHaveProperty("emailTemplates");

      expectError(await api("/api/tenants/main", { token: "garbage" }), 401, "UNAUTHENTICATED");
    });

    it("GET /api/tenants/{id}/email-groups lists the tenant's lists", async () => {
      const response = await api("/api/tenants/main/email-groups");
      expect(response.status, response.text).toBe(200);
      expect(response.body.default).toBe("newsletter");
      const keys = response.body.groups?.map((group) => group.key) ?? [];
      expect(keys.sort()).toEqual([...(await fullTenant("main")).emailGroups.groups].sort());
      for (const group of response.body.groups ?? []) {
        expect(group.id).toMatch(/^\d+$/);
        expect(group.name).toBeTruthy();
      }
    });

    it("answers an unknown tenant with 404 NOT_FOUND on every route", async () => {
      const body = settingsBody(await fullTenant("main"));
      const calls: [string, ApiCallOptions][] = [
        ["/api/tenants/no-such", {}],
        ["/api/tenants/no-such/email-groups", {}],
        ["/api/tenants/domain/no-such.example.com", {}],
        ["/api/tenants/no-such", asAdmin({ method: "PUT", json: body })],
        ["/api/tenants/no-such", asAdmin({ method: "DELETE" })],
        [
          "/api/tenants/no-such/branding",
          asAdmin({ method: "PATCH", json: { primaryColor: "#123456" } }),
        ],
        [
          "/api/tenants/no-such/email-templates",
          asAdmin({ method: "PATCH", json: { welcomeEmail: { subject: "Hi" } } }),
        ],
      ];
      for (const [path, options] of calls) {
        const response = await api(path, options);
        expectError(response, 404, "NOT_FOUND", TENANT_MESSAGES.notFound);
      }
      expect(await tenantRow("no-such")).toBeUndefined();
    });

    it("answers a wrong method with 405 and the allowed ones", async () => {
      const calls: [string, string, string][] = [
        ["/api/tenants", "PATCH", "GET, POST"],
        ["/api/tenants/main", "POST", "GET, PUT, DELETE"],
        ["/api/tenants/main/branding", "GET", "PATCH"],
        ["/api/tenants/main/branding", "PUT", "PATCH"],
        ["/api/tenants/main/email-templates", "POST", "PATCH"],
        ["/api/tenants/main/email-groups", "POST", "GET"],
        ["/api/tenants/domain/x.example.com", "DELETE", "GET"],
        ["/api/auth/verify", "POST", "GET"],
      ];
      for (const [path, method, allow] of calls) {
        const response = await api(path, asAdmin({ method }));
        expect(response.status, `${method} ${path}`).toBe(405);
        expect(response.headers.get("allow")).toBe(allow);
        expect(response.body.error?.message).toBeTruthy();
      }
    });
  });

  describe("PUT /api/tenants/{id}", () => {
    beforeAll(async () => {
      await create("gamma", "Gamma", "gamma.example.com");
    });

    it("replaces the settings: GET shows them, the public site wears the colour at once, history has the fields", async () => {
      // Both renders cached before the change: the save must drop them.
      expect(await publicPrimary("gamma")).toBe(DEFAULT_PRIMARY);
      expect(await publicPrimary("gamma")).toBe(DEFAULT_PRIMARY);
      const before = await fullTenant("gamma");
      const changesBefore = (await history("gamma")).length;
      const body = settingsBody(before);
      body.name = "Gamma Two";
      body.branding.primaryColor = "#123456";
      body.emailTemplates.welcomeEmail.subject = "Welcome to Gamma";
      body.features.enableDarkMode = !before.features.enableDarkMode;

      const response = await api("/api/tenants/gamma", asAdmin({ method: "PUT", json: body }));
      expect(response.status, response.text).toBe(200);
      expect(response.body.tenant).toMatchObject({
        id: "gamma",
        name: "Gamma Two",
        domain: "gamma.example.com",
        branding: { primaryColor: "#123456" },
        emailTemplates: { welcomeEmail: { subject: "Welcome to Gamma" } },
        features: { enableDarkMode: !before.features.enableDarkMode },
      });
      const after = await fullTenant("gamma");
      expect(after.branding.primaryColor).toBe("#123456");
      expect(after.name).toBe("Gamma Two");
      expect(after.updatedAt > before.updatedAt).toBe(true);
      expect((await tenantRow("gamma"))?.name).toBe("Gamma Two");

      expect(await publicPrimary("gamma")).toBe("#123456");

      const records = await history("gamma");
      expect(records).toHaveLength(changesBefore + 1);
      const last = records.at(-1);
      expect(last?.action).toBe("updated");
      expect(last?.actor).toBe(ADMIN_EMAIL);
      expect(last?.changes).toEqual(
        expect.arrayContaining([
          { field: "branding.primaryColor", before: DEFAULT_PRIMARY, after: "#123456" },
          { field: "name", before: "Gamma", after: "Gamma Two" },
          {
            field: "emailTemplates.welcomeEmail.subject",
            before: "Welcome to our newsletter",
            after: "Welcome to Gamma",
          },
          {
            field: "features.enableDarkMode",
            before: before.features.enableDarkMode,
            after: !before.features.enableDarkMode,
          },
        ]),
      );
      // Only what changed is recorded.
      const fields = last?.changes.map((change) => change.field) ?? [];
      expect(fields.sort()).toEqual(
        [
          "branding.primaryColor",
          "emailTemplates.welcomeEmail.subject",
          "features.enableDarkMode",
          "name",
        ].sort(),
      );
    });

    it("records nothing for a save that changes nothing, including a GET → PUT round trip", async () => {
      const tenant = await fullTenant("gamma");
      const before = await viewSnapshot("gamma");
      const same = await api(
        "/api/tenants/gamma",
        asAdmin({ method: "PUT", json: settingsBody(tenant) }),
      );
      expect(same.status, same.text).toBe(200);
      // What GET answered, sent straight back (id, domain and the stamps included).
      const roundTrip = await api("/api/tenants/gamma", asAdmin({ method: "PUT", json: tenant }));
      expect(roundTrip.status, roundTrip.text).toBe(200);
      const main = await fullTenant("main");
      const mainBefore = await viewSnapshot("main");
      const mainRoundTrip = await api("/api/tenants/main", asAdmin({ method: "PUT", json: main }));
      expect(mainRoundTrip.status, mainRoundTrip.text).toBe(200);
      expect(await viewSnapshot("gamma")).toEqual(before);
      expect(await viewSnapshot("main")).toEqual(mainBefore);
    });

    it("refuses each invalid field with INVALID_ARGUMENT and its message, changing nothing", async () => {
      const valid = settingsBody(await fullTenant("gamma"));
      const withBranding = (patch: Record<string, unknown>) => ({
        ...valid,
        branding: { ...valid.branding, ...patch },
      });
      const withWelcome = (patch: Record<string, unknown>) => ({
        ...valid,
        emailTemplates: {
          ...valid.emailTemplates,
          welcomeEmail: { ...valid.emailTemplates.welcomeEmail, ...patch },
        },
      });
      const { branding: _dropped, ...withoutBranding } = valid;
      const cases: [unknown, string, string | RegExp][] = [
        [{ ...valid, name: "" }, "name", "Name is required"],
        [{ ...valid, name: "   " }, "name", "Name is required"],
        [{ ...valid, name: 42 }, "name", "Name must be text"],
        [{ ...valid, name: "n".repeat(101) }, "name", "Name must be at most 100 characters"],
        [
          { ...valid, mailerLiteGroupId: 5 },
          "mailerLiteGroupId",
          "Mail-list group id must be text",
        ],
        [
          { ...valid, description: "d".repeat(501) },
          "description",
          "Description must be at most 500 characters",
        ],
        [
          withBranding({ primaryColor: "notacolour" }),
          "branding.primaryColor",
          "Primary colour must be a CSS colour such as #1b365d, rgb(27, 54, 93) or navy",
        ],
        [withBranding({ accentColor: "" }), "branding.accentColor", "Accent colour is required"],
        [
          withBranding({ borderRadius: "10 parsecs" }),
          "branding.borderRadius",
          "Border radius must be a length such as 8px or 0.5rem",
        ],
        [
          withBranding({ fontFamily: "x;}</style><script>alert(1)</script>" }),
          "branding.fontFamily",
          "Font family may only list font names, separated by commas",
        ],
        [
          withBranding({ logoUrl: "javascript:alert(1)" }),
          "branding.logoUrl",
          "Logo URL must start with https:// (or be an uploaded image)",
        ],
        [
          withBranding({ companyName: "c".repeat(101) }),
          "branding.companyName",
          "Company name must be at most 100 characters",
        ],
        [
          withWelcome({ fromEmail: "not-an-email" }),
          "emailTemplates.welcomeEmail.fromEmail",
          "From email: Invalid email format: not-an-email",
        ],
        [
          withWelcome({ subject: "" }),
          "emailTemplates.welcomeEmail.subject",
          "Subject is required",
        ],
        [
          withWelcome({ body: "b".repeat(10_001) }),
          "emailTemplates.welcomeEmail.body",
          "Body must be at most 10000 characters",
        ],
        [
          { ...valid, features: { ...valid.features, showBranding: "yes" } },
          "features.showBranding",
          "showBranding must be true or false",
        ],
        [
          { ...valid, email: { ...valid.email, senderEmail: "nobody" } },
          "email.senderEmail",
          "Sender email: Invalid email format: nobody",
        ],
        [
          { ...valid, emailGroups: { default: "elsewhere", groups: ["newsletter"] } },
          "emailGroups.default",
          "The default list must be one of the lists",
        ],
        [
          { ...valid, domain: "https://x.com/path" },
          "domain",
          "Domain must be a host name such as news.example.com (no https:// or path)",
        ],
        [withoutBranding, "branding", "Branding is required"],
      ];
      const before = await snapshot("gamma");
      for (const [json, field, message] of cases) {
        const response = await api("/api/tenants/gamma", asAdmin({ method: "PUT", json }));
        expectError(response, 400, "INVALID_ARGUMENT");
        const messages = response.body.error?.fields?.[field];
        expect(messages, `${field}: ${response.text}`).toBeDefined();
        if (typeof message === "string") expect(messages).toContain(message);
        else expect(messages?.join(" ")).toMatch(message);
        // The message names the first bad field, so a client can show it as it is.
        expect(response.body.error?.message.startsWith(`${field}: `), response.text).toBe(true);
      }
      const notJson = await api("/api/tenants/gamma", asAdmin({ method: "PUT", raw: "name=x" }));
      expectError(notJson, 400, "INVALID_ARGUMENT", API_MESSAGES.notJson);
      const empty = await api("/api/tenants/gamma", asAdmin({ method: "PUT", raw: "" }));
      expectError(empty, 400, "INVALID_ARGUMENT");
      expect(empty.body.error?.fields).toHaveProperty("name");
      expect(await snapshot("gamma")).toEqual(before);
      expect(await publicPrimary("gamma")).toBe("#123456");
    });

    it("stores HTML and SQL in text fields as text and returns them as they are", async () => {
      const valid = settingsBody(await fullTenant("gamma"));
      const description = `<script>alert("x")</script>'; DROP TABLE tenants; --`;
      const companyName = `<b>Gamma & "Sons"</b>`;
      const subject = `Hello <img src=x onerror=alert(1)> ' OR 1=1 --`;
      const response = await api(
        "/api/tenants/gamma",
        asAdmin({
          method: "PUT",
          json: {
            ...valid,
            description,
            branding: { ...valid.branding, companyName },
            emailTemplates: {
              ...valid.emailTemplates,
              welcomeEmail: { ...valid.emailTemplates.welcomeEmail, subject },
            },
          },
        }),
      );
      expect(response.status, response.text).toBe(200);
      const after = await fullTenant("gamma");
      expect(after.description).toBe(description);
      expect(after.branding.companyName).toBe(companyName);
      expect(after.emailTemplates.welcomeEmail.subject).toBe(subject);
      expect((await tenantRow("gamma"))?.description).toBe(description);
      expect(await tenantCount()).toBeGreaterThan(3);

      // The public site and the manager show it escaped, never as markup.
      const site = await (await page("/?subdomain=gamma")).text();
      expect(site).not.toContain(companyName);
      expect(site).toContain("&lt;b&gt;Gamma &amp; ");
      const manager = await (await page("/admin/tenants/gamma", cookies.admin)).text();
      expect(manager).not.toContain(`<script>alert("x")</script>`);
      expect(manager).toContain("&lt;script&gt;alert(");
      expect(textOf(manager)).toContain("'; DROP TABLE tenants; --");
    });

    it("changes the domain, and refuses one another tenant uses with 409, saving nothing", async () => {
      const valid = settingsBody(await fullTenant("gamma"));
      const before = await snapshot("gamma");
      const clash = await api(
        "/api/tenants/gamma",
        asAdmin({
          method: "PUT",
          json: {
            ...valid,
            domain: "news.acme.example",
            branding: { ...valid.branding, primaryColor: "#ff0000" },
          },
        }),
      );
      expectError(clash, 409, "ABORTED", TENANT_MESSAGES.domainTaken);
      expect(await snapshot("gamma")).toEqual(before);

      const moved = await api(
        "/api/tenants/gamma",
        asAdmin({ method: "PUT", json: { ...valid, domain: "Gamma2.example.com" } }),
      );
      expect(moved.status, moved.text).toBe(200);
      expect(moved.body.tenant?.domain).toBe("gamma2.example.com");
      expect((await api("/api/tenants/domain/gamma2.example.com")).body.tenant?.id).toBe("gamma");
      expectError(await api("/api/tenants/domain/gamma.example.com"), 404, "NOT_FOUND");
      expect((await history("gamma")).at(-1)?.changes).toContainEqual({
        field: "domain",
        before: "gamma.example.com",
        after: "gamma2.example.com",
      });

      // null, as GET shows a tenant without one, takes the domain away.
      const cleared = await api(
        "/api/tenants/gamma",
        asAdmin({ method: "PUT", json: { ...valid, domain: null } }),
      );
      expect(cleared.status, cleared.text).toBe(200);
      expect(cleared.body.tenant?.domain).toBeNull();
      expect((await tenantRow("gamma"))?.domain).toBeNull();
      expectError(await api("/api/tenants/domain/gamma2.example.com"), 404, "NOT_FOUND");
    });

    it("refuses anonymous callers, editors, bad and revoked tokens", async () => {
      const json = settingsBody(await fullTenant("main"));
      json.branding.primaryColor = "#000000";
      const before = await snapshot("main");
      const refusals: [ApiCallOptions, number, string][] = [
        [{}, 401, "UNAUTHENTICATED"],
        [{ cookie: cookies.editor }, 403, "PERMISSION_DENIED"],
        [{ token: tokens.editorSession }, 403, "PERMISSION_DENIED"],
        [{ token: "garbage" }, 401, "UNAUTHENTICATED"],
        [{ token: tokens.revoked }, 401, "UNAUTHENTICATED"],
        [{ token: "garbage", cookie: cookies.admin }, 401, "UNAUTHENTICATED"],
      ];
      for (const [options, http, status] of refusals) {
        expectError(
          await api("/api/tenants/main", { ...options, method: "PUT", json }),
          http,
          status,
        );
      }
      // An anonymous caller is refused before the body is read.
      expectError(
        await api("/api/tenants/main", { method: "PUT", raw: "{" }),
        401,
        "UNAUTHENTICATED",
      );
      expect(await snapshot("main")).toEqual(before);
    });
  });

  describe("PATCH /api/tenants/{id}/branding and /email-templates", () => {
    beforeAll(async () => {
      await create("patchy", "Patchy", "patchy.example.com");
    });

    it("changes only the given branding fields, and the public site shows them", async () => {
      expect(await publicPrimary("patchy")).toBe(DEFAULT_PRIMARY);
      const before = await fullTenant("patchy");
      const response = await api("/api/tenants/patchy/branding", {
        method: "PATCH",
        token: tokens.api,
        json: { primaryColor: "#0a7f3f", borderRadius: "0.5rem" },
      });
      expect(response.status, response.text).toBe(200);
      expect(response.body.tenant?.branding).toEqual({
        ...before.branding,
        primaryColor: "#0a7f3f",
        borderRadius: "0.5rem",
      });
      expect((await fullTenant("patchy")).branding.primaryColor).toBe("#0a7f3f");
      const html = await (await page("/?subdomain=patchy")).text();
      expect(brandPrimaryOf(html)).toBe("#0a7f3f");
      expect(html).toContain("--brand-radius:0.5rem");
      const last = (await history("patchy")).at(-1);
      expect(last?.actor).toBe(`${ADMIN_EMAIL} (API token "${API_TOKEN_NAME}")`);
      expect(last?.changes).toEqual(
        expect.arrayContaining([
          { field: "branding.primaryColor", before: DEFAULT_PRIMARY, after: "#0a7f3f" },
          { field: "branding.borderRadius", before: "8px", after: "0.5rem" },
        ]),
      );
    });

    it("changes only the given template fields", async () => {
      const before = await fullTenant("patchy");
      const response = await api(
        "/api/tenants/patchy/email-templates",
        asAdmin({
          method: "PATCH",
          json: {
            welcomeEmail: { subject: "Welcome to Patchy", fromEmail: "news@patchy.example.com" },
            bounceNotificationEmail: { senderName: "Patchy Desk" },
          },
        }),
      );
      expect(response.status, response.text).toBe(200);
      const templates = (await fullTenant("patchy")).emailTemplates;
      expect(templates.welcomeEmail).toEqual({
        ...before.emailTemplates.welcomeEmail,
        subject: "Welcome to Patchy",
        fromEmail: "news@patchy.example.com",
      });
      expect(templates.bounceNotificationEmail.senderName).toBe("Patchy Desk");
      expect(templates.confirmationEmail).toEqual(before.emailTemplates.confirmationEmail);
      expect(templates.verificationEmail).toEqual(before.emailTemplates.verificationEmail);
      expect((await history("patchy")).at(-1)?.changes).toEqual(
        expect.arrayContaining([
          {
            field: "emailTemplates.welcomeEmail.subject",
            before: "Welcome to our newsletter",
            after: "Welcome to Patchy",
          },
          {
            field: "emailTemplates.welcomeEmail.fromEmail",
            before: before.emailTemplates.welcomeEmail.fromEmail,
            after: "news@patchy.example.com",
          },
        ]),
      );
    });

    it("refuses unknown keys, bad values and wrong types with fields, changing nothing", async () => {
      const cases: [string, unknown, string, string | RegExp][] = [
        ["branding", { primaryColour: "#ffffff" }, "_", /primaryColour/],
        [
          "branding",
          { primaryColor: "notacolour" },
          "primaryColor",
          "Primary colour must be a CSS colour such as #1b365d, rgb(27, 54, 93) or navy",
        ],
        [
          "branding",
          { borderRadius: "huge" },
          "borderRadius",
          "Border radius must be a length such as 8px or 0.5rem",
        ],
        ["branding", { borderRadius: 8 }, "borderRadius", "Border radius must be text"],
        [
          "branding",
          { companyAddress: "a".repeat(301) },
          "companyAddress",
          "Company address must be at most 300 characters",
        ],
        ["email-templates", { welcome: { subject: "Hi" } }, "_", /welcome/],
        ["email-templates", { welcomeEmail: { subjet: "Hi" } }, "welcomeEmail", /subjet/],
        [
          "email-templates",
          { welcomeEmail: { fromEmail: "nope" } },
          "welcomeEmail.fromEmail",
          "From email: Invalid email format: nope",
        ],
        [
          "email-templates",
          { confirmationEmail: { subject: "s".repeat(201) } },
          "confirmationEmail.subject",
          "Subject must be at most 200 characters",
        ],
        [
          "email-templates",
          { verificationEmail: { subject: 7 } },
          "verificationEmail.subject",
          "Subject must be text",
        ],
      ];
      const before = await snapshot("patchy");
      for (const [route, json, field, message] of cases) {
        const response = await api(
          `/api/tenants/patchy/${route}`,
          asAdmin({ method: "PATCH", json }),
        );
        expectError(response, 400, "INVALID_ARGUMENT");
        const messages = response.body.error?.fields?.[field];
        expect(messages, `${route} ${JSON.stringify(json)}: ${response.text}`).toBeDefined();
        if (typeof message === "string") expect(messages).toContain(message);
        else expect(messages?.join(" ")).toMatch(message);
      }
      for (const route of ["branding", "email-templates"]) {
        const notJson = await api(
          `/api/tenants/patchy/${route}`,
          asAdmin({ method: "PATCH", raw: "<xml/>" }),
        );
        expectError(notJson, 400, "INVALID_ARGUMENT", API_MESSAGES.notJson);
        const array = await api(
          `/api/tenants/patchy/${route}`,
          asAdmin({ method: "PATCH", json: ["primaryColor"] }),
        );
        expectError(array, 400, "INVALID_ARGUMENT");
      }
      expect(await snapshot("patchy")).toEqual(before);
    });

    it("records nothing for a patch that changes nothing", async () => {
      const current = await fullTenant("patchy");
      const before = await viewSnapshot("patchy");
      const response = await api(
        "/api/tenants/patchy/branding",
        asAdmin({ method: "PATCH", json: { primaryColor: current.branding.primaryColor } }),
      );
      expect(response.status).toBe(200);
      const empty = await api(
        "/api/tenants/patchy/email-templates",
        asAdmin({ method: "PATCH", json: {} }),
      );
      expect(empty.status).toBe(200);
      expect(await viewSnapshot("patchy")).toEqual(before);
    });

    it("refuses anonymous callers, editors, bad and revoked tokens", async () => {
      const before = await snapshot("patchy");
      const refusals: [ApiCallOptions, number, string][] = [
        [{}, 401, "UNAUTHENTICATED"],
        [{ cookie: cookies.editor }, 403, "PERMISSION_DENIED"],
        [{ token: tokens.editorApi }, 403, "PERMISSION_DENIED"],
        [{ token: "garbage" }, 401, "UNAUTHENTICATED"],
        [{ token: tokens.revoked }, 401, "UNAUTHENTICATED"],
      ];
      for (const [options, http, status] of refusals) {
        expectError(
          await api("/api/tenants/patchy/branding", {
            ...options,
            method: "PATCH",
            json: { primaryColor: "#000000" },
          }),
          http,
          status,
        );
        expectError(
          await api("/api/tenants/patchy/email-templates", {
            ...options,
            method: "PATCH",
            json: { welcomeEmail: { subject: "Hijacked" } },
          }),
          http,
          status,
        );
      }
      expect(await snapshot("patchy")).toEqual(before);
    });
  });

  describe("DELETE /api/tenants/{id}", () => {
    it("never deletes main", async () => {
      const before = await snapshot("main");
      expectError(
        await api("/api/tenants/main", asAdmin({ method: "DELETE" })),
        409,
        "ABORTED",
        TENANT_MESSAGES.mainUndeletable,
      );
      expectError(
        await api("/api/tenants/main?force=true", asAdmin({ method: "DELETE" })),
        409,
        "ABORTED",
      );
      expect(await snapshot("main")).toEqual(before);
    });

    it("refuses a tenant with a subscriber or a newsletter unless forced, then removes its data", async () => {
      await create("delta");
      await create("epsilon");
      const subscriberId = await insertSubscriber(database.db, {
        email: "reader@delta.example",
        tenantId: "delta",
      });
      await createNewsletter(
        { db: database.db, tenantId: "epsilon", authorId: null },
        { title: "Issue 1", excerpt: "First", content: "<p>Hello</p>", readTime: 2 },
      );
      for (const id of ["delta", "epsilon"]) {
        const before = await snapshot(id);
        expectError(
          await api(`/api/tenants/${id}`, asAdmin({ method: "DELETE" })),
          409,
          "ABORTED",
          TENANT_MESSAGES.hasData,
        );
        expectError(
          await api(`/api/tenants/${id}?force=false`, asAdmin({ method: "DELETE" })),
          409,
          "ABORTED",
        );
        expect(await snapshot(id)).toEqual(before);
      }
      expect(
        await crossTenant(database.db)
          .selectFrom("subscribers")
          .select("id")
          .where("id", "=", subscriberId)
          .executeTakeFirst(),
      ).toBeDefined();
      expectError(
        await api("/api/tenants/delta?force=maybe", asAdmin({ method: "DELETE" })),
        400,
        "INVALID_ARGUMENT",
      );

      expect((await (await page("/?subdomain=delta")).text()).includes('data-tenant="delta"')).toBe(
        true,
      );
      const forced = await api(
        "/api/tenants/delta?force=true",
        asAdmin({ method: "DELETE", headers: { origin: server.url } }),
      );
      expect(forced.status, forced.text).toBe(200);
      expect(forced.body).toEqual({ deleted: "delta", removed: { subscribers: 1 } });
      const forcedNewsletter = await api("/api/tenants/epsilon?force=true", {
        method: "DELETE",
        token: tokens.api,
      });
      expect(forcedNewsletter.body).toEqual({ deleted: "epsilon", removed: { newsletters: 1 } });

      expect(await tenantRow("delta")).toBeUndefined();
      expectError(await api("/api/tenants/delta"), 404, "NOT_FOUND");
      for (const [table, id] of [
        ["subscribers", "delta"],
        ["newsletters", "epsilon"],
        ["lists", "delta"],
      ] as const) {
        const { n } = await database.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .where("tenant_id", "=", id)
          .executeTakeFirstOrThrow();
        expect(Number(n), `${table} of ${id}`).toBe(0);
      }
      // Its site falls back to the default tenant at once.
      expect(await (await page("/?subdomain=delta")).text()).toContain('data-tenant="main"');

      // The history outlives the tenant: created, then deleted, with who did it.
      const records = await history("delta");
      expect(records.map((record) => record.action)).toEqual(["created", "deleted"]);
      expect(records[1]?.actor).toBe(ADMIN_EMAIL);
      expect(records[1]?.changes).toContainEqual({
        field: "name",
        before: "Tenant delta",
        after: null,
      });
      expect((await history("epsilon")).at(-1)).toMatchObject({
        action: "deleted",
        actor: `${ADMIN_EMAIL} (API token "${API_TOKEN_NAME}")`,
      });
    });

    it("deletes a tenant without data without force", async () => {
      await create("zeta-api");
      const response = await api("/api/tenants/zeta-api", {
        method: "DELETE",
        token: tokens.adminSession,
      });
      expect(response.status, response.text).toBe(200);
      expect(response.body).toEqual({ deleted: "zeta-api", removed: {} });
      expect(await tenantRow("zeta-api")).toBeUndefined();
    });

    it("refuses anonymous callers, editors, bad and revoked tokens", async () => {
      await create("keeper");
      const before = await snapshot("keeper");
      const refusals: [ApiCallOptions, number, string][] = [
        [{}, 401, "UNAUTHENTICATED"],
        [{ cookie: cookies.editor }, 403, "PERMISSION_DENIED"],
        [{ token: tokens.editorSession }, 403, "PERMISSION_DENIED"],
        [{ token: "garbage" }, 401, "UNAUTHENTICATED"],
        [{ token: tokens.revoked }, 401, "UNAUTHENTICATED"],
      ];
      for (const [options, http, status] of refusals) {
        expectError(
          await api("/api/tenants/keeper?force=true", { ...options, method: "DELETE" }),
          http,
          status,
        );
      }
      expect(await snapshot("keeper")).toEqual(before);
    });
  });

  describe("GET /api/auth/verify", () => {
    it("answers isAdmin for a valid session or API token and 401 otherwise", async () => {
      expectError(await api("/api/auth/verify"), 401, "UNAUTHENTICATED");
      expectError(await api("/api/auth/verify", { token: "" }), 401, "UNAUTHENTICATED");
      expectError(await api("/api/auth/verify", { token: "garbage" }), 401, "UNAUTHENTICATED");
      expectError(await api("/api/auth/verify", { token: tokens.revoked }), 401, "UNAUTHENTICATED");
      // The header is what counts: a cookie alone does not answer the question.
      expectError(await api("/api/auth/verify", { cookie: cookies.admin }), 401, "UNAUTHENTICATED");

      const admin = await api("/api/auth/verify", { token: tokens.adminSession });
      expect(admin.status).toBe(200);
      expect(admin.body).toMatchObject({
        isAdmin: true,
        user: { email: ADMIN_EMAIL, role: "super_admin" },
        via: "session-token",
      });
      const editor = await api("/api/auth/verify", { token: tokens.editorSession });
      expect(editor.status).toBe(200);
      expect(editor.body).toMatchObject({ isAdmin: false, user: { email: EDITOR_EMAIL } });
      const apiToken = await api("/api/auth/verify", { token: tokens.api });
      expect(apiToken.body).toMatchObject({ isAdmin: true, via: "api-token" });
      const editorToken = await api("/api/auth/verify", { token: tokens.editorApi });
      expect(editorToken.body).toMatchObject({ isAdmin: false, via: "api-token" });
      expect(admin.text).not.toContain("password");
    });
  });

  describe("the tenant manager (/admin/tenants)", () => {
    /** The manager's form fields for a tenant's settings, as its edit form posts them. */
    const formFields = (tenant: TenantView): Record<string, string> => {
      const fields: Record<string, string> = {
        intent: "save",
        name: tenant.name,
        description: tenant.description,
        mailerLiteGroupId: tenant.mailerLiteGroupId ?? "",
      };
      const section = (prefix: string, values: Record<string, string | boolean>) => {
        for (const [key, value] of Object.entries(values)) {
          if (typeof value === "boolean") {
            if (value) fields[`${prefix}.${key}`] = "on";
          } else {
            fields[`${prefix}.${key}`] = value;
          }
        }
      };
      section("branding", tenant.branding);
      for (const [key, template] of Object.entries(tenant.emailTemplates)) {
        section(`emailTemplates.${key}`, { ...template });
      }
      section("features", tenant.features);
      section("email", tenant.email);
      return fields;
    };

    beforeAll(async () => {
      await create("omega", "Omega", "omega.example.com");
    });

    it("sends a visitor without a session to /login, which leads to /admin/login keeping the path", async () => {
      for (const path of ["/admin/tenants", "/admin/tenants/omega"]) {
        const response = await page(path);
        expect(response.status).toBe(302);
        expect(response.headers.get("location")).toBe(
          `/login?redirectTo=${encodeURIComponent(path)}`,
        );
      }
      const login = await page("/login?redirectTo=%2Fadmin%2Ftenants%2Fomega");
      expect(login.status).toBe(302);
      expect(login.headers.get("location")).toBe(
        "/admin/login?redirectTo=%2Fadmin%2Ftenants%2Fomega",
      );
      // An outside address is not kept.
      const outside = await page("/login?redirectTo=https%3A%2F%2Fevil.example%2F");
      expect(outside.headers.get("location")).toBe("/admin/login");
      // Signing in there returns to the tenant page.
      const signIn = await fetch(`${server.url}/admin/login`, {
        method: "POST",
        body: new URLSearchParams({
          email: ADMIN_EMAIL,
          password: TEST_PASSWORD,
          redirectTo: "/admin/tenants/omega",
        }),
        redirect: "manual",
      });
      expect(signIn.status).toBe(302);
      expect(signIn.headers.get("location")).toBe("/admin/tenants/omega");
      // A stale cookie is no session either.
      const stale = await page("/admin/tenants", "herald_session=not-a-session");
      expect(stale.headers.get("location")).toBe("/login?redirectTo=%2Fadmin%2Ftenants");
    });

    it("sends a signed-in member of staff who is not a super admin to /unauthorized, a 403 page", async () => {
      for (const path of ["/admin/tenants", "/admin/tenants/omega"]) {
        const response = await page(path, cookies.editor);
        expect(response.status).toBe(302);
        expect(response.headers.get("location")).toBe("/unauthorized");
      }
      const unauthorized = await page("/unauthorized", cookies.editor);
      expect(unauthorized.status).toBe(403);
      const text = textOf(await unauthorized.text());
      expect(text).toContain("Access denied");
      expect(text).toContain(EDITOR_EMAIL);
      expect(text).toContain("Sign in as someone else");

      // The actions are guarded too: nothing is saved or created.
      const before = await snapshot("omega");
      const tenant = await fullTenant("omega");
      const save = await postForm(
        "/admin/tenants/omega",
        { ...formFields(tenant), "branding.primaryColor": "#000000" },
        cookies.editor,
      );
      expect(save.status).toBe(302);
      expect(save.headers.get("location")).toBe("/unauthorized");
      const anonymousSave = await postForm(
        "/admin/tenants/omega",
        { ...formFields(tenant), "branding.primaryColor": "#000000" },
        "",
      );
      expect(anonymousSave.headers.get("location")).toMatch(/^\/login\?redirectTo=/);
      const add = await postForm(
        "/admin/tenants",
        { id: "sneaky", name: "Sneaky", domain: "sneaky.example.com" },
        cookies.editor,
      );
      expect(add.headers.get("location")).toBe("/unauthorized");
      expect(await snapshot("omega")).toEqual(before);
      expect(await tenantRow("sneaky")).toBeUndefined();
    });

    it("lets a super admin in: the list of tenants and one tenant with its history", async () => {
      const list = await page("/admin/tenants", cookies.admin);
      expect(list.status).toBe(200);
      const listText = textOf(await list.text());
      expect(listText).toContain("Add New Tenant");
      expect(listText).toContain("Omega");
      expect(listText).toContain("omega.example.com");
      expect(listText).toContain("Acme Legal");

      const one = await page("/admin/tenants/omega", cookies.admin);
      expect(one.status).toBe(200);
      const text = textOf(await one.text());
      expect(text).toContain("Edit Configuration");
      expect(text).toContain("History");
      expect(text).toContain(`created by ${ADMIN_EMAIL}`);
      expect((await page("/admin/tenants/no-such", cookies.admin)).status).toBe(404);
    });

    it("saves through the form: ?saved=1 and the success text, the history shows who changed what", async () => {
      const tenant = await fullTenant("omega");
      const response = await postForm("/admin/tenants/omega", {
        ...formFields(tenant),
        "branding.primaryColor": "#654321",
        "emailTemplates.welcomeEmail.subject": "Welcome to Omega",
      });
      expect(response.status).toBe(302);
      expect(response.headers.get("location")).toBe("/admin/tenants/omega?saved=1");
      const saved = await (await page("/admin/tenants/omega?saved=1", cookies.admin)).text();
      expect(textOf(saved)).toContain(TENANT_MESSAGES.saved);
      expect(TENANT_MESSAGES.saved).toBe("Tenant configuration saved successfully!");

      const after = await fullTenant("omega");
      expect(after.branding.primaryColor).toBe("#654321");
      expect(after.emailTemplates.welcomeEmail.subject).toBe("Welcome to Omega");
      // Nothing else moved: the form carries every field it shows.
      expect({
        ...after,
        branding: tenant.branding,
        emailTemplates: tenant.emailTemplates,
      }).toEqual({ ...tenant, updatedAt: after.updatedAt });
      expect(await publicPrimary("omega")).toBe("#654321");

      const last = (await history("omega")).at(-1);
      expect(last?.action).toBe("updated");
      expect(last?.actor).toBe(ADMIN_EMAIL);
      expect(last?.changes.map((change) => change.field).sort()).toEqual([
        "branding.primaryColor",
        "emailTemplates.welcomeEmail.subject",
      ]);
      const historyText = textOf(saved);
      expect(historyText).toContain(`updated by ${ADMIN_EMAIL}`);
      expect(historyText).toMatch(/branding\.primaryColor\s*:\s*#4a90e2\s*→\s*#654321/);
    });

    it("shows the failure text for a bad colour and saves nothing", async () => {
      const tenant = await fullTenant("omega");
      const before = await snapshot("omega");
      const response = await postForm("/admin/tenants/omega", {
        ...formFields(tenant),
        name: "Omega Renamed",
        "branding.primaryColor": "notacolour",
      });
      expect(response.status).toBe(400);
      const text = textOf(await response.text());
      expect(text).toContain("Failed to save tenant configuration. Please try again.");
      expect(text).toContain(
        "Primary colour must be a CSS colour such as #1b365d, rgb(27, 54, 93) or navy",
      );
      expect(text).not.toContain(TENANT_MESSAGES.saved);
      expect(await snapshot("omega")).toEqual(before);
      expect((await fullTenant("omega")).name).toBe("Omega");
    });

    it("adds a tenant through 'Add New Tenant', and refuses a bad or taken one", async () => {
      const response = await postForm("/admin/tenants", {
        id: "form-made",
        name: "Form Made",
        domain: "form-made.example.com",
      });
      expect(response.status).toBe(302);
      expect(response.headers.get("location")).toBe("/admin/tenants/form-made?created=1");
      expect(await tenantRow("form-made")).toMatchObject({
        name: "Form Made",
        domain: "form-made.example.com",
      });
      expect((await history("form-made"))[0]).toMatchObject({
        action: "created",
        actor: ADMIN_EMAIL,
      });
      const created = await page("/admin/tenants/form-made?created=1", cookies.admin);
      expect(created.status).toBe(200);

      const count = await tenantCount();
      const taken = await postForm("/admin/tenants", {
        id: "form-made",
        name: "Again",
        domain: "again.example.com",
      });
      expect(taken.status).toBe(409);
      expect(textOf(await taken.text())).toContain(TENANT_MESSAGES.idTaken);
      const bad = await postForm("/admin/tenants", {
        id: "bad-domain",
        name: "Bad",
        domain: "https://x.com/path",
      });
      expect(bad.status).toBe(400);
      expect(textOf(await bad.text())).toContain(
        "Domain must be a host name such as news.example.com (no https:// or path)",
      );
      expect(await tenantCount()).toBe(count);
    });
  });
});

describe.runIf(testDialects().includes("postgres"))(
  "the tenant cache across two instances on one PostgreSQL",
  () => {
    let database: TestDatabase;
    let a: RunningServer;
    let b: RunningServer;
    let cookie = "";

    beforeAll(async () => {
      database = await createTestDatabase("postgres");
      await migrateToLatest(database.db);
      await seedTenants(database.db);
      // Created before either instance starts, so both know the tenant from their first request.
      await createTenant(database.db, "setup", {
        id: "shared",
        name: "Shared",
        domain: "shared.example.com",
      });
      await createStaffUser(database.db, { email: ADMIN_EMAIL, role: "super_admin" });
      const env = { SESSION_SECRET: SECRET };
      [a, b] = await Promise.all([
        startServer({ databaseUrl: database.url, env }),
        startServer({ databaseUrl: database.url, env }),
      ]);
      cookie = await signIn(a.url, ADMIN_EMAIL);
    });

    afterAll(async () => {
      await Promise.all([a?.stop(), b?.stop()]);
      await database?.drop();
    });

    it("serves a saved colour at once on the saving instance and within seconds on the other", async () => {
      const primary = async (server: RunningServer) =>
        brandPrimaryOf(await (await fetch(`${server.url}/?subdomain=shared`)).text());
      for (const server of [a, b, a, b]) expect(await primary(server)).toBe(DEFAULT_PRIMARY);

      const response = await callApi(a.url, "/api/tenants/shared/branding", {
        method: "PATCH",
        cookie,
        json: { primaryColor: "#0b5fff" },
      });
      expect(response.status, response.text).toBe(200);
      const saved = Date.now();
      expect(await primary(a)).toBe("#0b5fff");
      // The other instance reads the database for the API at once…
      const fromB = await callApi(b.url, "/api/tenants/shared");
      expect(fromB.body.tenant?.branding.primaryColor).toBe("#0b5fff");
      // …and its cached site follows within its cache lifetime (and what requests take here).
      let seen = await primary(b);
      while (seen !== "#0b5fff" && Date.now() - saved < scaled(10_000)) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        seen = await primary(b);
      }
      expect(seen).toBe("#0b5fff");
      expect(Date.now() - saved).toBeLessThan(scaled(10_000));
      // The session made on A works on B: both share the database and SESSION_SECRET.
      const verify = await callApi(b.url, "/api/auth/verify", { token: sessionTokenOf(cookie) });
      expect(verify.body.isAdmin).toBe(true);
    });
  },
);
