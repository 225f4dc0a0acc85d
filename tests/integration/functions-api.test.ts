import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FUNCTION_NAMES } from "../../server/api/functions";
import { createApiToken, revokeApiToken } from "../../server/auth/api-tokens";
import type { StaffUser } from "../../server/auth/permissions";
import { migrateToLatest } from "../../server/db/migrate";
import { crossTenant } from "../../server/db/tenant-guard";
import { signToken } from "../../server/mail/tokens";
import { listTenantLists } from "../../server/subscribers/lists";
import { seedTenants } from "../../server/tenants/seed";
import { getTenant } from "../../server/tenants/store";
import { TOKEN_SCOPES } from "../../shared/schemas/api-tokens";
import { createStaffUser, signIn } from "../support/auth";
import {
  countRows,
  createTestDatabase,
  type TestDatabase,
  testDialects,
} from "../support/database";
import { textOf } from "../support/html";
import { type RunningServer, startServer } from "../support/server";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink";
import { insertSubscriber } from "../support/subscribers";

const ALL_SCOPES = { scopes: TOKEN_SCOPES };

const SECRET = "functions-api-secret-0123456789abcdef";

interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: assertions read the JSON answer freely
  body: any;
  headers: Headers;
}

describe.each(testDialects())("the functions API on %s", (dialect) => {
  let database: TestDatabase;
  let sink: SmtpSink;
  let server: RunningServer;
  const users: Record<"editor" | "kdEditor" | "superAdmin", StaffUser> = {} as never;
  const cookies = { editor: "", kdEditor: "", superAdmin: "" };
  const lists: Record<"main" | "keydiscovery", Record<string, number>> = {
    main: {},
    keydiscovery: {},
  };

  // Every call is its own visitor unless it says otherwise (the host trusts X-Forwarded-For from
  // loopback), so the per-address limit only bites where a test means it to.
  let addressCount = 0;
  const freshAddress = () => {
    addressCount++;
    return `10.77.${Math.floor(addressCount / 250)}.${(addressCount % 250) + 1}`;
  };

  const call = async (
    name: string,
    data?: unknown,
    options: {
      cookie?: string;
      token?: string;
      address?: string;
      origin?: string;
      query?: string;
      body?: string;
    } = {},
  ): Promise<Answer> => {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "x-forwarded-for": options.address ?? freshAddress(),
    };
    if (options.cookie) headers.cookie = options.cookie;
    if (options.token !== undefined) headers["x-auth-token"] = options.token;
    if (options.origin) headers.origin = options.origin;
    const response = await fetch(`${server.url}/api/functions/${name}${options.query ?? ""}`, {
      method: "POST",
      headers,
      body: options.body ?? JSON.stringify(data === undefined ? {} : { data }),
    });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON (e.g. the host's cross-site refusal): the test reads the text
    }
    return { status: response.status, body, headers: response.headers };
  };

  const expectError = (answer: Answer, status: number, code: string, message?: string) => {
    expect(answer.status, JSON.stringify(answer.body)).toBe(status);
    expect(answer.body.error.status).toBe(code);
    if (message !== undefined) expect(answer.body.error.message).toBe(message);
    expect(answer.body.result).toBeUndefined();
  };

  const subscriberRow = (email: string, tenantId = "main") =>
    database.db
      .selectFrom("subscribers")
      .selectAll()
      .where("tenant_id", "=", tenantId)
      .where("email", "=", email)
      .executeTakeFirst();

  const mailCount = (to: string) =>
    sink.messages.filter((message) => message.to.includes(to)).length;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    await migrateToLatest(database.db);
    await seedTenants(database.db);
    // keydiscovery subscribes without double opt-in; main keeps the default (double opt-in).
    const kdRow = await database.db
      .selectFrom("tenants")
      .select("config")
      .where("id", "=", "keydiscovery")
      .executeTakeFirstOrThrow();
    await database.db
      .updateTable("tenants")
      .set({
        config: JSON.stringify({ ...JSON.parse(kdRow.config), features: { doubleOptIn: false } }),
      })
      .where("id", "=", "keydiscovery")
      .execute();
    for (const tenantId of ["main", "keydiscovery"] as const) {
      const tenant = (await getTenant(database.db, tenantId)).config;
      for (const list of await listTenantLists(database.db, tenant)) {
        lists[tenantId][list.key] = list.id;
      }
    }
    await insertSubscriber(database.db, {
      email: "reader@example.com",
      listIds: [lists.main.newsletter],
    });
    await crossTenant(database.db)
      .updateTable("subscribers")
      .set({ name: "Rita Reader" })
      .where("email", "=", "reader@example.com")
      .execute();

    sink = await startSmtpSink();
    server = await startServer({
      databaseUrl: database.url,
      env: { SMTP_URL: sink.url, SESSION_SECRET: SECRET, SEND_RATE: "0" },
    });
    users.editor = await createStaffUser(database.db, {
      email: "editor@example.com",
      products: { main: true },
    });
    users.kdEditor = await createStaffUser(database.db, {
      email: "kd-editor@example.com",
      products: { keydiscovery: true },
    });
    users.superAdmin = await createStaffUser(database.db, {
      email: "chief@example.com",
      role: "super_admin",
    });
    for (const key of Object.keys(cookies) as (keyof typeof cookies)[]) {
      cookies[key] = await signIn(server.url, users[key].email);
    }
  });

  afterAll(async () => {
    await server?.stop();
    await sink?.stop();
    await database?.drop();
  });

  describe("the envelope", () => {
    it("answers helloWorld with { result } to anyone, echoing the payload", async () => {
      const answer = await call("helloWorld", { test: "ping", timestamp: 1_700_000_000_000 });
      expect(answer.status).toBe(200);
      expect(answer.headers.get("cache-control")).toBe("no-store");
      expect(answer.body.result).toMatchObject({
        message: "Hello from Herald!",
        test: "ping",
        timestamp: 1_700_000_000_000,
        tenantId: "main",
      });
      expect(Date.parse(answer.body.result.serverTime)).not.toBeNaN();
      // An empty body is an empty payload.
      const bare = await call("helloWorld", undefined, { body: "" });
      expect(bare.status).toBe(200);
      expect(bare.body.result).toMatchObject({ test: null, timestamp: null });
    });

    it("works from the site's own pages (same origin) and from API clients (no Origin); refuses other sites", async () => {
      expect((await call("helloWorld", {}, { origin: server.url })).status).toBe(200);
      expect((await call("helloWorld", {})).status).toBe(200);
      const crossSite = await call("helloWorld", {}, { origin: "https://evil.example" });
      expect(crossSite.status).toBe(403);
    });

    it("refuses GET with 405, an unknown function with 404 and a body that is not JSON with 400", async () => {
      const get = await fetch(`${server.url}/api/functions/helloWorld`);
      expect(get.status).toBe(405);
      expect(get.headers.get("allow")).toBe("POST");
      expectError(
        await call("noSuchFunction", {}),
        404,
        "NOT_FOUND",
        "Function noSuchFunction not found",
      );
      // Not a function either: a name that is an Object property.
      expectError(await call("constructor", {}), 404, "NOT_FOUND");
      expectError(
        await call("helloWorld", undefined, { body: "{not json" }),
        400,
        "INVALID_ARGUMENT",
        "The request body must be JSON",
      );
      expectError(await call("helloWorld", { test: { nested: true } }), 400, "INVALID_ARGUMENT");
    });
  });

  describe("addSubscriber", () => {
    it("adds a subscriber for staff through the provider, in the provider's shape", async () => {
      const first = await call(
        "addSubscriber",
        { email: "Staff.Added@Example.com", groups: ["newsletter"], fields: { name: "Sam Staff" } },
        { cookie: cookies.editor },
      );
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      expect(first.body.result).toMatchObject({
        success: true,
        created: true,
        subscriber: {
          email: "staff.added@example.com",
          status: "active",
          fields: { name: "Sam Staff" },
          groups: [{ id: String(lists.main.newsletter), name: "KeyDiscovery Newsletter" }],
        },
      });
      // Groups by id or number are added, never replaced; no mail goes to a staff-added address.
      const second = await call(
        "addSubscriber",
        { email: "staff.added@example.com", groups: [lists.main["product-updates"]] },
        { cookie: cookies.editor },
      );
      expect(second.body.result.created).toBe(false);
      expect(second.body.result.subscriber.groups.map((group: { id: string }) => group.id)).toEqual(
        [String(lists.main.newsletter), String(lists.main["product-updates"])],
      );
      expect(mailCount("staff.added@example.com")).toBe(0);
    });

    it("signs a visitor up through the public sign-up path: double opt-in, and nothing personal back", async () => {
      const answer = await call("addSubscriber", {
        email: "visitor@example.com",
        fields: { name: "Vera Visitor" },
      });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(answer.body.result).toEqual({
        success: true,
        subscriber: {
          status: "unconfirmed",
          groups: [{ id: String(lists.main.newsletter) }],
          fields: { name: "Vera Visitor" },
        },
      });
      const mail = await sink.waitFor((message) => message.to.includes("visitor@example.com"));
      expect(mail.subject).toContain("Please confirm your subscription");
      expect((await subscriberRow("visitor@example.com"))?.status).toBe("unconfirmed");
    });

    it("stores HTML and SQL in text fields as text", async () => {
      const name = `<script>alert("x")</script>'; DROP TABLE subscribers; --`;
      const answer = await call(
        "addSubscriber",
        { email: "odd@example.com", fields: { name } },
        { cookie: cookies.editor },
      );
      expect(answer.status).toBe(200);
      expect(answer.body.result.subscriber.fields.name).toBe(name);
      expect((await subscriberRow("odd@example.com"))?.name).toBe(name);
      expect(await subscriberRow("reader@example.com")).toBeDefined();
    });

    it("refuses bad payloads with INVALID_ARGUMENT and the field", async () => {
      const blank = await call("addSubscriber", { email: "  " });
      expectError(blank, 400, "INVALID_ARGUMENT", "email: Please enter your email address.");
      expect(blank.body.error.fields.email[0]).toBe("Please enter your email address.");
      expectError(
        await call("addSubscriber", { email: "not-an-email" }),
        400,
        "INVALID_ARGUMENT",
        "email: Invalid email format: not-an-email",
      );
      expectError(await call("addSubscriber", {}), 400, "INVALID_ARGUMENT");
      expectError(await call("addSubscriber", { email: 42 }), 400, "INVALID_ARGUMENT");
      expectError(await call("addSubscriber", "visitor@example.com"), 400, "INVALID_ARGUMENT");
      expectError(
        await call("addSubscriber", { email: "a@example.com", groups: "newsletter" }),
        400,
        "INVALID_ARGUMENT",
      );
      expectError(
        await call("addSubscriber", { email: `${"a".repeat(250)}@example.com` }),
        400,
        "INVALID_ARGUMENT",
        "email: Email must be at most 254 characters.",
      );
      const longName = await call("addSubscriber", {
        email: "long@example.com",
        fields: { name: "n".repeat(101) },
      });
      expectError(longName, 400, "INVALID_ARGUMENT");
      expect(longName.body.error.fields).toEqual({
        "fields.name": ["Name must be at most 100 characters."],
      });
      for (const cookie of ["", cookies.editor]) {
        expectError(
          await call("addSubscriber", { email: "a@example.com", groups: ["nope"] }, { cookie }),
          400,
          "INVALID_ARGUMENT",
          "No valid groups specified",
        );
      }
      expect(await subscriberRow("a@example.com")).toBeUndefined();
      expect(await subscriberRow("long@example.com")).toBeUndefined();
    });
  });

  describe("sendEmail", () => {
    it("is for staff only", async () => {
      expectError(
        await call("sendEmail", { to: "x@example.com", subject: "Hi", content: "<p>Hi</p>" }),
        401,
        "UNAUTHENTICATED",
      );
    });

    it("sends cleaned HTML in the tenant's frame from the tenant's sender", async () => {
      const answer = await call(
        "sendEmail",
        {
          to: "recipient@example.com",
          subject: "Quarterly note",
          content:
            '<html><body><p>Newsletter</p><p>Dear reader, <a href="https://example.com/a">read this</a>.</p><script>alert(1)</script><p onclick="steal()">Bye</p></body></html>',
        },
        { cookie: cookies.editor },
      );
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(answer.body.result.success).toBe(true);
      expect(answer.body.result.messageId).toMatch(/^<.+>$/);
      const mail = await sink.waitFor((message) => message.to.includes("recipient@example.com"));
      expect(mail.subject).toBe("Quarterly note");
      expect(mail.from).toBe("newsletter@keydiscovery.com");
      expect(mail.html).toContain("Dear reader");
      expect(mail.html).toContain('href="https://example.com/a"');
      expect(mail.html).not.toMatch(/<script|alert\(1\)|onclick|steal\(\)/);
      expect(mail.html).toContain("1200 Market Street");
      expect(mail.html).toContain("/unsubscribe?email=recipient%40example.com");
      expect(mail.text).toContain("Dear reader");
      expect(mail.messageId).toBe(answer.body.result.messageId);
      const logged = await crossTenant(database.db)
        .selectFrom("mail_log")
        .select(["kind", "status", "tenant_id"])
        .where("to_address", "=", "recipient@example.com")
        .executeTakeFirstOrThrow();
      expect(logged).toEqual({ kind: "email", status: "sent", tenant_id: "main" });
    });

    it("takes a sender as 'Name <address>' or { name, email }", async () => {
      await call(
        "sendEmail",
        {
          to: "named@example.com",
          subject: "One",
          content: "<p>1</p>",
          from: "The Desk <desk@keydiscovery.com>",
        },
        { cookie: cookies.editor },
      );
      let mail = await sink.waitFor((message) => message.to.includes("named@example.com"));
      expect(mail.from).toBe("desk@keydiscovery.com");
      expect(mail.headers.get("from")).toContain("The Desk");
      await call(
        "sendEmail",
        {
          to: "object@example.com",
          subject: "Two",
          content: "<p>2</p>",
          from: { name: "Ops", email: "ops@keydiscovery.com" },
        },
        { cookie: cookies.editor },
      );
      mail = await sink.waitFor((message) => message.to.includes("object@example.com"));
      expect(mail.from).toBe("ops@keydiscovery.com");
    });

    it("refuses what it cannot send, and says so when the mail server refuses", async () => {
      const send = (data: Record<string, unknown>) =>
        call(
          "sendEmail",
          { to: "never@example.com", subject: "S", content: "<p>C</p>", ...data },
          { cookie: cookies.editor },
        );
      expectError(
        await send({ subject: "" }),
        400,
        "INVALID_ARGUMENT",
        "Subject and content are required",
      );
      expectError(
        await send({ subject: undefined }),
        400,
        "INVALID_ARGUMENT",
        "Subject and content are required",
      );
      // Script only: nothing is left once cleaned.
      expectError(
        await send({ content: "<script>alert(1)</script>" }),
        400,
        "INVALID_ARGUMENT",
        "Subject and content are required",
      );
      expectError(
        await send({ from: "not an address" }),
        400,
        "INVALID_ARGUMENT",
        "Invalid sender email format",
      );
      expectError(
        await send({ to: "nope" }),
        400,
        "INVALID_ARGUMENT",
        "to: Invalid email format: nope",
      );
      expectError(await send({ subject: "s".repeat(301) }), 400, "INVALID_ARGUMENT");
      expectError(await send({ content: 5 }), 400, "INVALID_ARGUMENT");
      expect(mailCount("never@example.com")).toBe(0);

      sink.answer = (recipient) => (recipient === "bounce@example.com" ? 550 : undefined);
      try {
        expectError(
          await send({ to: "bounce@example.com" }),
          503,
          "UNAVAILABLE",
          "Failed to send email",
        );
      } finally {
        sink.answer = () => undefined;
      }
    });
  });

  describe("completeNewsletterSignup", () => {
    it("follows the tenant's double opt-in, as the public form does", async () => {
      const answer = await call("completeNewsletterSignup", {
        email: "joiner@example.com",
        name: "Jo Joiner",
        groups: ["newsletter", "industry-news"],
        tenantId: "main",
        welcomeEmail: true,
      });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(answer.body.result.success).toBe(true);
      const confirm = await sink.waitFor((message) => message.to.includes("joiner@example.com"));
      expect(confirm.subject).toContain("Please confirm your subscription");
      expect((await subscriberRow("joiner@example.com"))?.status).toBe("unconfirmed");

      // keydiscovery has no double opt-in: active at once, with the welcome email.
      const kd = await call(
        "completeNewsletterSignup",
        { email: "kd-joiner@example.com", name: "Kay" },
        { query: "?subdomain=keydiscovery" },
      );
      expect(kd.status, JSON.stringify(kd.body)).toBe(200);
      await sink.waitFor((message) => message.to.includes("kd-joiner@example.com"));
      expect((await subscriberRow("kd-joiner@example.com", "keydiscovery"))?.status).toBe("active");
      expect(await subscriberRow("kd-joiner@example.com", "main")).toBeUndefined();
    });

    it("tells staff what happened, on another tenant they manage", async () => {
      const answer = await call(
        "completeNewsletterSignup",
        { email: "kd-staff-signup@example.com", tenantId: "keydiscovery" },
        { cookie: cookies.superAdmin },
      );
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(answer.body.result).toMatchObject({ success: true, outcome: "subscribed" });
      expect((await subscriberRow("kd-staff-signup@example.com", "keydiscovery"))?.status).toBe(
        "active",
      );
    });

    it("refuses bad payloads", async () => {
      expectError(
        await call("completeNewsletterSignup", { email: "" }),
        400,
        "INVALID_ARGUMENT",
        "email: Please enter your email address.",
      );
      expectError(
        await call("completeNewsletterSignup", { email: "x@example.com", groups: ["nope"] }),
        400,
        "INVALID_ARGUMENT",
        "No valid groups specified",
      );
      expectError(
        await call("completeNewsletterSignup", { email: "x@example.com", welcomeEmail: false }),
        400,
        "INVALID_ARGUMENT",
      );
      expectError(
        await call("completeNewsletterSignup", { email: "x@example.com", welcomeEmail: "yes" }),
        400,
        "INVALID_ARGUMENT",
      );
      expect(await subscriberRow("x@example.com")).toBeUndefined();
    });

    it("keeps the public form's limit per address (RESOURCE_EXHAUSTED)", async () => {
      const address = freshAddress();
      const statuses: number[] = [];
      for (let index = 0; index < 6; index++) {
        const answer = await call(
          "completeNewsletterSignup",
          { email: `burst${index}@example.com` },
          { address },
        );
        statuses.push(answer.status);
        if (answer.status !== 200) expectError(answer, 429, "RESOURCE_EXHAUSTED");
      }
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    });
  });

  describe("getAllGroups", () => {
    it("lists the tenant's groups: names for visitors, figures for staff", async () => {
      const anonymous = await call("getAllGroups", {});
      expect(anonymous.status).toBe(200);
      expect(anonymous.body.result.groups).toEqual([
        { id: String(lists.main.newsletter), name: "KeyDiscovery Newsletter" },
        { id: String(lists.main["product-updates"]), name: "KeyDiscovery Updates" },
        { id: String(lists.main["industry-news"]), name: "Industry News" },
      ]);
      const staff = await call("getAllGroups", { tenantId: "main" }, { cookie: cookies.editor });
      const newsletter = staff.body.result.groups[0];
      expect(Object.keys(newsletter).sort()).toEqual(
        ["active_count", "clicked", "id", "name", "opened", "sent"].sort(),
      );
      expect(newsletter.active_count).toBeGreaterThanOrEqual(1);

      const kd = await call(
        "getAllGroups",
        { tenantId: "keydiscovery" },
        { cookie: cookies.superAdmin },
      );
      expect(kd.body.result.groups.map((group: { id: string }) => group.id)).toEqual(
        Object.values(lists.keydiscovery).map(String),
      );
    });
  });

  describe("createAndSendCampaign and getCampaigns", () => {
    it("are for staff only", async () => {
      expectError(
        await call("createAndSendCampaign", { subject: "S", content: "<p>C</p>" }),
        401,
        "UNAUTHENTICATED",
      );
      expectError(await call("getCampaigns", {}), 401, "UNAUTHENTICATED");
    });

    it("creates and sends a campaign with SPEC's defaults, then lists it", async () => {
      const answer = await call(
        "createAndSendCampaign",
        {
          subject: "Issue 12",
          content: '<p>Twelve: <a href="https://example.com/12">more</a></p>',
        },
        { cookie: cookies.editor },
      );
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      const { campaign } = answer.body.result;
      expect(campaign).toMatchObject({
        name: "Issue 12",
        subject: "Issue 12",
        groups: [String(lists.main.newsletter)],
      });
      expect(["scheduled", "sending", "sent"]).toContain(campaign.status);
      const row = await crossTenant(database.db)
        .selectFrom("campaigns")
        .selectAll()
        .where("id", "=", campaign.id)
        .executeTakeFirstOrThrow();
      expect(row).toMatchObject({
        tenant_id: "main",
        track_opens: 1,
        track_clicks: 1,
        from_email: "newsletter@keydiscovery.com",
        created_by: users.editor.id,
      });
      const mail = await sink.waitFor(
        (message) => message.subject === "Issue 12" && message.to.includes("reader@example.com"),
        20_000,
      );
      expect(mail.html).toContain("Twelve");

      const listed = await call("getCampaigns", {}, { cookie: cookies.editor });
      expect(listed.status).toBe(200);
      expect(listed.body.result).toMatchObject({ success: true, limit: 25, page: 1 });
      expect(listed.body.result.total).toBeGreaterThanOrEqual(1);
      expect(listed.body.result.campaigns[0]).toMatchObject({ id: campaign.id, name: "Issue 12" });
      const drafts = await call(
        "getCampaigns",
        { status: "draft", limit: 5, page: 2 },
        { cookie: cookies.editor },
      );
      expect(drafts.body.result).toMatchObject({ campaigns: [], total: 0, limit: 5, page: 2 });
    });

    it("takes the sender, lists and tracking it is given", async () => {
      const answer = await call(
        "createAndSendCampaign",
        {
          subject: "Industry round-up",
          content: "<p>News</p>",
          senderName: "The Editors",
          senderEmail: "editors@keydiscovery.com",
          groups: [String(lists.main["industry-news"]), lists.main.newsletter],
          trackOpens: false,
          trackClicks: false,
        },
        { cookie: cookies.editor },
      );
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      const row = await crossTenant(database.db)
        .selectFrom("campaigns")
        .selectAll()
        .where("id", "=", answer.body.result.campaign.id)
        .executeTakeFirstOrThrow();
      expect(row).toMatchObject({
        from_name: "The Editors",
        from_email: "editors@keydiscovery.com",
        track_opens: 0,
        track_clicks: 0,
      });
      expect(JSON.parse(row.list_ids).sort()).toEqual(
        [lists.main["industry-news"], lists.main.newsletter].sort(),
      );
    });

    it("refuses bad campaigns with SPEC's messages", async () => {
      const before = await crossTenant(database.db)
        .selectFrom("campaigns")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .executeTakeFirstOrThrow();
      const create = (data: Record<string, unknown>) =>
        call(
          "createAndSendCampaign",
          { subject: "S", content: "<p>C</p>", ...data },
          { cookie: cookies.editor },
        );
      expectError(
        await create({ subject: undefined }),
        400,
        "INVALID_ARGUMENT",
        "Subject and content are required",
      );
      expectError(
        await create({ content: "  " }),
        400,
        "INVALID_ARGUMENT",
        "Subject and content are required",
      );
      expectError(
        await create({ senderEmail: "bad sender" }),
        400,
        "INVALID_ARGUMENT",
        "Invalid sender email format",
      );
      expectError(
        await create({ groups: ["nope", 999999] }),
        400,
        "INVALID_ARGUMENT",
        "No valid groups specified",
      );
      expectError(await create({ subject: "s".repeat(301) }), 400, "INVALID_ARGUMENT");
      expectError(await create({ trackOpens: "yes" }), 400, "INVALID_ARGUMENT");
      expectError(await create({ groups: [{ id: 1 }] }), 400, "INVALID_ARGUMENT");
      const after = await crossTenant(database.db)
        .selectFrom("campaigns")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .executeTakeFirstOrThrow();
      expect(Number(after.n)).toBe(Number(before.n));

      const list = (data: Record<string, unknown>) =>
        call("getCampaigns", data, { cookie: cookies.editor });
      expectError(await list({ limit: 0 }), 400, "INVALID_ARGUMENT");
      expectError(await list({ limit: "25" }), 400, "INVALID_ARGUMENT");
      expectError(await list({ page: 1.5 }), 400, "INVALID_ARGUMENT");
      expectError(await list({ status: "bogus" }), 400, "INVALID_ARGUMENT");
    });
  });

  describe("getSubscriber", () => {
    /** The token of a subscriber's preference link (/preferences/{token}), as their mail carries it. */
    async function preferenceToken(tenantId: string, email: string, expiresAt?: number) {
      const row = await crossTenant(database.db)
        .selectFrom("subscribers")
        .select("id")
        .where("tenant_id", "=", tenantId)
        .where("email", "=", email)
        .executeTakeFirstOrThrow();
      return signToken(SECRET, {
        purpose: "preferences",
        tenantId,
        subscriberId: row.id,
        expiresAt,
      });
    }
    const answer = {
      result: {
        success: true,
        subscriber: {
          status: "active",
          groups: [{ id: "" }],
          fields: { name: "Rita Reader" },
        },
      },
    };

    it("answers staff, and a visitor holding the subscriber's signed link, exactly the lists, name and status", async () => {
      answer.result.subscriber.groups = [{ id: String(lists.main.newsletter) }];
      const staff = await call(
        "getSubscriber",
        { email: "Reader@Example.com" },
        { cookie: cookies.editor },
      );
      expect(staff.status).toBe(200);
      expect(staff.body).toEqual(answer);
      const token = await preferenceToken("main", "reader@example.com");
      const visitor = await call("getSubscriber", { email: "Reader@Example.com", token });
      expect(visitor.status).toBe(200);
      expect(visitor.body).toEqual(answer);
    });

    it("refuses a visitor without the subscriber's own valid link, the same way whoever is asked for", async () => {
      const readerToken = await preferenceToken("main", "reader@example.com");
      const refusals = [
        // no token: subscribed, unknown
        { email: "reader@example.com" },
        { email: "nobody@example.com" },
        // another subscriber's token
        { email: "nobody@example.com", token: readerToken },
        // forged, expired, another tenant's, another purpose
        { email: "reader@example.com", token: `${readerToken.slice(0, -2)}xx` },
        {
          email: "reader@example.com",
          token: await preferenceToken("main", "reader@example.com", Date.now() - 1000),
        },
        {
          email: "kd-joiner@example.com",
          token: await preferenceToken("keydiscovery", "kd-joiner@example.com"),
        },
      ];
      for (const data of refusals) {
        expectError(
          await call("getSubscriber", data),
          403,
          "PERMISSION_DENIED",
          "Looking up a subscriber needs the signed token of their preference link (or a staff sign-in).",
        );
      }
    });

    it("answers NOT_FOUND to staff for an unknown address, and for an address of another tenant", async () => {
      const cookie = cookies.editor;
      expectError(
        await call("getSubscriber", { email: "nobody@example.com" }, { cookie }),
        404,
        "NOT_FOUND",
        "Subscriber not found",
      );
      expectError(
        await call("getSubscriber", { email: "kd-joiner@example.com" }, { cookie }),
        404,
        "NOT_FOUND",
        "Subscriber not found",
      );
      expectError(
        await call("getSubscriber", { email: "nope" }, { cookie }),
        400,
        "INVALID_ARGUMENT",
      );
    });
  });

  describe("who may call", () => {
    it("takes staff by cookie, by session token or by API token; a bad token loses even with a cookie", async () => {
      const sessionToken = cookies.editor.slice(cookies.editor.indexOf("=") + 1);
      expect((await call("getCampaigns", {}, { cookie: cookies.editor })).status).toBe(200);
      expect((await call("getCampaigns", {}, { token: sessionToken })).status).toBe(200);
      expectError(
        await call("getCampaigns", {}, { token: "not-a-token", cookie: cookies.editor }),
        401,
        "UNAUTHENTICATED",
      );
      expectError(await call("getCampaigns", {}, { token: "" }), 401, "UNAUTHENTICATED");
      const bad = await call("getCampaigns", {}, { token: "hrld_forged" });
      expectError(bad, 401, "UNAUTHENTICATED");
      expect(bad.headers.get("www-authenticate")).toBe("x-auth-token");

      const { token, id } = await createApiToken(
        database.db,
        users.editor,
        "functions test",
        ALL_SCOPES,
      );
      const viaToken = await call(
        "createAndSendCampaign",
        { subject: "By token", content: "<p>T</p>", groups: ["industry-news"] },
        { token },
      );
      expect(viaToken.status, JSON.stringify(viaToken.body)).toBe(200);
      expect(await revokeApiToken(database.db, id)).toBe(true);
      expectError(await call("getCampaigns", {}, { token }), 401, "UNAUTHENTICATED");
    });

    it("keeps staff to the tenants they manage", async () => {
      // kd-editor on the main site: no access to main.
      expectError(
        await call("getCampaigns", {}, { cookie: cookies.kdEditor }),
        403,
        "PERMISSION_DENIED",
      );
      expectError(
        await call("getCampaigns", { tenantId: "main" }, { cookie: cookies.kdEditor }),
        403,
        "PERMISSION_DENIED",
      );
      // …but keydiscovery, named from the main site, is theirs.
      const own = await call(
        "getCampaigns",
        { tenantId: "keydiscovery" },
        { cookie: cookies.kdEditor },
      );
      expect(own.status, JSON.stringify(own.body)).toBe(200);
      // The main editor may not act on keydiscovery.
      expectError(
        await call(
          "createAndSendCampaign",
          { subject: "S", content: "<p>C</p>", tenantId: "keydiscovery" },
          { cookie: cookies.editor },
        ),
        403,
        "PERMISSION_DENIED",
      );
      expectError(
        await call("getAllGroups", { tenantId: "keydiscovery" }, { cookie: cookies.editor }),
        403,
        "PERMISSION_DENIED",
      );
      for (const cookie of [cookies.superAdmin, cookies.editor]) {
        expectError(
          await call("getCampaigns", { tenantId: "nowhere" }, { cookie }),
          404,
          "NOT_FOUND",
          "Tenant not found",
        );
      }
      expectError(
        await call("getCampaigns", { tenantId: 7 }, { cookie: cookies.superAdmin }),
        400,
        "INVALID_ARGUMENT",
      );
    });

    it("honours a staff member's tenantId in every function, and refuses a tenant they do not manage", async () => {
      // Called on main's host; each payload is valid, so only the tenant decides the answer.
      const payloads: Record<string, Record<string, unknown>> = {
        helloWorld: {},
        addSubscriber: { email: "named-add@example.com" },
        sendEmail: { to: "named-send@example.com", subject: "Named", content: "<p>Hi</p>" },
        completeNewsletterSignup: { email: "named-signup@example.com" },
        getAllGroups: {},
        createAndSendCampaign: { subject: "Named tenant", content: "<p>Hi</p>" },
        getCampaigns: {},
        getSubscriber: { email: "named-add@example.com" },
      };
      expect(Object.keys(payloads).sort()).toEqual([...FUNCTION_NAMES].sort());
      const rowsOf = async () =>
        Promise.all(
          (["subscribers", "campaigns", "mail_log"] as const).map((table) =>
            countRows(database.db, table),
          ),
        );

      // The main editor may not name keydiscovery, whatever the function; nothing is written.
      const before = await rowsOf();
      for (const [name, payload] of Object.entries(payloads)) {
        const refused = await call(
          name,
          { ...payload, tenantId: "keydiscovery" },
          { cookie: cookies.editor },
        );
        expectError(refused, 403, "PERMISSION_DENIED");
      }
      expect(await rowsOf()).toEqual(before);

      // The super admin names keydiscovery from main's host: every function acts there.
      const answers: Record<string, Answer> = {};
      for (const [name, payload] of Object.entries(payloads)) {
        answers[name] = await call(
          name,
          { ...payload, tenantId: "keydiscovery" },
          { cookie: cookies.superAdmin },
        );
        expect(answers[name]?.status, `${name}: ${JSON.stringify(answers[name]?.body)}`).toBe(200);
      }
      const all = crossTenant(database.db);
      const subscriberTenants = async (email: string) =>
        (
          await all
            .selectFrom("subscribers")
            .select("tenant_id")
            .where("email", "=", email)
            .execute()
        ).map((row) => row.tenant_id);
      expect(answers.helloWorld?.body.result.tenantId).toBe("keydiscovery");
      expect(await subscriberTenants("named-add@example.com")).toEqual(["keydiscovery"]);
      expect(await subscriberTenants("named-signup@example.com")).toEqual(["keydiscovery"]);
      const sent = await all
        .selectFrom("mail_log")
        .select("tenant_id")
        .where("to_address", "=", "named-send@example.com")
        .execute();
      expect(sent).toEqual([{ tenant_id: "keydiscovery" }]);
      const groupIds = answers.getAllGroups?.body.result.groups.map((group: { id: string }) =>
        Number(group.id),
      );
      expect(groupIds.sort()).toEqual(Object.values(lists.keydiscovery).sort());
      const campaign = await all
        .selectFrom("campaigns")
        .select(["id", "tenant_id"])
        .where("subject", "=", "Named tenant")
        .executeTakeFirstOrThrow();
      expect(campaign.tenant_id).toBe("keydiscovery");
      expect(
        answers.getCampaigns?.body.result.campaigns.map((each: { id: string }) => each.id),
      ).toContain(campaign.id);
      // Found at all: only keydiscovery has this address.
      expect(answers.getSubscriber?.body.result.subscriber.status).toBe("active");
    });

    it("keeps visitors to the site's own tenant", async () => {
      expectError(await call("getAllGroups", { tenantId: "keydiscovery" }), 401, "UNAUTHENTICATED");
      expectError(
        await call("getSubscriber", { email: "kd-joiner@example.com", tenantId: "nowhere" }),
        401,
        "UNAUTHENTICATED",
      );
      // The host decides: on keydiscovery's site, keydiscovery's data (for the link's holder).
      const subscriber = await crossTenant(database.db)
        .selectFrom("subscribers")
        .select("id")
        .where("tenant_id", "=", "keydiscovery")
        .where("email", "=", "kd-joiner@example.com")
        .executeTakeFirstOrThrow();
      const token = signToken(SECRET, {
        purpose: "preferences",
        tenantId: "keydiscovery",
        subscriberId: subscriber.id,
      });
      const kd = await call(
        "getSubscriber",
        { email: "kd-joiner@example.com", tenantId: "keydiscovery", token },
        { query: "?subdomain=keydiscovery" },
      );
      expect(kd.status, JSON.stringify(kd.body)).toBe(200);
      expect(kd.body.result.subscriber.status).toBe("active");
    });

    it("limits visitors per address (429 RESOURCE_EXHAUSTED) but not the tenant's staff", async () => {
      const address = freshAddress();
      const statuses: number[] = [];
      for (let index = 0; index < 31; index++) {
        statuses.push((await call("helloWorld", {}, { address })).status);
      }
      expect(statuses.slice(0, 30).every((status) => status === 200)).toBe(true);
      const limited = await call("getAllGroups", {}, { address });
      expectError(limited, 429, "RESOURCE_EXHAUSTED");
      expect(statuses[30]).toBe(429);
      // Staff of this tenant are not counted; another address and another tenant are fresh.
      expect((await call("helloWorld", {}, { address, cookie: cookies.editor })).status).toBe(200);
      expect((await call("helloWorld", {}, { address: freshAddress() })).status).toBe(200);
      expect(
        (await call("helloWorld", {}, { address, query: "?subdomain=keydiscovery" })).status,
      ).toBe(200);
    });
  });

  describe("the /test/functions page", () => {
    const post = (fields: Record<string, string>, cookie = cookies.editor) =>
      fetch(`${server.url}/test/functions`, {
        method: "POST",
        body: new URLSearchParams(fields),
        headers: { cookie, origin: server.url },
        redirect: "manual",
      });

    it("is for signed-in staff of the tenant", async () => {
      const anonymous = await fetch(`${server.url}/test/functions`, { redirect: "manual" });
      expect(anonymous.status).toBe(302);
      expect(anonymous.headers.get("location")).toBe("/admin/login?redirectTo=%2Ftest%2Ffunctions");
      const anonymousPost = await post({ fn: "helloWorld" }, "");
      expect(anonymousPost.status).toBe(302);
      const outsider = await fetch(`${server.url}/test/functions`, {
        headers: { cookie: cookies.kdEditor },
        redirect: "manual",
      });
      expect(outsider.status).toBe(403);
      expect(
        (await post({ fn: "sendEmail", email: "x@example.com" }, cookies.kdEditor)).status,
      ).toBe(403);

      const page = await fetch(`${server.url}/test/functions`, {
        headers: { cookie: cookies.editor },
      });
      expect(page.status).toBe(200);
      const text = textOf(await page.text());
      for (const label of [
        "Test Connection",
        "Send Email",
        "Add Subscriber",
        "Complete Signup Flow",
      ]) {
        expect(text).toContain(label);
      }
    });

    it("calls a function without JavaScript and shows the status and the JSON", async () => {
      const hello = await post({ fn: "helloWorld", email: "", name: "" });
      expect(hello.status).toBe(200);
      const html = await hello.text();
      expect(textOf(html)).toContain("helloWorld succeeded.");
      expect(textOf(html)).toContain('"message": "Hello from Herald!"');

      const mailed = await post({ fn: "sendEmail", email: "page-test@example.com", name: "" });
      expect(mailed.status).toBe(200);
      expect(textOf(await mailed.text())).toContain("sendEmail succeeded.");
      const mail = await sink.waitFor((message) => message.to.includes("page-test@example.com"));
      expect(mail.html).toContain("editor@example.com");

      const added = await post({
        fn: "addSubscriber",
        email: "page-added@example.com",
        name: "Pat",
      });
      expect(textOf(await added.text())).toContain('"email": "page-added@example.com"');
      expect((await subscriberRow("page-added@example.com"))?.name).toBe("Pat");

      const failed = await post({ fn: "completeNewsletterSignup", email: "bad", name: "" });
      expect(failed.status).toBe(400);
      const failedText = textOf(await failed.text());
      expect(failedText).toContain(
        "completeNewsletterSignup failed: email: Invalid email format: bad",
      );
      expect(failedText).toContain('"status": "INVALID_ARGUMENT"');

      expect((await post({ fn: "getCampaigns" })).status).toBe(400);
    });
  });
});
