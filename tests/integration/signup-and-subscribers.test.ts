import { InsertQueryNode } from "kysely";
import Papa from "papaparse";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { migrateToLatest } from "../../server/db/migrate";
import { crossTenant } from "../../server/db/tenant-guard";
import { importSubscribersCsv } from "../../server/subscribers/import-write";
import { seedTenants } from "../../server/tenants/seed";
import { getTenant } from "../../server/tenants/store";
import { createStaffUser, signIn } from "../support/auth";
import { createTestDatabase, type TestDatabase, testDialects } from "../support/database";
import { textOf } from "../support/html";
import { type RunningServer, startServer } from "../support/server";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink";
import { scaled } from "../support/timing";

const SECRET = "signup-and-subscribers-secret-0123456789";
const THANKS = "Thanks! Please check your inbox — we've sent you an email about your subscription.";
const RATE_LIMITED = "Too many sign-up attempts. Please wait a few minutes and try again.";
const MAIL_FAILED = "We could not send the email. Please try again.";

type Fields = Record<string, string | string[]>;

function formBody(fields: Fields): URLSearchParams {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) {
    for (const item of Array.isArray(value) ? value : [value]) body.append(name, item);
  }
  return body;
}

const decode = (html: string) =>
  html
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#x27;/g, "'")
    .replace(/&amp;/g, "&");

