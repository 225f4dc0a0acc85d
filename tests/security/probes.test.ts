import { createHmac } from "node:crypto";
import { createServer, type Server } from "node:http";
import { type Browser, chromium } from "@playwright/test";
import { Secret, TOTP } from "otpauth";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken, revokeApiToken } from "../../server/auth/api-tokens";
import { confirmEnrolment, signChallenge, startEnrolment } from "../../server/auth/two-factor";
import { migrateToLatest } from "../../server/db/migrate";
import { crossTenant } from "../../server/db/tenant-guard";
import { signToken } from "../../server/mail/tokens";
import { smtpTransport, type Transport } from "../../server/mail/transport";
import { createNewsletter } from "../../server/newsletters/editing";
import { publishNewsletter } from "../../server/newsletters/newsletters";
import { saveWebhookSecret } from "../../server/providers/mailerlite-webhook";
import { listTenantLists } from "../../server/subscribers/lists";
import { requestPreferenceChange } from "../../server/subscribers/preferences";
import type { SubscriptionContext } from "../../server/subscribers/subscribers";
import { seedTenants } from "../../server/tenants/seed";
import { getTenant } from "../../server/tenants/store";
import { TOKEN_SCOPES } from "../../shared/schemas/api-tokens";
import { callApi } from "../support/api";
import { createStaffUser, signIn, TEST_PASSWORD } from "../support/auth";
import { CHROMIUM_ARGS, requireChromium } from "../support/chromium";
import { createTestDatabase, type TestDatabase } from "../support/database";
import { textOf } from "../support/html";
import { freePort, type RunningServer, startServer } from "../support/server";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink";
import { insertSubscriber } from "../support/subscribers";
import { scaled } from "../support/timing";

/*
 * Issue 14, point 9: what an attacker would try against a running Herald, each probe an attack
 * that must fail. Real server, real database, real SMTP sink, real Chromium. The README counts
 * these probes (with route-access.test.ts beside this file: every route as a stranger).
 */

const SECRET = "security-probes-secret-0123456789abcdef";
const WEBHOOK_SECRET = { main: "ml-secret-main-probe", keydiscovery: "ml-secret-kd-probe" };

/** Markup that runs script if any page renders it as HTML: each variant calls alert(). */
const XSS_SHORT = `"><img src=x onerror=alert(1)><script>alert(2)</script>`;
const XSS_LONG = [
  XSS_SHORT,
  `<svg onload=alert(3)></svg>`,
  `<a href="javascript:alert(4)">click</a>`,
  `<iframe srcdoc="<script>parent.alert(5)</script>"></iframe>`,
  `<div style="background:url(javascript:alert(6))" onmouseover="alert(7)">x</div>`,
  `'; alert(8); //`,
].join("\n");

