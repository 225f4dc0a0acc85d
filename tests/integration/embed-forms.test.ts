import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { migrateToLatest } from "../../server/db/migrate";
import { crossTenant } from "../../server/db/tenant-guard";
import { saveTenantSettings } from "../../server/tenants/admin";
import { seedTenants } from "../../server/tenants/seed";
import { getTenantView, settingsOf } from "../../server/tenants/views";
import { createStaffUser, signIn } from "../support/auth";
import { createTestDatabase, type TestDatabase, testDialects } from "../support/database";
import { formBody } from "../support/forms";
import { decodeHtml, textOf } from "../support/html";
import { type RunningServer, startServer } from "../support/server";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink";

/* Issue 35, target 6: the sign-up form on other sites (HTML snippet and iframe). */

const SECRET = "embed-forms-secret-0123456789abcdef";
const THANKS = "Thanks! Please check your inbox — we've sent you an email about your subscription.";
const RATE_LIMITED = "Too many sign-up attempts. Please wait a few minutes and try again.";
const REFUSED =
  "This sign-up form may only be used on the sites its publisher has allowed. Nothing was saved.";
const PARTNER = "https://www.partner.example";
const QUICK_SITE = "https://quick.example";

type Fields = Record<string, string | string[]>;

describe.each(testDialects())("embedded sign-up forms on %s", (dialect) => {
  let database: TestDatabase;
  let sink: SmtpSink;
  let server: RunningServer;
  let clientAddress = "";
  let clients = 0;
  const cookies = { mainEditor: "", quickEditor: "" };

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    await migrateToLatest(database.db);
    await seedTenants(database.db);
    const now = new Date().toISOString();
    await database.db
      .updateTable("tenants")
      .set({ config: JSON.stringify({ embedOrigins: [PARTNER] }) })
      .where("id", "=", "main")
      .execute();
    // A tenant without double opt-in, with its own allowed site.
    await database.db
      .insertInto("tenants")
      .values({
        id: "quick",
        name: "Quick Brew",
        domain: null,
        description: "",
        mail_list_group_id: null,
        config: JSON.stringify({
          features: { doubleOptIn: false },
          // Saved before issue 44 (finding 5): the two bad ones never reach the header.
          embedOrigins: [QUICK_SITE, "https://*", "'unsafe-inline'"],
        }),
        created_at: now,
        updated_at: now,
      })
      .execute();
    sink = await startSmtpSink();
    server = await startServer({
      databaseUrl: database.url,
      env: { SMTP_URL: sink.url, SESSION_SECRET: SECRET },
    });
    const mainEditor = await createStaffUser(database.db, {
      email: "main-editor@example.com",
      products: { main: true },
    });
    const quickEditor = await createStaffUser(database.db, {
      email: "quick-editor@example.com",
      products: { quick: true },
    });
    cookies.mainEditor = await signIn(server.url, mainEditor.email);
    cookies.quickEditor = await signIn(server.url, quickEditor.email);
  });

  afterAll(async () => {
    await server?.stop();
    await sink?.stop();
    await database?.drop();
  });

  beforeEach(() => {
    clients += 1;
    clientAddress = `198.51.100.${clients}`;
  });

  const post = (path: string, form: Fields, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, {
      method: "POST",
      body: formBody(form),
      headers: { "x-forwarded-for": clientAddress, ...headers },
      redirect: "manual",
    });
  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, { headers: { "x-forwarded-for": clientAddress, ...headers } });

  const subscriber = (email: string, tenantId = "main") =>
    database.db
      .selectFrom("subscribers")
      .selectAll()
      .where("tenant_id", "=", tenantId)
      .where("email", "=", email)
      .executeTakeFirst();
  const signedUpEvents = async (email: string, tenantId = "main") =>
    (
      await crossTenant(database.db)
        .selectFrom("subscriber_events")
        .innerJoin("subscribers", "subscribers.id", "subscriber_events.subscriber_id")
        .select("subscriber_events.detail")
        .where("subscribers.email", "=", email)
        .where("subscribers.tenant_id", "=", tenantId)
        .where("subscriber_events.kind", "=", "signed-up")
        .execute()
    ).map((row) => JSON.parse(row.detail) as Record<string, unknown>);
  const subscriberCount = async () =>
    Number(
      (
        await crossTenant(database.db)
          .selectFrom("subscribers")
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );

  describe("the HTML form posted from another site", () => {
    it("from an allowed site: double opt-in as configured, the consent record names the page", async () => {
      const email = "reader@partner.example";
      const response = await post(
        "/embed/subscribe",
        { email, name: "Rea Der", lists: "newsletter", website: "" },
        { origin: PARTNER, referer: `${PARTNER}/blog/why-subscribe?ref=1` },
      );
      expect(response.status).toBe(200);
      const html = await response.text();
      expect(textOf(html)).toContain(THANKS);
      // The way back to the page it came from, out of any frame.
      expect(html).toContain(`href="${PARTNER}/blog/why-subscribe?ref=1" target="_top"`);
      expect(response.headers.get("content-security-policy")).toContain(
        `frame-ancestors 'self' ${PARTNER}`,
      );
      expect((await subscriber(email))?.status).toBe("unconfirmed");
      const mail = await sink.waitFor((message) => message.to.includes(email));
      expect(mail.subject).toBe("Please confirm your subscription to KeyDiscovery");
      const [event] = await signedUpEvents(email);
      expect(event).toMatchObject({
        source: "embed",
        page: `${PARTNER}/blog/why-subscribe?ref=1`,
        clientAddress,
        lists: ["newsletter"],
        active: false,
      });
    });

    it("without a Referer (or one cut to the origin), the Origin is the page recorded", async () => {
      const email = "origin-only@partner.example";
      const response = await post("/embed/subscribe", { email }, { origin: PARTNER });
      expect(response.status).toBe(200);
      expect((await signedUpEvents(email))[0]).toMatchObject({ source: "embed", page: PARTNER });
      // A Referer alone (no Origin) from an allowed site is accepted too.
      const email2 = "referer-only@partner.example";
      const second = await post(
        "/embed/subscribe",
        { email: email2 },
        { referer: `${PARTNER}/join` },
      );
      expect(second.status).toBe(200);
      expect((await signedUpEvents(email2))[0]).toMatchObject({ page: `${PARTNER}/join` });
    });

    it("a tenant without double opt-in: active at once, welcomed, on its own allowed site only", async () => {
      const email = "fan@quick.example";
      const response = await post(
        "/embed/subscribe?subdomain=quick",
        { email },
        { origin: QUICK_SITE, referer: `${QUICK_SITE}/` },
      );
      expect(response.status).toBe(200);
      expect((await subscriber(email, "quick"))?.status).toBe("active");
      expect((await signedUpEvents(email, "quick"))[0]).toMatchObject({
        source: "embed",
        page: `${QUICK_SITE}/`,
        active: true,
      });
      // main's allowed site is not quick's.
      const before = await subscriberCount();
      const refused = await post(
        "/embed/subscribe?subdomain=quick",
        { email: "other@quick.example" },
        { origin: PARTNER },
      );
      expect(refused.status).toBe(403);
      expect(await subscriberCount()).toBe(before);
    });

    it("refuses any other origin with a clear 403 page, and writes nothing", async () => {
      const before = await subscriberCount();
      const refusedHeaders: Record<string, string>[] = [
        { origin: "https://evil.example", referer: `${PARTNER}/blog` },
        { origin: "https://partner.example" }, // not www
        { origin: "http://www.partner.example" }, // not https
        { referer: "https://evil.example/page" },
        { origin: "null" },
        // Decided: neither Origin nor Referer is refused (a browser sends one; scripts use the API).
        {},
      ];
      for (const headers of refusedHeaders) {
        const response = await post("/embed/subscribe", { email: "nobody@example.com" }, headers);
        expect(response.status, JSON.stringify(headers)).toBe(403);
        const text = textOf(await response.text());
        expect(text).toContain("This form cannot be used here");
        expect(text).toContain(REFUSED);
        expect(text).not.toContain(THANKS);
      }
      expect(await subscriberCount()).toBe(before);
      expect(sink.messages.some((mail) => mail.to.includes("nobody@example.com"))).toBe(false);
    });

    it("a filled honeypot gets a person's answer; nothing is stored or sent", async () => {
      const before = await subscriberCount();
      const response = await post(
        "/embed/subscribe",
        { email: "bot@example.com", website: "http://spam.example" },
        { origin: PARTNER },
      );
      expect(response.status).toBe(200);
      expect(textOf(await response.text())).toContain(THANKS);
      expect(await subscriberCount()).toBe(before);
      expect(await subscriber("bot@example.com")).toBeUndefined();
    });

    it("a bad email, HTML or another tenant's list: a clear error, nothing written", async () => {
      const before = await subscriberCount();
      const bad = await post("/embed/subscribe", { email: "not-an-email" }, { origin: PARTNER });
      expect(bad.status).toBe(400);
      const badText = textOf(await bad.text());
      expect(badText).toMatch(/email/i);
      expect(badText).not.toContain(THANKS);
      const html = await post(
        "/embed/subscribe",
        { email: "<script>alert(1)</script>@example.com" },
        { origin: PARTNER },
      );
      expect(html.status).toBe(400);
      expect(await html.text()).not.toContain("<script>alert(1)");

      // keydiscovery's list, named by id and by key-with-id: not one of main's lists.
      await get("/newsletter/subscribe?subdomain=keydiscovery");
      const theirs = await crossTenant(database.db)
        .selectFrom("lists")
        .select("id")
        .where("tenant_id", "=", "keydiscovery")
        .executeTakeFirstOrThrow();
      const foreign = await post(
        "/embed/subscribe",
        { email: "list-thief@example.com", lists: String(theirs.id), chooseLists: "1" },
        { origin: PARTNER },
      );
      expect(foreign.status).toBe(400);
      expect(textOf(await foreign.text())).not.toContain(THANKS);
      expect(await subscriberCount()).toBe(before);
    });

    it("is rate limited like the site's own sign-up (shared allowance per client address)", async () => {
      // Two on the site's own form, three here: the sixth is refused.
      for (let n = 1; n <= 2; n += 1) {
        expect(
          (await post("/newsletter/subscribe", { email: `own-${n}@example.com` })).status,
        ).toBe(303);
      }
      for (let n = 1; n <= 3; n += 1) {
        const ok = await post(
          "/embed/subscribe",
          { email: `burst-${n}@example.com` },
          { origin: PARTNER },
        );
        expect(ok.status).toBe(200);
      }
      const refused = await post(
        "/embed/subscribe",
        { email: "burst-4@example.com" },
        { origin: PARTNER },
      );
      expect(refused.status).toBe(429);
      expect(textOf(await refused.text())).toContain(RATE_LIMITED);
      expect(await subscriber("burst-4@example.com")).toBeUndefined();
    });
  });

  describe("the cross-site write refusal", () => {
    it("lets exactly /embed/subscribe through, and only the route decides", async () => {
      for (const path of [
        "/newsletter/subscribe",
        "/embed/subscribe.data",
        "/embed/subscribe/",
        "/embed/form",
        "/subscription/unsubscribe",
      ]) {
        const response = await post(path, { email: "cross@example.com" }, { origin: PARTNER });
        expect(response.status, path).toBe(403);
        expect(await response.text(), path).toBe("Cross-site requests are not allowed.");
      }
      expect(await subscriber("cross@example.com")).toBeUndefined();
      expect((await get("/embed/subscribe")).status).toBe(405);
    });
  });

  describe("the iframe", () => {
    it("/embed/form: the tenant's colours, no script, framed only by its allowed sites", async () => {
      const response = await get("/embed/form", { referer: `${PARTNER}/landing` });
      expect(response.status).toBe(200);
      const csp = response.headers.get("content-security-policy") ?? "";
      expect(csp).toContain(`frame-ancestors 'self' ${PARTNER}`);
      expect(csp).toContain("default-src 'none'");
      expect(response.headers.get("x-frame-options")).toBeNull();
      const html = await response.text();
      expect(html).not.toMatch(/<script/i);
      expect(html).toContain("--brand-primary:#4a90e2");
      expect(html).toMatch(/<form[^>]*action="\/embed\/subscribe"[^>]*method="post"/);
      expect(html).toContain(`name="page" value="${PARTNER}/landing"`);
      expect(html).toContain('name="website"');
      // main offers three lists: the visitor chooses.
      expect([...html.matchAll(/type="checkbox" name="lists"/g)]).toHaveLength(3);
      expect(html).not.toContain("Skip to content");

      // Another site's Referer is not put in the form.
      const elsewhere = await (
        await get("/embed/form", { referer: "https://evil.example/" })
      ).text();
      expect(elsewhere).not.toContain('name="page"');

      // Another tenant's frame names its own sites, not main's.
      const quick = await get("/embed/form?subdomain=quick");
      const quickCsp = quick.headers.get("content-security-policy") ?? "";
      expect(quickCsp).toContain(`frame-ancestors 'self' ${QUICK_SITE};`);
      expect(quickCsp).not.toContain(PARTNER);
      expect(await quick.text()).toContain('action="/embed/subscribe?subdomain=quick"');
    });

    it("a post from the frame records the page around it; other pages still refuse framing", async () => {
      const email = "framed@partner.example";
      const response = await post(
        "/embed/subscribe",
        { email, page: `${PARTNER}/landing` },
        { origin: server.url, referer: `${server.url}/embed/form` },
      );
      expect(response.status).toBe(200);
      expect((await signedUpEvents(email))[0]).toMatchObject({ page: `${PARTNER}/landing` });
      // A forged page field naming another site is not recorded.
      const forged = "forged@partner.example";
      await post(
        "/embed/subscribe",
        { email: forged, page: "https://evil.example/x" },
        { origin: server.url, referer: `${server.url}/embed/form` },
      );
      expect((await signedUpEvents(forged))[0]?.page).toBe(`${server.url}/embed/form`);

      for (const path of [
        "/",
        "/newsletter/subscribe",
        "/admin/login",
        "/subscription/unsubscribe",
      ]) {
        const page = await get(path);
        expect(page.headers.get("content-security-policy"), path).toContain(
          "frame-ancestors 'none'",
        );
        expect(page.headers.get("x-frame-options"), path).toBe("SAMEORIGIN");
      }
    });
  });

  describe("the staff page", () => {
    it("shows the code, saves normalised sites, refuses bad ones and other tenants' staff", async () => {
      const page = await fetch(`${server.url}/admin/embed`, {
        headers: { cookie: cookies.mainEditor },
      });
      expect(page.status).toBe(200);
      const html = decodeHtml(await page.text());
      expect(html).toContain("Sign-up forms");
      expect(html).toContain(`<form method="post" action="${server.url}/embed/subscribe"`);
      expect(html).toContain(`<iframe src="${server.url}/embed/form"`);
      expect(html).toContain(PARTNER);

      const save = (sites: string, cookie = cookies.mainEditor, path = "/admin/embed") =>
        fetch(`${server.url}${path}`, {
          method: "POST",
          body: formBody({ sites }),
          headers: { cookie, origin: server.url },
          redirect: "manual",
        });
      const bad = await save(`${PARTNER}\nhttps://shop.example/path`);
      expect(bad.status).toBe(400);
      expect(decodeHtml(await bad.text())).toContain(
        '"https://shop.example/path" is not a site\'s address.',
      );
      // Issue 44, finding 5: wildcards, escapes, braces and quotes are not sites.
      for (const site of ["*", "https://*", "https://%2a.example", "{}", `"${PARTNER}"`]) {
        const refused = await save(site);
        expect(refused.status, site).toBe(400);
        expect(decodeHtml(await refused.text()), site).toContain(
          `"${site}" is not a site's address.`,
        );
      }
      const tooMany = await save(
        Array.from({ length: 21 }, (_, n) => `https://s${n}.example`).join("\n"),
      );
      expect(tooMany.status).toBe(400);
      expect(decodeHtml(await tooMany.text())).toContain("At most 20 sites.");
      // Unchanged after refusals.
      expect((await get("/embed/form")).headers.get("content-security-policy")).toContain(
        `frame-ancestors 'self' ${PARTNER};`,
      );

      const saved = await save(
        `${PARTNER}/\n  SHOP.Example:443 , http://localhost:8080\n${PARTNER}`,
      );
      expect(saved.status).toBe(303);
      const row = await database.db
        .selectFrom("tenants")
        .select("config")
        .where("id", "=", "main")
        .executeTakeFirstOrThrow();
      expect(JSON.parse(row.config).embedOrigins).toEqual([
        PARTNER,
        "https://shop.example",
        "http://localhost:8080",
      ]);
      const csp = (await get("/embed/form")).headers.get("content-security-policy") ?? "";
      expect(csp).toContain(
        `frame-ancestors 'self' ${PARTNER} https://shop.example http://localhost:8080`,
      );
      // The new site may post now.
      const fromShop = await post(
        "/embed/subscribe",
        { email: "shopper@example.com" },
        { origin: "https://shop.example" },
      );
      expect(fromShop.status).toBe(200);

      // The tenant manager's Save (every other setting) keeps them.
      const view = await getTenantView(database.db, "main");
      await saveTenantSettings(database.db, "chief@example.com", "main", {
        ...settingsOf(view),
        description: "Changed in the tenant manager",
      });
      expect((await getTenantView(database.db, "main")).embedOrigins).toEqual([
        PARTNER,
        "https://shop.example",
        "http://localhost:8080",
      ]);

      // quick's editor may not change main's sites (this site is main's).
      const other = await save("https://evil.example", cookies.quickEditor);
      expect(other.status).toBe(403);
      const after = await database.db
        .selectFrom("tenants")
        .select("config")
        .where("id", "=", "main")
        .executeTakeFirstOrThrow();
      expect(JSON.parse(after.config).embedOrigins).not.toContain("https://evil.example");
    });
  });
});