/** The rows of the import report's "Refused rows" table: [row, email as given, reason]. */
function refusedRows(html: string): string[][] {
  const table = html.match(/Refused rows<\/caption>[\s\S]*?<\/table>/)?.[0] ?? "";
  return [...table.matchAll(/<tr[^>]*>(<td[\s\S]*?)<\/tr>/g)].map((row) =>
    [...(row[1] ?? "").matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((cell) =>
      decode((cell[1] ?? "").replace(/<!-- -->/g, "")),
    ),
  );
}

describe.each(testDialects())("newsletter sign-up and the subscriber admin on %s", (dialect) => {
  let database: TestDatabase;
  let sink: SmtpSink;
  let server: RunningServer;
  /** a second server on the same database without SMTP_URL: its mail stays in the outbox */
  let outboxServer: RunningServer;
  const cookies = { superAdmin: "", mainEditor: "", keyDiscoveryEditor: "" };
  let clientAddress = "";
  let clients = 0;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    await migrateToLatest(database.db);
    await seedTenants(database.db);
    // A tenant without double opt-in, so a sign-up is welcomed at once.
    const now = new Date().toISOString();
    await database.db
      .insertInto("tenants")
      .values({
        id: "quick",
        name: "Quick Brew",
        domain: null,
        description: "",
        mail_list_group_id: null,
        config: JSON.stringify({
          branding: { companyName: "Quick Brew Coffee Co" },
          features: { doubleOptIn: false },
        }),
        created_at: now,
        updated_at: now,
      })
      .execute();
    sink = await startSmtpSink();
    [server, outboxServer] = await Promise.all([
      startServer({
        databaseUrl: database.url,
        env: { SMTP_URL: sink.url, SESSION_SECRET: SECRET },
      }),
      startServer({ databaseUrl: database.url, env: { SESSION_SECRET: SECRET } }),
    ]);
    const users = {
      superAdmin: await createStaffUser(database.db, {
        email: "chief@example.com",
        role: "super_admin",
      }),
      mainEditor: await createStaffUser(database.db, {
        email: "main-editor@example.com",
        products: { main: true },
      }),
      keyDiscoveryEditor: await createStaffUser(database.db, {
        email: "kd-editor@example.com",
        products: { keydiscovery: true },
      }),
    };
    for (const key of Object.keys(cookies) as (keyof typeof cookies)[]) {
      cookies[key] = await signIn(server.url, users[key].email);
    }
  });

  afterAll(async () => {
    await server?.stop();
    await outboxServer?.stop();
    await sink?.stop();
    await database?.drop();
  });

  // Every test is its own visitor (the host trusts X-Forwarded-For from loopback).
  beforeEach(() => {
    clients += 1;
    clientAddress = `198.51.100.${clients}`;
    sink.answer = () => undefined;
  });

  const request = (
    path: string,
    options: {
      form?: Fields | FormData;
      cookie?: string;
      base?: string;
      address?: string;
    } = {},
  ) =>
    fetch(`${options.base ?? server.url}${path}`, {
      method: options.form ? "POST" : "GET",
      body:
        options.form instanceof FormData
          ? options.form
          : options.form
            ? formBody(options.form)
            : undefined,
      headers: {
        "x-forwarded-for": options.address ?? clientAddress,
        ...(options.cookie ? { cookie: options.cookie } : {}),
      },
      redirect: "manual",
    });

  const page = async (path: string, cookie?: string, base?: string) => {
    const response = await request(path, { cookie, base });
    const html = await response.text();
    return { status: response.status, html, text: decode(textOf(html)) };
  };

  const subscriber = (email: string, tenantId = "main") =>
    database.db
      .selectFrom("subscribers")
      .selectAll()
      .where("tenant_id", "=", tenantId)
      .where("email", "=", email)
      .executeTakeFirst();

  const listsOf = async (email: string, tenantId = "main") =>
    (
      await crossTenant(database.db)
        .selectFrom("subscriptions")
        .innerJoin("subscribers", "subscribers.id", "subscriptions.subscriber_id")
        .innerJoin("lists", "lists.id", "subscriptions.list_id")
        .select(["lists.key", "lists.tenant_id"])
        .where("subscribers.email", "=", email)
        .where("subscribers.tenant_id", "=", tenantId)
        .orderBy("lists.id")
        .execute()
    ).map((row) => `${row.tenant_id}:${row.key}`);

  const mailsTo = (email: string) => sink.messages.filter((mail) => mail.to.includes(email));

  /** Uploads a CSV; once the background import has ended, its report page. */
  const importCsv = async (csv: string, cookie: string, fileName = "people.csv") => {
    const form = new FormData();
    form.append("file", new Blob([csv], { type: "text/csv" }), fileName);
    const posted = await request("/admin/subscribers/imports", { form, cookie });
    const location = posted.headers.get("location") ?? "";
    if (posted.status !== 303 || !location.startsWith("/admin/subscribers/imports/")) return posted;
    const id = Number(location.split("/").pop());
    for (let waited = 0; ; waited += 50) {
      const job = await crossTenant(database.db)
        .selectFrom("subscriber_imports")
        .select("status")
        .where("id", "=", id)
        .executeTakeFirstOrThrow();
      if (job.status === "done" || job.status === "failed") break;
      if (waited > scaled(15_000)) throw new Error(`import ${id} still ${job.status}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return request(location, { cookie });
  };

  describe("the public sign-up", () => {
    it("shows the standalone page with the tenant's lists, the default one ticked", async () => {
      const { status, html, text } = await page("/newsletter/subscribe");
      expect(status).toBe(200);
      expect(text).toContain("Subscribe to our newsletters");
      expect(html).toMatch(/<form[^>]*action="\/newsletter\/subscribe"[^>]*method="post"/);
      const boxes = [...html.matchAll(/<input[^>]*type="checkbox"[^>]*>/g)].map((m) => m[0]);
      expect(boxes.map((tag) => tag.match(/value="([^"]*)"/)?.[1])).toEqual([
        "newsletter",
        "product-updates",
        "industry-news",
      ]);
      expect(boxes.filter((tag) => /\schecked=""/.test(tag))).toHaveLength(1);
      expect(boxes[0]).toMatch(/\schecked=""/);
      expect(text).toContain("KeyDiscovery Newsletter");
      expect(html).toMatch(/<button type="submit"[^>]*>Subscribe<\/button>/);
    });

    it("double opt-in: mails a confirmation, keeps the subscriber unconfirmed until the link is followed, then welcomes", async () => {
      const email = "casey@lawfirm.example";
      const response = await request("/newsletter/subscribe", {
        form: {
          email: " Casey@LawFirm.example ",
          name: "Casey",
          lists: ["newsletter", "industry-news"],
          chooseLists: "1",
        },
      });
      // Without JavaScript: post, then redirect to the thanks, so a reload does not post again.
      expect(response.status).toBe(303);
      expect(response.headers.get("location")).toBe("/newsletter/subscribe?done=1");
      expect((await page("/newsletter/subscribe?done=1")).text).toContain(THANKS);

      const confirm = await sink.waitFor((mail) => mail.to.includes(email));
      expect(confirm.subject).toBe("Please confirm your subscription to KeyDiscovery");
      expect((await subscriber(email))?.status).toBe("unconfirmed");
      expect(await listsOf(email)).toEqual(["main:newsletter", "main:industry-news"]);

      // The link in the mail (POST /subscription/confirm/{token}, built by the subscription pages).
      const link = new URL(
        confirm.text.match(/https?:\/\/\S+\/subscription\/confirm\/[^\s\])]+/)?.[0] ?? "",
      );
      expect(link.origin).toBe(server.url);
      const confirmed = await request(link.pathname, { form: {} });
      expect(confirmed.status).toBe(302);
      const row = await subscriber(email);
      expect(row?.status).toBe("active");
      expect(row?.name).toBe("Casey");

      const welcome = await sink.waitFor(
        (mail) => mail.to.includes(email) && mail.subject === "Welcome to our newsletter",
      );
      expect(welcome.headers.get("list-unsubscribe")).toMatch(
        /^<https?:\/\/\S+\/subscription\/one-click\/\S+>/,
      );
      expect(welcome.headers.get("list-unsubscribe-post")).toBe("List-Unsubscribe=One-Click");
      expect(welcome.text).toContain("Industry News");
    });

    it("answers a script's fetcher with data in place (no redirect)", async () => {
      const response = await request("/newsletter/subscribe.data", {
        form: { email: "fetcher@example.com", js: "1" },
      });
      expect(response.status).toBe(200);
      expect(await response.text()).toContain(THANKS);
      expect(await listsOf("fetcher@example.com")).toEqual(["main:newsletter"]);
    });

    it("without double opt-in welcomes at once: tenant branding, a text part, RFC 8058 headers", async () => {
      const email = "quick-reader@example.com";
      const response = await request("/newsletter/subscribe", {
        form: { email, lists: "product-updates", chooseLists: "1" },
        cookie: "herald_subdomain=quick",
      });
      expect(response.status).toBe(303);
      const welcome = await sink.waitFor((mail) => mail.to.includes(email));
      expect(welcome.subject).toBe("Welcome to our newsletter");
      expect(welcome.html).toContain("Quick Brew Coffee Co");
      expect(welcome.text).toContain("Quick Brew Updates");
      expect(welcome.text.length).toBeGreaterThan(50);
      expect(welcome.headers.get("list-unsubscribe")).toContain("/subscription/one-click/");
      expect(welcome.headers.get("list-unsubscribe")).toContain("mailto:");
      expect(welcome.headers.get("list-unsubscribe-post")).toBe("List-Unsubscribe=One-Click");
      expect((await subscriber(email, "quick"))?.status).toBe("active");

      // Signing up again: the same answer, one row, and an active subscriber is not mailed again.
      const again = await request("/newsletter/subscribe", {
        form: { email: "Quick-Reader@example.com" },
        cookie: "herald_subdomain=quick",
      });
      expect(again.status).toBe(303);
      expect(again.headers.get("location")).toBe(response.headers.get("location"));
      const thanks = await request(again.headers.get("location") ?? "", {
        cookie: "herald_subdomain=quick",
      });
      expect(textOf(await thanks.text())).toContain(THANKS);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(mailsTo(email)).toHaveLength(1);
      const rows = await crossTenant(database.db)
        .selectFrom("subscribers")
        .select("id")
        .where("email", "=", email)
        .execute();
      expect(rows).toHaveLength(1);
    });

    it("signing up twice while unconfirmed keeps one row and gives the same answer", async () => {
      const email = "twice@example.com";
      const first = await request("/newsletter/subscribe", { form: { email } });
      const second = await request("/newsletter/subscribe", {
        form: { email: "TWICE@example.com" },
      });
      expect([first.status, second.status]).toEqual([303, 303]);
      expect(second.headers.get("location")).toBe(first.headers.get("location"));
      const rows = await crossTenant(database.db)
        .selectFrom("subscribers")
        .select("id")
        .where("email", "=", email)
        .execute();
      expect(rows).toHaveLength(1);
    });

    it("refuses a malformed email with SPEC's message, keeps what was typed and stores nothing", async () => {
      const response = await request("/newsletter/subscribe", {
        form: { email: "dana@nodot", lists: "industry-news", chooseLists: "1" },
      });
      expect(response.status).toBe(400);
      const html = await response.text();
      expect(textOf(html)).toContain("Invalid email format: dana@nodot");
      expect(html).toMatch(/<input[^>]*name="email"[^>]*value="dana@nodot"/);
      expect(html).toMatch(/<input[^>]*name="lists"[^>]*checked=""[^>]*value="industry-news"/);
      expect(textOf(html)).not.toContain(THANKS);
      expect(await subscriber("dana@nodot")).toBeUndefined();
    });

    it("refuses unknown lists with 'No valid groups specified', and a full form with no list ticked", async () => {
      const bad = await request("/newsletter/subscribe", {
        form: { email: "lists@example.com", lists: ["nope", "9999"] },
      });
      expect(bad.status).toBe(400);
      expect(textOf(await bad.text())).toContain("No valid groups specified");
      const none = await request("/newsletter/subscribe", {
        form: { email: "lists@example.com", chooseLists: "1" },
      });
      expect(none.status).toBe(400);
      expect(textOf(await none.text())).toContain("Please choose at least one newsletter.");
      expect(await subscriber("lists@example.com")).toBeUndefined();
    });

    it("gives a filled honeypot a person's answer and stores and sends nothing", async () => {
      const response = await request("/newsletter/subscribe", {
        form: { email: "bot@example.com", website: "http://spam.example" },
      });
      expect(response.status).toBe(303);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await subscriber("bot@example.com")).toBeUndefined();
      expect(mailsTo("bot@example.com")).toHaveLength(0);
    });

    it("limits sign-ups per client address: the sixth in ten minutes is refused", async () => {
      for (let attempt = 1; attempt <= 5; attempt++) {
        const response = await request("/newsletter/subscribe", {
          form: { email: `burst-${attempt}@example.com`, js: "1" },
        });
        expect(response.status).toBe(200);
      }
      const refused = await request("/newsletter/subscribe", {
        form: { email: "burst-6@example.com" },
      });
      expect(refused.status).toBe(429);
      const text = textOf(await refused.text());
      expect(text).toContain(RATE_LIMITED);
      expect(text).not.toContain(THANKS);
      expect(await subscriber("burst-6@example.com")).toBeUndefined();
      // Another visitor is not affected.
      const other = await request("/newsletter/subscribe", {
        form: { email: "burst-6@example.com" },
        address: "203.0.113.77",
      });
      expect(other.status).toBe(303);
    });

    it("a mail server answering 451 gives the error, never the thanks", async () => {
      sink.answer = (recipient) => (recipient === "busy@example.com" ? 451 : undefined);
      const response = await request("/newsletter/subscribe", {
        form: { email: "busy@example.com", name: "Busy" },
      });
      expect(response.status).toBe(503);
      const html = await response.text();
      expect(textOf(html)).toContain(MAIL_FAILED);
      expect(textOf(html)).not.toContain(THANKS);
      expect(html).toMatch(/<input[^>]*name="email"[^>]*value="busy@example.com"/);
      const logged = await crossTenant(database.db)
        .selectFrom("mail_log")
        .selectAll()
        .where("to_address", "=", "busy@example.com")
        .executeTakeFirstOrThrow();
      expect(logged.status).toBe("failed");
      expect(logged.error).toContain("451");
      // Staff see it failed, with the attempts and the server's answer.
      const outbox = await page("/admin/outbox", cookies.mainEditor);
      expect(outbox.text).toMatch(/busy@example\.com [^@]* failed 1 attempt [^@]*451/);
    });

    it("a sign-up on the keydiscovery site lands in that tenant, on its lists", async () => {
      const form = await page("/newsletter/subscribe", "herald_subdomain=keydiscovery");
      expect(form.text).toContain("KeyDiscovery Legal Newsletter");
      const email = "legal-reader@example.com";
      const response = await request("/newsletter/subscribe", {
        form: { email, lists: ["newsletter", "industry-news"], chooseLists: "1" },
        cookie: "herald_subdomain=keydiscovery",
      });
      expect(response.status).toBe(303);
      expect(await subscriber(email, "keydiscovery")).toBeDefined();
      expect(await subscriber(email, "main")).toBeUndefined();
      expect(await listsOf(email, "keydiscovery")).toEqual([
        "keydiscovery:newsletter",
        "keydiscovery:industry-news",
      ]);
      const confirm = await sink.waitFor((mail) => mail.to.includes(email));
      expect(confirm.subject).toBe("Please confirm your subscription to KeyDiscovery Legal");
    });
  });

  describe("the subscriber admin", () => {
    it("sends anonymous visitors to sign in and refuses staff of another tenant", async () => {
      for (const path of [
        "/admin/subscribers",
        "/admin/subscribers/export.csv",
        "/admin/outbox",
        "/admin/outbox/1",
      ]) {
        const anonymous = await request(path);
        expect(anonymous.status, path).toBe(302);
        expect(anonymous.headers.get("location"), path).toBe(
          `/admin/login?redirectTo=${encodeURIComponent(path)}`,
        );
        const otherTenant = await request(path, { cookie: cookies.keyDiscoveryEditor });
        expect(otherTenant.status, path).toBe(403);
      }
      const before = await crossTenant(database.db)
        .selectFrom("subscribers")
        .select("id")
        .execute();
      const anonymousImport = await importCsv("email\nsneaky@example.com\n", "");
      expect(anonymousImport.status).toBe(302);
      const otherImport = await importCsv(
        "email\nsneaky@example.com\n",
        cookies.keyDiscoveryEditor,
      );
      expect(otherImport.status).toBe(403);
      expect(
        await crossTenant(database.db).selectFrom("subscribers").select("id").execute(),
      ).toHaveLength(before.length);
    });

    it("imports good rows, reports exactly the refused ones, and sends no mail", async () => {
      const mailsBefore = sink.messages.length;
      const csv = [
        "Email,Name,Lists,Status",
        "dana@lawfirm.example,Dana Whitfield,newsletter;industry-news,",
        "bad@nodot,Bad Address,,",
        "lee@corp.example,Lee,newsletter|unknown-list,",
        "DANA@lawfirm.example,Dana Again,,",
        ",No Email,newsletter,",
        'formula@example.com,"=HYPERLINK(""http://evil.example"",""x"")",,active',
        "html@example.com,<img src=x onerror=alert(1)>,product-updates|newsletter,",
        "left@example.com,Left Already,,unsubscribed",
        "odd@example.com,Odd,,pending",
        "",
      ].join("\r\n");
      const response = await importCsv(csv, cookies.mainEditor);
      expect(response.status).toBe(200);
      const html = await response.text();
      expect(textOf(html)).toContain("Imported 4 rows; refused 5 rows");
      expect(refusedRows(html)).toEqual([
        ["3", "bad@nodot", "Invalid email format: bad@nodot"],
        ["4", "lee@corp.example", "Unknown list: unknown-list"],
        ["5", "DANA@lawfirm.example", "Duplicate email (also on row 2)"],
        ["6", "—", "Missing email"],
        ["10", "odd@example.com", "Unknown status: pending (use active or unsubscribed)"],
      ]);
      expect(await listsOf("dana@lawfirm.example")).toEqual([
        "main:newsletter",
        "main:industry-news",
      ]);
      expect((await subscriber("dana@lawfirm.example"))?.name).toBe("Dana Whitfield");
      expect((await subscriber("formula@example.com"))?.name).toBe(
        '=HYPERLINK("http://evil.example","x")',
      );
      expect(await listsOf("formula@example.com")).toEqual(["main:newsletter"]);
      expect(await listsOf("html@example.com")).toEqual([
        "main:newsletter",
        "main:product-updates",
      ]);
      const left = await subscriber("left@example.com");
      expect(left?.status).toBe("unsubscribed");
      expect(await listsOf("left@example.com")).toEqual([]);
      for (const refused of ["bad@nodot", "lee@corp.example", "odd@example.com"]) {
        expect(await subscriber(refused)).toBeUndefined();
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(sink.messages.length).toBe(mailsBefore);

      // Names are shown as text, never as markup.
      const list = await page("/admin/subscribers?q=html%40example", cookies.mainEditor);
      expect(list.html).toContain("&lt;img src=x onerror=alert(1)&gt;");
      expect(list.html).not.toContain("<img src=x");
    });

    it("keeps people who unsubscribed unsubscribed unless their row says active", async () => {
      const kept = await importCsv(
        "email,name\nleft@example.com,Left Renamed\n",
        cookies.mainEditor,
      );
      expect(textOf(await kept.text())).toContain("1 row matched people who had unsubscribed");
      expect(await subscriber("left@example.com")).toMatchObject({
        status: "unsubscribed",
        name: "Left Renamed",
      });
      expect(await listsOf("left@example.com")).toEqual([]);

      await importCsv(
        "email,lists,status\nleft@example.com,industry-news,active\n",
        cookies.mainEditor,
      );
      expect((await subscriber("left@example.com"))?.status).toBe("active");
      expect(await listsOf("left@example.com")).toEqual(["main:industry-news"]);

      // A row saying 'unsubscribed' takes a known person off every list.
      await importCsv("email,status\nleft@example.com,unsubscribed\n", cookies.mainEditor);
      expect((await subscriber("left@example.com"))?.status).toBe("unsubscribed");
      expect(await listsOf("left@example.com")).toEqual([]);
    });

    it("writes a small import in one transaction: when a write fails, nothing is imported", async () => {
      const tenant = (await getTenant(database.db, "main")).config;
      await importSubscribersCsv(
        { db: database.db, tenant },
        "email,name,lists\natomic-known@example.com,Known,industry-news\n",
      );
      // The database refuses the memberships, the last write of an import.
      const failing = database.db.withPlugin({
        transformQuery({ node }) {
          if (InsertQueryNode.is(node) && node.into?.table.identifier.name === "subscriptions") {
            throw new Error("disk full");
          }
          return node;
        },
        transformResult: async ({ result }) => result,
      });
      await expect(
        importSubscribersCsv(
          { db: failing, tenant },
          "email,name,lists\natomic-new@example.com,New,newsletter\natomic-known@example.com,Renamed,product-updates\n",
        ),
      ).rejects.toThrow("disk full");
      expect(await subscriber("atomic-new@example.com")).toBeUndefined();
      expect((await subscriber("atomic-known@example.com"))?.name).toBe("Known");
      expect(await listsOf("atomic-known@example.com")).toEqual(["main:industry-news"]);
    });

    it("refuses a file without an email column, and an empty upload, importing nothing", async () => {
      const noColumn = await importCsv("name,lists\nSomeone,newsletter\n", cookies.mainEditor);
      expect(noColumn.status).toBe(400);
      expect(textOf(await noColumn.text())).toContain('The file has no "email" column.');
      const empty = await importCsv("", cookies.mainEditor);
      expect(empty.status).toBe(400);
      expect(textOf(await empty.text())).toContain("Choose a CSV file to import.");
    });

    it("counts per list and status, and searches by text, status and list", async () => {
      const statuses = await database.db
        .selectFrom("subscribers")
        .select("status")
        .where("tenant_id", "=", "main")
        .execute();
      const count = (status: string) => statuses.filter((row) => row.status === status).length;
      const { status, text } = await page("/admin/subscribers", cookies.mainEditor);
      expect(status).toBe(200);
      expect(text).toContain(
        `By status Total ${statuses.length} Active ${count("active")} Unconfirmed ${count("unconfirmed")} Unsubscribed ${count("unsubscribed")}`,
      );
      const activeOnIndustry = await crossTenant(database.db)
        .selectFrom("subscriptions")
        .innerJoin("subscribers", "subscribers.id", "subscriptions.subscriber_id")
        .innerJoin("lists", "lists.id", "subscriptions.list_id")
        .select("subscribers.id")
        .where("subscribers.status", "=", "active")
        .where("lists.tenant_id", "=", "main")
        .where("lists.key", "=", "industry-news")
        .execute();
      expect(text).toContain(`Industry News (industry-news) ${activeOnIndustry.length}`);
      // Another tenant's people are not counted or listed here.
      expect(text).not.toContain("legal-reader@example.com");

      const byName = await page("/admin/subscribers?q=WHITFIELD", cookies.mainEditor);
      expect(byName.text).toContain("1 subscriber match");
      expect(byName.text).toContain("dana@lawfirm.example");

      const unconfirmed = await page("/admin/subscribers?status=unconfirmed", cookies.mainEditor);
      expect(unconfirmed.text).toContain(`${count("unconfirmed")} subscribers match`);
      expect(unconfirmed.text).toContain("twice@example.com");
      expect(unconfirmed.text).not.toContain("dana@lawfirm.example");

      const onList = await page(
        "/admin/subscribers?list=product-updates&status=all",
        cookies.mainEditor,
      );
      expect(onList.text).toContain("html@example.com");
      expect(onList.text).not.toContain("dana@lawfirm.example");

      // LIKE wildcards are searched for as text.
      const wildcard = await page("/admin/subscribers?q=%25", cookies.mainEditor);
      expect(wildcard.text).toContain("No subscribers match this search.");
    });

    it("exports the filtered subscribers as CSV with formulas neutralised, and the export re-imports", async () => {
      const response = await request("/admin/subscribers/export.csv?status=active", {
        cookie: cookies.mainEditor,
      });
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
      expect(response.headers.get("content-disposition")).toMatch(
        /^attachment; filename="subscribers-main-\d{4}-\d{2}-\d{2}\.csv"$/,
      );
      const csv = await response.text();
      const parsed = Papa.parse<string[]>(csv.replace(/^\uFEFF/, ""), { skipEmptyLines: true });
      const [header, ...rows] = parsed.data;
      expect(header).toEqual(["email", "name", "status", "lists", "subscribed_at"]);
      const active = await database.db
        .selectFrom("subscribers")
        .select("email")
        .where("tenant_id", "=", "main")
        .where("status", "=", "active")
        .execute();
      expect(rows.map((row) => row[0]).sort()).toEqual(active.map((row) => row.email).sort());
      expect(rows.every((row) => row[2] === "active")).toBe(true);
      const formula = rows.find((row) => row[0] === "formula@example.com");
      expect(formula?.[1]).toBe('\'=HYPERLINK("http://evil.example","x")');
      expect(rows.find((row) => row[0] === "dana@lawfirm.example")?.[3]).toBe(
        "newsletter;industry-news",
      );
      // No cell a spreadsheet would run as a formula.
      for (const row of rows) for (const cell of row) expect(cell).not.toMatch(/^[=+\-@]/);

      const filtered = await request("/admin/subscribers/export.csv?q=whitfield", {
        cookie: cookies.mainEditor,
      });
      const filteredRows = Papa.parse<string[]>((await filtered.text()).replace(/^\uFEFF/, ""), {
        skipEmptyLines: true,
      }).data;
      expect(filteredRows.map((row) => row[0])).toEqual(["email", "dana@lawfirm.example"]);

      // Round trip: the export imported into the keydiscovery tenant gives the same people.
      const superAdminOnLegal = `${cookies.superAdmin}; herald_subdomain=keydiscovery`;
      const imported = await importCsv(csv, superAdminOnLegal, "export.csv");
      expect(textOf(await imported.text())).toContain(
        `Imported ${rows.length} rows; refused 0 rows`,
      );
      for (const row of rows) {
        const copy = await subscriber(row[0] ?? "", "keydiscovery");
        const original = await subscriber(row[0] ?? "", "main");
        expect(copy?.name, row[0]).toBe(original?.name);
        expect(copy?.status, row[0]).toBe("active");
        expect(
          (await listsOf(row[0] ?? "", "keydiscovery")).map((key) => key.split(":")[1]),
        ).toEqual((await listsOf(row[0] ?? "", "main")).map((key) => key.split(":")[1]));
      }
    });

    it("summarises unsubscribe feedback: a count per reason and the latest 'Other' texts as text", async () => {
      const now = Date.now();
      const feedback = [
        { reason: "Too many emails", details: null },
        { reason: "Too many emails", details: null },
        { reason: "Other", details: "<b>Moved</b> to a new firm" },
        { reason: "Other", details: "Newest: the issues are too long" },
      ];
      await database.db
        .insertInto("unsubscribe_feedback")
        .values([
          ...feedback.map((item, index) => ({
            tenant_id: "main",
            subscriber_id: null,
            reason: item.reason,
            details: item.details,
            created_at: new Date(now + index * 1000).toISOString(),
          })),
          {
            tenant_id: "keydiscovery",
            subscriber_id: null,
            reason: "Other",
            details: "Another tenant's answer",
            created_at: new Date(now + 9000).toISOString(),
          },
        ])
        .execute();
      const { html, text } = await page("/admin/subscribers", cookies.mainEditor);
      expect(text).toContain(
        "Too many emails 2 Content not relevant 0 Signed up by mistake 0 No longer interested 0 Other 2",
      );
      const newest = text.indexOf("Newest: the issues are too long");
      expect(newest).toBeGreaterThan(-1);
      expect(text.indexOf("<b>Moved</b> to a new firm")).toBeGreaterThan(newest);
      expect(html).toContain("&lt;b&gt;Moved&lt;/b&gt;");
      expect(text).not.toContain("Another tenant's answer");
    });
  });

  describe("the outbox", () => {
    it("without SMTP_URL keeps messages in mail_log as 'outbox', listed and readable by staff", async () => {
      const email = "outbox-reader@example.com";
      const response = await request("/newsletter/subscribe", {
        form: { email, js: "1" },
        base: outboxServer.url,
      });
      expect(response.status).toBe(200);
      const row = await crossTenant(database.db)
        .selectFrom("mail_log")
        .selectAll()
        .where("to_address", "=", email)
        .executeTakeFirstOrThrow();
      expect(row).toMatchObject({ status: "outbox", tenant_id: "main", kind: "confirm-signup" });
      expect(mailsTo(email)).toHaveLength(0);

      const list = await page("/admin/outbox", cookies.mainEditor, outboxServer.url);
      expect(list.status).toBe(200);
      expect(list.text).toContain("No mail server is configured");
      expect(list.text).toContain(email);
      expect(list.html).toContain(`href="/admin/outbox/${row.id}"`);
      // Newest first.
      expect(list.text.indexOf(email)).toBeLessThan(list.text.indexOf("casey@lawfirm.example"));

      const message = await page(`/admin/outbox/${row.id}`, cookies.mainEditor, outboxServer.url);
      expect(message.status).toBe(200);
      expect(message.text).toContain("Please confirm your subscription to KeyDiscovery");
      expect(message.text).toContain(row.message_id ?? "no message id");
      const iframe = message.html.match(/<iframe[^>]*>/)?.[0] ?? "";
      expect(iframe).toContain('sandbox=""');
      expect(iframe).toContain('title="Email preview"');
      // The HTML part is an attribute value, escaped: nothing of it runs as this page's markup.
      const srcDoc = decode(iframe.match(/srcDoc="([^"]*)"/i)?.[1] ?? "");
      expect(srcDoc).toBe(row.html);
      expect(message.html).toMatch(/<pre[^>]*>[\s\S]*\/subscription\/confirm\//);
    });

    it("shows a sent message with its List-Unsubscribe headers", async () => {
      const welcome = await crossTenant(database.db)
        .selectFrom("mail_log")
        .selectAll()
        .where("to_address", "=", "casey@lawfirm.example")
        .where("kind", "=", "welcome")
        .executeTakeFirstOrThrow();
      expect(welcome.status).toBe("sent");
      const message = await page(`/admin/outbox/${welcome.id}`, cookies.mainEditor);
      expect(message.text).toContain("List-Unsubscribe-Post List-Unsubscribe=One-Click");
      expect(message.text).toMatch(/List-Unsubscribe <http/);
    });

    it("answers 404 for another tenant's message and for ids that are not ids", async () => {
      const legal = await database.db
        .selectFrom("mail_log")
        .select("id")
        .where("tenant_id", "=", "keydiscovery")
        .executeTakeFirstOrThrow();
      const other = await request(`/admin/outbox/${legal.id}`, { cookie: cookies.superAdmin });
      expect(other.status).toBe(404);
      const own = await request(`/admin/outbox/${legal.id}`, {
        cookie: `${cookies.keyDiscoveryEditor}; herald_subdomain=keydiscovery`,
      });
      expect(own.status).toBe(200);
      for (const id of ["abc", "1e3", "99999999"]) {
        expect((await request(`/admin/outbox/${id}`, { cookie: cookies.superAdmin })).status).toBe(
          404,
        );
      }
    });
  });
});