describe("security probes", () => {
  let database: TestDatabase;
  let sink: SmtpSink;
  let server: RunningServer;
  let transport: Transport;
  let ctx: SubscriptionContext;
  let rootCookie = "";
  let kdCookie = "";
  let clients = 0;
  const lists: Record<string, number> = {};

  /** A new client address per call: only the probes about per-address limits share one. */
  const nextClient = () => {
    clients += 1;
    return `198.18.${Math.floor(clients / 250)}.${clients % 250}`;
  };

  const post = (
    path: string,
    fields: Record<string, string>,
    headers: Record<string, string> = {},
  ) =>
    fetch(`${server.url}${path}`, {
      method: "POST",
      body: new URLSearchParams(fields),
      headers: { "x-forwarded-for": nextClient(), ...headers },
      redirect: "manual",
    });
  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, {
      headers: { "x-forwarded-for": nextClient(), ...headers },
      redirect: "manual",
    });

  const subscriberRow = (email: string, tenantId = "main") =>
    crossTenant(database.db)
      .selectFrom("subscribers")
      .select(["id", "status"])
      .where("tenant_id", "=", tenantId)
      .where("email", "=", email)
      .executeTakeFirstOrThrow();
  const tokenFor = (
    purpose: "unsubscribe" | "preferences",
    subscriberId: number,
    extra: { tenantId?: string; expiresAt?: number } = {},
  ) => signToken(SECRET, { purpose, tenantId: extra.tenantId ?? "main", subscriberId, ...extra });

  beforeAll(async () => {
    database = await createTestDatabase("sqlite");
    await migrateToLatest(database.db);
    await seedTenants(database.db);
    const mainTenant = (await getTenant(database.db, "main")).config;
    for (const list of await listTenantLists(database.db, mainTenant)) lists[list.key] = list.id;
    for (const email of ["victim@example.com", "reader@example.com", "hook@example.com"]) {
      await insertSubscriber(database.db, { email, listIds: [lists.newsletter as number] });
    }
    await insertSubscriber(database.db, { email: "left@example.com", status: "unsubscribed" });
    await insertSubscriber(database.db, { email: "hook@example.com", tenantId: "keydiscovery" });
    await saveWebhookSecret(database.db, "main", WEBHOOK_SECRET.main, "staff@example.com");
    await saveWebhookSecret(database.db, "keydiscovery", WEBHOOK_SECRET.keydiscovery, "staff");
    await createStaffUser(database.db, { email: "root@example.com", role: "super_admin" });
    await createStaffUser(database.db, {
      email: "kd-editor@example.com",
      products: { keydiscovery: true },
    });
    sink = await startSmtpSink();
    server = await startServer({
      databaseUrl: database.url,
      env: { SMTP_URL: sink.url, SESSION_SECRET: SECRET },
    });
    transport = smtpTransport(sink.url);
    ctx = {
      db: database.db,
      logger: pino({ level: "silent" }),
      transport,
      tenant: mainTenant,
      origin: server.url,
      sessionSecret: SECRET,
    };
    rootCookie = await signIn(server.url, "root@example.com");
    kdCookie = await signIn(server.url, "kd-editor@example.com");
  });

  afterAll(async () => {
    transport?.close();
    await server?.stop();
    await sink?.stop();
    await database?.drop();
  });

  describe("subscribers' privacy", () => {
    it("a script that knows an address cannot unsubscribe it, from any number of client addresses", async () => {
      for (let attempt = 0; attempt < 25; attempt++) {
        const response = await post("/subscription/unsubscribe", {
          intent: "unsubscribe",
          email: "victim@example.com",
        });
        expect(response.status).toBe(302);
      }
      expect((await subscriberRow("victim@example.com")).status).toBe("active");
      // The owner's inbox got at most three links for it.
      const links = () => sink.messages.filter((mail) => mail.to.includes("victim@example.com"));
      // All three, however slow the machine; then a moment in which a fourth would show.
      await sink.waitFor(() => links().length >= 3);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(links().length).toBe(3);
    });

    it("the unsubscribe and preference pages answer a subscriber, a stranger and a leaver alike", async () => {
      const answers = new Set<string>();
      for (const email of ["reader@example.com", "stranger@example.com", "left@example.com"]) {
        for (const [path, intent] of [
          ["/subscription/unsubscribe", "unsubscribe"],
          ["/subscription/preferences", "lookup"],
        ] as const) {
          const response = await post(path, { intent, email });
          answers.add(`${path} ${response.status} ${response.headers.get("location")}`);
        }
        for (const path of ["/subscription/preferences", "/subscription/unsubscribe"]) {
          const html = await (await get(`${path}?email=${encodeURIComponent(email)}`)).text();
          // Nonces and the address itself aside, the same page.
          const anonymised = html
            .replaceAll(email, "ADDRESS")
            .replaceAll(encodeURIComponent(email), "ADDRESS");
          answers.add(`${path} ${textOf(anonymised)}`);
        }
      }
      expect(answers.size).toBe(4);
    });

    it("anonymous getSubscriber tells nothing without that subscriber's own signed link", async () => {
      const reader = await subscriberRow("reader@example.com");
      const kd = await subscriberRow("hook@example.com", "keydiscovery");
      const attempts = [
        { email: "reader@example.com" },
        { email: "stranger@example.com" },
        { email: "left@example.com", token: tokenFor("preferences", reader.id) },
        { email: "reader@example.com", token: `${tokenFor("preferences", reader.id)}x` },
        { email: "reader@example.com", token: tokenFor("unsubscribe", reader.id) },
        {
          email: "reader@example.com",
          token: tokenFor("preferences", reader.id, { expiresAt: Date.now() - 1 }),
        },
        {
          email: "hook@example.com",
          token: tokenFor("preferences", kd.id, { tenantId: "keydiscovery" }),
        },
      ];
      const bodies = new Set<string>();
      for (const data of attempts) {
        const response = await callApi(server.url, "/api/functions/getSubscriber", {
          method: "POST",
          json: { data },
          headers: { "x-forwarded-for": nextClient() },
        });
        expect(response.status).toBe(403);
        bodies.add(response.text);
      }
      expect(bodies.size).toBe(1);
    });

    it("forged, expired and foreign unsubscribe tokens change nothing, on the page and one-click", async () => {
      const victim = await subscriberRow("victim@example.com");
      const bad = [
        `${tokenFor("unsubscribe", victim.id).slice(0, -3)}abc`,
        tokenFor("unsubscribe", victim.id, { expiresAt: Date.now() - 1 }),
        tokenFor("unsubscribe", victim.id, { tenantId: "keydiscovery" }),
        tokenFor("preferences", victim.id),
        signToken("not-the-secret-0123456789abcdef0123", {
          purpose: "unsubscribe",
          tenantId: "main",
          subscriberId: victim.id,
        }),
      ];
      for (const token of bad) {
        expect((await post("/subscription/unsubscribe", { intent: "confirm", token })).status).toBe(
          400,
        );
        const oneClick = await post(`/subscription/one-click/${token}`, {
          "List-Unsubscribe": "One-Click",
        });
        expect(oneClick.status).toBe(400);
      }
      expect((await subscriberRow("victim@example.com")).status).toBe("active");
    });

    it("a replayed feedback form stores one answer per unsubscribe", async () => {
      const id = await insertSubscriber(database.db, { email: "replay@example.com" });
      const confirmed = await post("/subscription/unsubscribe", {
        intent: "confirm",
        token: tokenFor("unsubscribe", id),
      });
      const done = new URL(confirmed.headers.get("location") ?? "", server.url);
      await Promise.all(
        Array.from({ length: 6 }, () =>
          post(`${done.pathname}${done.search}`, {
            intent: "feedback",
            done: done.searchParams.get("done") ?? "",
            reason: "Too many emails",
          }),
        ),
      );
      const stored = await crossTenant(database.db)
        .selectFrom("unsubscribe_feedback")
        .select("id")
        .where("subscriber_id", "=", id)
        .execute();
      expect(stored).toHaveLength(1);
    });

    it("a used or guessed preference-change link cannot be applied", async () => {
      const before = sink.messages.length;
      await requestPreferenceChange(ctx, { email: "reader@example.com", activeLists: [] });
      const mail = await sink.waitFor(
        (m) => m.to.includes("reader@example.com") && sink.messages.indexOf(m) >= before,
      );
      const link = new URL(
        mail.text.match(/http[^\s\])]+\/subscription\/preferences\?[^\s\])]+/)?.[0] ?? "",
      );
      const token = link.searchParams.get("token") ?? "";
      const apply = (value: string) =>
        post("/subscription/preferences", {
          intent: "apply",
          email: "reader@example.com",
          token: value,
        });
      expect((await apply(`${token.slice(0, -4)}AAAA`)).status).toBe(400);
      expect((await apply(token)).status).toBe(302);
      expect((await apply(token)).status).toBe(400);
    });
  });

  describe("staff sign-in and tokens", () => {
    it("wrong passwords from one place never lock the owner out from another", async () => {
      const attacker = "203.0.113.66";
      for (let attempt = 0; attempt < 20; attempt++) {
        await post(
          "/admin/login",
          { email: "root@example.com", password: `guess-${attempt}` },
          { "x-forwarded-for": attacker },
        );
      }
      const owner = await post(
        "/admin/login",
        { email: "root@example.com", password: TEST_PASSWORD },
        { "x-forwarded-for": "192.0.2.10" },
      );
      expect(owner.status).toBe(302);
      expect(owner.headers.get("location")).toBe("/admin/dashboard");
    });

    it("a forged or tampered session cookie opens no staff page or API", async () => {
      const real = rootCookie.split("=")[1] ?? "";
      for (const cookie of [
        "herald_session=forged",
        `herald_session=${real.slice(0, -4)}AAAA`,
        `herald_session=${"A".repeat(real.length)}`,
      ]) {
        const page = await get("/admin/dashboard", { cookie });
        expect(page.status).toBe(302);
        expect(page.headers.get("location")).toMatch(/^\/admin\/login/);
        const api = await callApi(server.url, "/api/tenants", { cookie });
        expect(api.status).toBe(401);
      }
    });

    it("an API token does only what its scopes allow, and not after revocation or expiry", async () => {
      const user = await createStaffUser(database.db, {
        email: "scripts@example.com",
        role: "super_admin",
      });
      const read = await createApiToken(database.db, user, "read only", {
        scopes: ["read"],
      });
      const call = (token: string, name: string, data: unknown) =>
        callApi(server.url, `/api/functions/${name}`, { method: "POST", token, json: { data } });
      expect((await call(read.token, "getAllGroups", {})).status).toBe(200);
      const sent = await call(read.token, "sendEmail", {
        to: "x@example.com",
        subject: "Hi",
        content: "<p>Hi</p>",
      });
      expect(sent.status).toBe(403);
      const changed = await callApi(server.url, "/api/tenants/main/branding", {
        method: "PATCH",
        token: read.token,
        json: { companyName: "Owned" },
      });
      expect(changed.status).toBe(403);

      const all = await createApiToken(database.db, user, "all", { scopes: TOKEN_SCOPES });
      await revokeApiToken(database.db, all.id);
      expect((await call(all.token, "getAllGroups", {})).status).toBe(401);
      const expiring = await createApiToken(database.db, user, "old", {
        scopes: TOKEN_SCOPES,
      });
      await crossTenant(database.db)
        .updateTable("api_tokens")
        .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
        .where("id", "=", expiring.id)
        .execute();
      expect((await call(expiring.token, "getAllGroups", {})).status).toBe(401);
      expect((await call(`${read.token}x`, "getAllGroups", {})).status).toBe(401);
    });
  });

  describe("staff links and the second factor", () => {
    it("a password-reset link cannot be forged, replayed or used after its hour", async () => {
      await createStaffUser(database.db, { email: "probe-staff@example.com", products: {} });
      const before = sink.messages.length;
      await post("/admin/forgot-password", { email: "probe-staff@example.com" });
      const mail = await sink.waitFor(
        (m) => m.to.includes("probe-staff@example.com") && sink.messages.indexOf(m) >= before,
      );
      const link = mail.text.match(/\/admin\/reset-password\/[A-Za-z0-9_-]+/)?.[0] ?? "";
      const choose = (path: string, password: string) =>
        post(path, { password, confirmPassword: password }, { origin: server.url });
      expect((await choose(`${link.slice(0, -2)}xx`, "forged reset passphrase 1")).status).toBe(
        400,
      );
      expect((await choose(link, "the owner's new passphrase")).status).toBe(302);
      expect((await choose(link, "an attacker's passphrase 2")).status).toBe(400);
      await signIn(server.url, "probe-staff@example.com", "the owner's new passphrase");
    });

    it("the second factor cannot be skipped with the challenge, a forged one, or an old one", async () => {
      const user = await createStaffUser(database.db, {
        email: "probe-2fa@example.com",
        role: "super_admin",
      });
      const { secret } = await startEnrolment(database.db, user, "Probe");
      const code = new TOTP({
        secret: Secret.fromBase32(secret),
        digits: 6,
        period: 30,
      }).generate();
      expect(await confirmEnrolment(database.db, user.id, code)).toHaveLength(10);
      const passwordStep = await post("/admin/login", {
        email: "probe-2fa@example.com",
        password: TEST_PASSWORD,
      });
      expect(passwordStep.headers.get("location")).toBe("/admin/login/two-factor");
      const challenge =
        passwordStep.headers
          .getSetCookie()
          .find((cookie) => cookie.startsWith("herald_2fa="))
          ?.split(";")[0] ?? "";
      const forged = [
        challenge,
        `herald_2fa=${signChallenge("not-the-secret-0123456789abcdef0123", user.id)}`,
        `herald_2fa=${signChallenge(SECRET, user.id, Date.now() - 10 * 60_000)}`,
        `herald_session=${challenge.split("=")[1]}`,
      ];
      for (const cookie of forged) {
        const page = await get("/admin/dashboard", { cookie });
        expect(page.status).toBe(302);
        expect(page.headers.get("location")).toMatch(/^\/admin\/login/);
        expect((await callApi(server.url, "/api/tenants", { cookie })).status).toBe(401);
      }
      for (const cookie of forged.slice(1, 3)) {
        const step = await post("/admin/login/two-factor", { code: "123456" }, { cookie });
        expect(step.headers.get("location")).toBe("/admin/login");
      }
    });
  });

  describe("webhooks", () => {
    const hook = (tenantId: string, body: unknown, secret: string) => {
      const raw = JSON.stringify(body);
      return fetch(`${server.url}/api/webhooks/mailerlite/${tenantId}`, {
        method: "POST",
        body: raw,
        headers: {
          "content-type": "application/json",
          signature: createHmac("sha256", secret).update(raw).digest("hex"),
        },
      });
    };

    it("a body signed for one tenant, replayed at another tenant's URL or host, changes nothing there", async () => {
      const event = {
        event: "subscriber.unsubscribed",
        email: "hook@example.com",
        updated_at: new Date().toISOString(),
      };
      expect((await hook("keydiscovery", event, WEBHOOK_SECRET.main)).status).toBe(401);
      const viaHost = await fetch(
        `${server.url}/api/webhooks/mailerlite/keydiscovery?subdomain=main`,
        {
          method: "POST",
          body: JSON.stringify(event),
          headers: {
            "content-type": "application/json",
            signature: createHmac("sha256", WEBHOOK_SECRET.main)
              .update(JSON.stringify(event))
              .digest("hex"),
          },
        },
      );
      expect(viaHost.status).toBe(401);
      expect((await subscriberRow("hook@example.com", "keydiscovery")).status).toBe("active");
    });

    it("a replayed event is applied once", async () => {
      const event = {
        id: "evt-probe-1",
        type: "subscriber.unsubscribed",
        data: { subscriber: { email: "hook@example.com" } },
        timestamp: Math.floor(Date.now() / 1000),
      };
      expect(await (await hook("main", event, WEBHOOK_SECRET.main)).json()).toEqual({
        applied: 1,
        replayed: 0,
      });
      await crossTenant(database.db)
        .updateTable("subscribers")
        .set({ status: "active" })
        .where("tenant_id", "=", "main")
        .where("email", "=", "hook@example.com")
        .execute();
      expect(await (await hook("main", event, WEBHOOK_SECRET.main)).json()).toEqual({
        applied: 0,
        replayed: 1,
      });
      expect((await subscriberRow("hook@example.com")).status).toBe("active");
    });
  });

  describe("request handling", () => {
    it("oversized chunked bodies (no Content-Length) answer 413 on pages, APIs and uploads", async () => {
      const chunked = (path: string, contentType: string, size: number) =>
        fetch(`${server.url}${path}`, {
          method: "POST",
          headers: { "content-type": contentType, cookie: rootCookie, origin: server.url },
          body: new ReadableStream({
            start(controller) {
              const chunk = new Uint8Array(64 * 1024).fill(120);
              for (let sent = 0; sent < size; sent += chunk.length) controller.enqueue(chunk);
              controller.close();
            },
          }),
          duplex: "half",
          redirect: "manual",
        } as RequestInit);
      const outputBefore = server.output().length;
      for (const [path, type, size] of [
        ["/contact", "application/x-www-form-urlencoded", 2_000_000],
        ["/admin/login", "application/x-www-form-urlencoded", 2_000_000],
        ["/api/functions/helloWorld", "application/json", 2_000_000],
        ["/subscription/unsubscribe", "application/x-www-form-urlencoded", 2_000_000],
        ["/admin/uploads", "multipart/form-data; boundary=x", 8_000_000],
      ] as const) {
        expect((await chunked(path, type, size)).status, path).toBe(413);
      }
      expect(server.output().slice(outputBefore)).not.toMatch(/unhandled error|at .*\.js:\d+/);
      expect((await get("/healthz")).status).toBe(200);
    });

    it("a forged tracking link redirects nowhere and counts nothing", async () => {
      for (const token of ["1.deadbeef", "x", `${"9".repeat(12)}.${"a".repeat(24)}`]) {
        const click = await get(
          `/t/c/${token}?url=${encodeURIComponent("https://evil.example/phish")}`,
        );
        expect(click.headers.get("location") ?? "").not.toContain("evil.example");
        expect(click.status).toBeGreaterThanOrEqual(400);
      }
      const events = await crossTenant(database.db)
        .selectFrom("campaign_events")
        .select("id")
        .execute();
      expect(events).toEqual([]);
    });

    it("uploads refuse what is not an image, and their URLs cannot climb out of the store", async () => {
      const svg = new Blob([`<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>`], {
        type: "image/svg+xml",
      });
      const html = new Blob(["<script>alert(1)</script>"], { type: "image/png" });
      for (const [file, name] of [
        [svg, "x.svg"],
        [html, "x.png"],
      ] as const) {
        const form = new FormData();
        form.append("file", file, name);
        const response = await fetch(`${server.url}/admin/uploads`, {
          method: "POST",
          body: form,
          headers: { cookie: rootCookie, origin: server.url },
        });
        expect([400, 415], name).toContain(response.status);
      }
      for (const path of [
        "/uploads/../../package.json",
        "/uploads/%2e%2e/%2e%2e/package.json",
        "/uploads/main/..%2f..%2fpackage.json",
      ]) {
        const response = await get(path);
        expect(response.status, path).toBe(404);
        expect(await response.text()).not.toContain('"name": "herald"');
      }
    });
  });

  describe("tenants", () => {
    it("an editor of one tenant cannot read or change another tenant's newsletter, mail or comments by id", async () => {
      const scope = { db: database.db, tenantId: "main", authorId: null };
      const { id } = await createNewsletter(scope, {
        title: "Main's own",
        excerpt: "Only main's staff edit this.",
        content: "<p>Private draft.</p>",
        readTime: 1,
      });
      const kd = (path: string) => `${path}${path.includes("?") ? "&" : "?"}subdomain=keydiscovery`;
      const headers = { cookie: kdCookie, origin: server.url };
      expect((await get(kd(`/admin/newsletter/edit/${id}`), headers)).status).toBe(404);
      expect((await get(kd(`/admin/newsletter/send/${id}`), headers)).status).toBe(404);
      for (const intent of ["publish", "delete", "save"]) {
        const response = await post(
          kd(`/admin/newsletter/edit/${id}`),
          { intent, title: "Taken", excerpt: "x", content: "<p>x</p>", readTime: "1" },
          headers,
        );
        expect(response.status, intent).toBe(404);
      }
      const mail = await crossTenant(database.db)
        .selectFrom("mail_log")
        .select("id")
        .where("tenant_id", "=", "main")
        .executeTakeFirstOrThrow();
      const outbox = await get(kd(`/admin/outbox/${mail.id}`), headers);
      expect([403, 404]).toContain(outbox.status);
      const row = await crossTenant(database.db)
        .selectFrom("newsletters")
        .select(["title", "status"])
        .where("id", "=", id)
        .executeTakeFirstOrThrow();
      expect(row).toEqual({ title: "Main's own", status: "draft" });
    });
  });

  describe("in Chromium", () => {
    let browser: Browser;
    let evil: Server;
    let evilUrl = "";

    beforeAll(async () => {
      browser = await chromium.launch({ executablePath: requireChromium(), args: CHROMIUM_ARGS });
      const port = await freePort();
      // Another origin (same host name, another port: the session cookie is still sent).
      evil = createServer((request, response) => {
        const target = new URL(request.url ?? "/", "http://x").searchParams.get("target") ?? "";
        response.setHeader("content-type", "text/html");
        response.end(`<!doctype html><body>
          <form id="f" method="post" action="${target}/admin/api-tokens">
            <input name="intent" value="create"><input name="name" value="stolen">
            <input name="scopes" value="functions">
          </form>
          <script>
            fetch("${target}/api/functions/addSubscriber", {
              method: "POST", credentials: "include", headers: { "content-type": "text/plain" },
              body: JSON.stringify({ data: { email: "planted@example.com" } }),
            }).finally(() => document.getElementById("f").submit());
          </script></body>`);
      });
      await new Promise<void>((resolve) => evil.listen(port, "127.0.0.1", resolve));
      evilUrl = `http://localhost:${port}`;
    });

    afterAll(async () => {
      await browser?.close();
      await new Promise((resolve) => evil?.close(resolve));
    });

    async function staffPage() {
      const context = await browser.newContext();
      const [name, value] = rootCookie.split("=") as [string, string];
      await context.addCookies([{ name, value, url: server.url }]);
      return context.newPage();
    }

    it("a page on another origin cannot make a signed-in staff member's browser write", async () => {
      const page = await staffPage();
      const answers: number[] = [];
      page.on("response", (response) => {
        if (response.url().startsWith(server.url) && response.request().method() === "POST") {
          answers.push(response.status());
        }
      });
      await page.goto(`${evilUrl}/?target=${encodeURIComponent(server.url)}`);
      await page.waitForURL(`${server.url}/admin/api-tokens`);
      await page.waitForLoadState("load");
      expect(answers.length).toBeGreaterThanOrEqual(1);
      expect(answers.every((status) => status >= 400)).toBe(true);
      const tokens = await database.db
        .selectFrom("api_tokens")
        .select("name")
        .where("name", "=", "stolen")
        .execute();
      expect(tokens).toEqual([]);
      expect(
        await crossTenant(database.db)
          .selectFrom("subscribers")
          .select("id")
          .where("email", "=", "planted@example.com")
          .execute(),
      ).toEqual([]);
      await page.context().close();
    });

    it("script written into any text field never runs, for readers or for staff", async () => {
      // Written the ways an attacker can: the public forms and functions, and as staff.
      const scope = { db: database.db, tenantId: "main", authorId: null };
      const { id, slug } = await createNewsletter(scope, {
        title: XSS_SHORT,
        excerpt: XSS_SHORT,
        content: `<p>${XSS_LONG}</p>${XSS_LONG}`,
        readTime: 1,
      });
      await publishNewsletter(scope, id);
      expect(
        (await post(`/newsletter/${slug}`, { text: XSS_LONG }, { origin: server.url })).status,
      ).toBe(302);
      expect(
        (
          await post(
            "/contact",
            {
              name: XSS_SHORT,
              email: "xss@example.com",
              company: XSS_SHORT,
              message: XSS_LONG,
            },
            { origin: server.url },
          )
        ).status,
      ).toBe(302);
      const signup = await callApi(server.url, "/api/functions/completeNewsletterSignup", {
        method: "POST",
        json: { data: { email: "xss-name@example.com", name: XSS_SHORT } },
        headers: { "x-forwarded-for": nextClient() },
      });
      expect(signup.status).toBe(200);
      const branding = await callApi(server.url, "/api/tenants/main/branding", {
        method: "PATCH",
        cookie: rootCookie,
        json: { companyName: XSS_SHORT.slice(0, 60) },
      });
      expect(branding.status, branding.text).toBe(200);
      // Staff texts of the audience pages (issue 16): a list, a custom field, a segment, an import.
      const asStaff = { origin: server.url, cookie: rootCookie };
      const list = await post(
        "/admin/lists",
        { name: XSS_SHORT, description: XSS_SHORT, visibility: "public" },
        asStaff,
      );
      expect(list.status).toBe(303);
      const field = await post(
        "/admin/subscribers/fields",
        { label: XSS_SHORT, type: "choice", choices: `${XSS_SHORT}\nplain` },
        asStaff,
      );
      expect(field.status).toBe(200);
      const segment = await post(
        "/admin/segments/new",
        { intent: "save", name: XSS_SHORT },
        asStaff,
      );
      expect(segment.status).toBe(303);
      const profile = await crossTenant(database.db)
        .selectFrom("subscribers")
        .select("id")
        .where("email", "=", "xss-name@example.com")
        .executeTakeFirstOrThrow();
      // A CSV import named with the payload, refusing a row whose address is the payload.
      const cell = `"${XSS_SHORT.replace(/"/g, '""')}"`;
      const upload = new FormData();
      upload.append(
        "file",
        new Blob([`email,name\n${cell},x\nxss-import@example.com,${cell}\n`], {
          type: "text/csv",
        }),
        `${XSS_SHORT}.csv`,
      );
      const imported = await fetch(`${server.url}/admin/subscribers/imports`, {
        method: "POST",
        body: upload,
        headers: asStaff,
        redirect: "manual",
      });
      expect(imported.status).toBe(303);
      const importPage = imported.headers.get("location") ?? "";
      await expect
        .poll(
          async () =>
            (
              await crossTenant(database.db)
                .selectFrom("subscriber_imports")
                .select("status")
                .where("id", "=", Number(importPage.split("/").pop()))
                .executeTakeFirstOrThrow()
            ).status,
          { timeout: scaled(15_000) },
        )
        .toBe("done");

      const page = await staffPage();
      const dialogs: string[] = [];
      page.on("dialog", async (dialog) => {
        dialogs.push(`${page.url()}: ${dialog.message()}`);
        await dialog.dismiss();
      });
      const unsafeMarkup = () =>
        page.evaluate(() =>
          [...document.querySelectorAll("*")].flatMap((element) =>
            [...element.attributes]
              .filter(
                (attribute) =>
                  /^on/i.test(attribute.name) || /^\s*javascript:/i.test(attribute.value),
              )
              .map((attribute) => `${element.tagName} ${attribute.name}=${attribute.value}`),
          ),
        );
      // The detectors themselves: a page that does run the payload is caught by both.
      await page.setContent(`<body>${XSS_SHORT}<a href="javascript:void 0">x</a></body>`);
      await page.waitForLoadState("load");
      expect(dialogs.length).toBeGreaterThan(0);
      expect((await unsafeMarkup()).length).toBeGreaterThan(0);
      dialogs.length = 0;

      for (const path of [
        "/",
        "/newsletter",
        `/newsletter/${slug}`,
        "/newsletter/rss.xml",
        "/admin/dashboard",
        "/admin/cms",
        "/admin/messages",
        "/admin/subscribers",
        "/admin/outbox",
        `/admin/newsletter/edit/${id}`,
        "/admin/tenants/main",
        "/admin/lists",
        (list.headers.get("location") ?? "").replace(/\?.*$/, ""),
        "/admin/subscribers/fields",
        "/admin/subscribers/new",
        "/admin/subscribers/imports",
        importPage,
        `/admin/subscribers/${profile.id}`,
        "/admin/segments",
        (segment.headers.get("location") ?? "").replace(/\?.*$/, ""),
        "/subscription/preferences",
      ]) {
        await page.goto(`${server.url}${path}`);
        await page.waitForLoadState("load");
        // Links and hovers too: no javascript: URL, no inline handler in the rendered DOM.
        const unsafe = await unsafeMarkup();
        expect(unsafe, path).toEqual([]);
      }
      expect(dialogs).toEqual([]);
      await page.context().close();
    });
  });
});
