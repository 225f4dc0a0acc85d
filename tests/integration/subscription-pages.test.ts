import { gzipSync } from "node:zlib";
import { pino } from "pino";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { crossTenant } from "../../server/db/tenant-guard";
import { signToken } from "../../server/mail/tokens";
import { smtpTransport, type Transport } from "../../server/mail/transport";
import { subscriberLinks } from "../../server/subscribers/links";
import { signUp } from "../../server/subscribers/signup";
import { findSubscriber, type SubscriptionContext } from "../../server/subscribers/subscribers";
import type { TenantConfig } from "../../server/tenants/config";
import { getTenant } from "../../server/tenants/store";
import { createTestDatabase, type TestDatabase, testDialects } from "../support/database";
import { textOf, titleOf } from "../support/html";
import { type RunningServer, startServer } from "../support/server";
import { type ReceivedMail, type SmtpSink, startSmtpSink } from "../support/smtp-sink";

const SECRET = "subscription-pages-secret-0123456789abcdef";
const INVALID_LINK = "Invalid or expired verification link. Please try again.";

type FormFields = Record<string, string | string[]>;

function formBody(fields: FormFields): URLSearchParams {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) {
    for (const item of Array.isArray(value) ? value : [value]) body.append(name, item);
  }
  return body;
}

/** The list keys whose checkbox is ticked in a server-rendered preference centre. */
function checkedLists(html: string): string[] {
  return [...html.matchAll(/<input[^>]*type="checkbox"[^>]*>/g)]
    .map((match) => match[0])
    .filter((tag) => tag.includes('name="list"') && /\schecked=""/.test(tag))
    .map((tag) => tag.match(/value="([^"]*)"/)?.[1] ?? "");
}

/** The opening tag of the submit button whose text is `label`, or "" when there is none. */
function buttonTag(html: string, label: string): string {
  const match = [...html.matchAll(/(<button[^>]*>)([^<]*)<\/button>/g)].find(
    (candidate) => candidate[2] === label,
  );
  return match?.[1] ?? "";
}

describe.each(testDialects())("subscription pages on %s", (dialect) => {
  let database: TestDatabase;
  let sink: SmtpSink;
  let server: RunningServer;
  let transport: Transport;
  let ctx: SubscriptionContext;
  let mainTenant: TenantConfig;
  let clientAddress = "";
  let clients = 0;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    sink = await startSmtpSink();
    server = await startServer({
      databaseUrl: database.url,
      env: { SMTP_URL: sink.url, SESSION_SECRET: SECRET },
    });
    transport = smtpTransport(sink.url);
    // The server has migrated and seeded the database; `main` asks for double opt-in by default,
    // so subscribers seeded for these tests skip it.
    mainTenant = (await getTenant(database.db, "main")).config;
    ctx = {
      db: database.db,
      logger: pino({ level: "silent" }),
      transport,
      tenant: { ...mainTenant, features: { ...mainTenant.features, doubleOptIn: false } },
      origin: server.url,
      sessionSecret: SECRET,
    };
  });

  afterAll(async () => {
    transport?.close();
    await server?.stop();
    await sink?.stop();
    await database?.drop();
  });

  // Every test is its own visitor (the host trusts X-Forwarded-For from loopback), so the per-address
  // rate limits only meet where a test means them to.
  beforeEach(() => {
    clients += 1;
    clientAddress = `198.51.100.${clients}`;
  });

  const request = (
    path: string,
    options: { form?: FormFields; headers?: Record<string, string> } = {},
  ) =>
    fetch(`${server.url}${path}`, {
      method: options.form ? "POST" : "GET",
      body: options.form ? formBody(options.form) : undefined,
      headers: { "x-forwarded-for": clientAddress, ...options.headers },
      redirect: "manual",
    });

  const page = async (path: string) => {
    const response = await request(path);
    const html = await response.text();
    return { status: response.status, html, text: textOf(html), response };
  };

  /** The subscriber's preference centre: the signed /preferences/{token} of their mail. */
  async function centreOf(email: string, extra: FormFields = {}) {
    const subscriber = await findSubscriber(ctx, email);
    if (!subscriber) throw new Error(`${email} is not a subscriber`);
    const { preferencesUrl } = subscriberLinks(ctx, subscriber);
    const query = formBody(extra).toString();
    return `${new URL(preferencesUrl).pathname}${query ? `?${query}` : ""}`;
  }

  /** Mail to `email` that arrived after the first `after` messages. */
  const mailTo = (email: string, after: number) =>
    sink.waitFor((mail) => mail.to.includes(email) && sink.messages.indexOf(mail) >= after);
  const mailsTo = (email: string) => sink.messages.filter((mail) => mail.to.includes(email));

  async function seed(email: string, lists: string[] = ["newsletter", "industry-news"]) {
    const { subscriberId } = await signUp(ctx, { email, lists });
    return subscriberId;
  }

  const listsOf = async (email: string) => (await findSubscriber(ctx, email))?.lists;

  const verificationMail = (email: string, after: number) =>
    sink.waitFor(
      (mail) =>
        mail.to.includes(email) &&
        mail.subject === mainTenant.emailTemplates.verificationEmail.subject &&
        sink.messages.indexOf(mail) >= after,
    );

  function linkIn(mail: ReceivedMail, path: string): URL {
    const pattern = new RegExp(`${server.url.replace(/[.:/]/g, "\\$&")}${path}[^\\s\\])]+`);
    const found = mail.text.match(pattern)?.[0];
    if (!found) throw new Error(`no ${path} link in:\n${mail.text}`);
    return new URL(found);
  }

  /** Asks for a change through the centre and answers the emailed link's URL. */
  async function requestChange(email: string, lists: string[]): Promise<URL> {
    const before = sink.messages.length;
    const response = await request(await centreOf(email, { intent: "review", list: lists }), {
      form: { intent: "send", list: lists },
    });
    expect(response.status).toBe(302);
    return linkIn(await verificationMail(email, before), "/subscription/preferences\\?");
  }

  describe("the preference page", () => {
    it("mails a subscriber a link to their centre, and answers anyone else the same", async () => {
      await seed("lookup@example.com");

      const start = await page("/subscription/preferences");
      expect(start.status).toBe(200);
      expect(start.text).toContain("Find Your Subscription");
      expect(start.html).toContain('<meta name="robots" content="noindex"/>');
      expect(titleOf(start.html)).toBe("Manage your subscription | KeyDiscovery");
      expect(start.response.headers.get("cache-control")).toBe("private, no-store");

      // ?email= only fills the form in: it shows nobody's status or lists.
      const prefilled = await page(`/subscription/preferences?email=lookup%40example.com`);
      expect(prefilled.status).toBe(200);
      expect(prefilled.html).toMatch(/<input[^>]*name="email"[^>]*value="lookup@example.com"/);
      expect(prefilled.text).not.toContain("Subscriptions of");
      expect(checkedLists(prefilled.html)).toEqual([]);

      const blank = await request("/subscription/preferences", {
        form: { intent: "lookup", email: "  " },
      });
      expect(blank.status).toBe(400);
      expect(textOf(await blank.text())).toContain("Please enter your email address.");

      const before = sink.messages.length;
      const unknown = await request("/subscription/preferences", {
        form: { intent: "lookup", email: "nobody@example.com" },
      });
      const known = await request("/subscription/preferences", {
        form: { intent: "lookup", email: " Lookup@Example.com " },
      });
      // The same answer, word for word, whether or not the address is subscribed.
      expect([unknown.status, known.status]).toEqual([302, 302]);
      expect(unknown.headers.get("location")).toBe("/subscription/preferences?sent=1");
      expect(known.headers.get("location")).toBe(unknown.headers.get("location"));
      const sent = await page("/subscription/preferences?sent=1");
      expect(sent.text).toContain(
        "If that address has a subscription here, we have sent it a link to your preferences.",
      );
      expect(sent.text).not.toContain("lookup@example.com");

      const mail = await mailTo("lookup@example.com", before);
      expect(mail.subject).toBe("Your KeyDiscovery newsletter preferences");
      expect(mailsTo("nobody@example.com")).toEqual([]);
      const link = linkIn(mail, "/preferences/");
      const found = await page(link.pathname);
      expect(found.status).toBe(200);
      expect(found.text).toContain("Subscriptions of lookup@example.com");
      for (const name of ["KeyDiscovery Newsletter", "KeyDiscovery Updates", "Industry News"]) {
        expect(found.text).toContain(name);
      }
      expect(found.text).toContain("Insights and analysis on legal technology trends");
      expect(checkedLists(found.html)).toEqual(["newsletter", "industry-news"]);
      // Without JavaScript, Save is a plain enabled submit; the page disables it once it runs.
      expect(buttonTag(found.html, "Save Changes")).not.toMatch(/\sdisabled=""/);
      expect(buttonTag(found.html, "Unsubscribe from All")).not.toBe("");
      expect(found.html).toMatch(/<legend[^>]*>Choose the newsletters you want to receive/);
      expect(found.html).toMatch(/<nav aria-label="Subscription"[^>]*>.*href="\/privacy"/s);

      // The emailed link expires after 24 hours.
      const subscriber = await findSubscriber(ctx, "lookup@example.com");
      const stale = signToken(SECRET, {
        purpose: "preferences",
        tenantId: "main",
        subscriberId: subscriber?.id ?? 0,
        expiresAt: Date.now() - 1000,
      });
      expect((await page(`/preferences/${stale}`)).status).toBe(404);
    });

    it("mails one address at most three links an hour, whoever asks", async () => {
      await seed("flooded@example.com");
      const before = sink.messages.length;
      for (let attempt = 0; attempt < 5; attempt++) {
        clientAddress = `203.0.113.${attempt + 1}`;
        const asked = await request("/subscription/preferences", {
          form: { intent: "lookup", email: "flooded@example.com" },
        });
        expect(asked.headers.get("location")).toBe("/subscription/preferences?sent=1");
      }
      const links = () =>
        mailsTo("flooded@example.com").filter(
          (mail) => mail.subject === "Your KeyDiscovery newsletter preferences",
        );
      await sink.waitFor(() => links().length >= 3);
      // The fourth and fifth asks answered the same words and sent nothing (give them a moment).
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(links()).toHaveLength(3);
      expect(sink.messages.slice(before).filter((mail) => links().includes(mail))).toHaveLength(3);
    });

    it("reviews a change before sending anything", async () => {
      await seed("review@example.com");
      const before = sink.messages.length;
      const review = await page(
        await centreOf("review@example.com", { intent: "review", list: ["product-updates"] }),
      );
      expect(review.status).toBe(200);
      expect(review.text).toContain("Confirm Your Changes");
      expect(review.text).toMatch(/You will join KeyDiscovery Updates/);
      expect(review.text).toMatch(/You will leave KeyDiscovery Newsletter Industry News/);
      expect(review.text).toContain("we will email a verification link to review@example.com");
      expect(buttonTag(review.html, "Send Verification Email")).not.toBe("");
      expect(review.html).toMatch(/<a[^>]*href="[^"]*intent=edit[^"]*"[^>]*>Cancel<\/a>/);
      expect(checkedLists(review.html)).toEqual(["product-updates"]);

      const all = await page(await centreOf("review@example.com", { intent: "unsubscribe-all" }));
      expect(all.text).toContain("Confirm Your Changes");
      expect(all.text).toContain("You will no longer receive any of our newsletters");
      expect(checkedLists(all.html)).toEqual([]);

      const same = await page(
        await centreOf("review@example.com", {
          intent: "review",
          list: ["newsletter", "industry-news"],
        }),
      );
      expect(same.text).toContain("No Changes to Save");
      expect(same.text).not.toContain("Send Verification Email");

      // Cancel keeps the selection being edited.
      const edit = await page(
        await centreOf("review@example.com", { intent: "edit", list: ["product-updates"] }),
      );
      expect(edit.text).not.toContain("Confirm Your Changes");
      expect(checkedLists(edit.html)).toEqual(["product-updates"]);
      expect(sink.messages.length).toBe(before);
    });

    it("sends the verification email, then applies the change from its link with one POST", async () => {
      await seed("flow@example.com");
      const before = sink.messages.length;
      const centre = await centreOf("flow@example.com");
      const sent = await request(`${centre}?intent=review&list=product-updates`, {
        form: { intent: "send", list: "product-updates" },
      });
      expect(sent.status).toBe(302);
      expect(sent.headers.get("location")).toBe(`${centre}?sent=1`);
      const panel = await page(sent.headers.get("location") ?? "");
      expect(panel.text).toContain("Verification Email Sent");
      expect(panel.text).toContain("valid for 24 hours");
      expect(await listsOf("flow@example.com")).toEqual(["newsletter", "industry-news"]);

      const mail = await verificationMail("flow@example.com", before);
      expect(mail.text).toContain("KeyDiscovery Updates");
      const link = linkIn(mail, "/subscription/preferences\\?");
      expect(link.searchParams.get("email")).toBe("flow@example.com");
      const token = link.searchParams.get("token") ?? "";

      // Opening the link (a person, or a scanner) changes nothing by itself.
      const opened = await page(`${link.pathname}${link.search}`);
      expect(opened.status).toBe(200);
      expect(buttonTag(opened.html, "Confirm my changes")).not.toBe("");
      expect(opened.html).toContain(`name="token" value="${token}"`);
      expect(titleOf(opened.html)).toBe("Confirm your changes | KeyDiscovery");
      expect(await listsOf("flow@example.com")).toEqual(["newsletter", "industry-news"]);

      const confirmedBefore = sink.messages.length;
      const applied = await request(`${link.pathname}${link.search}`, {
        form: { intent: "apply", email: "flow@example.com", token },
      });
      expect(applied.status).toBe(302);
      // Back to the centre through a fresh signed link: the page that applied knows who it was for.
      expect(applied.headers.get("location")).toMatch(/^\/preferences\/[^?]+\?updated=1$/);
      const updated = await page(applied.headers.get("location") ?? "");
      expect(updated.text).toContain("Your preferences have been updated.");
      expect(checkedLists(updated.html)).toEqual(["product-updates"]);
      expect(await listsOf("flow@example.com")).toEqual(["product-updates"]);
      await sink.waitFor(
        (m) =>
          m.to.includes("flow@example.com") &&
          m.subject === mainTenant.emailTemplates.confirmationEmail.subject &&
          sink.messages.indexOf(m) >= confirmedBefore,
      );

      const reused = await request(`${link.pathname}${link.search}`, {
        form: { intent: "apply", email: "flow@example.com", token },
      });
      expect(reused.status).toBe(400);
      expect(textOf(await reused.text())).toContain(INVALID_LINK);
      expect(await listsOf("flow@example.com")).toEqual(["product-updates"]);
    });

    it("'Unsubscribe from All' goes through the same verification", async () => {
      await seed("leaving@example.com");
      const link = await requestChange("leaving@example.com", []);
      await request(`${link.pathname}${link.search}`, {
        form: {
          intent: "apply",
          email: "leaving@example.com",
          token: link.searchParams.get("token") ?? "",
        },
      });
      const subscriber = await findSubscriber(ctx, "leaving@example.com");
      expect(subscriber).toMatchObject({ status: "unsubscribed", lists: [] });
    });

    it("refuses a wrong token, another subscriber's token and an expired change", async () => {
      const aliceId = await seed("alice@example.com");
      await seed("bob@example.com");
      const apply = (email: string, token: string) =>
        request(`/subscription/preferences?${formBody({ email, token })}`, {
          form: { intent: "apply", email, token },
        });

      const aliceLink = await requestChange("alice@example.com", ["product-updates"]);
      const aliceToken = aliceLink.searchParams.get("token") ?? "";
      const bobLink = await requestChange("bob@example.com", ["product-updates"]);
      const bobToken = bobLink.searchParams.get("token") ?? "";

      const wrong = await apply("alice@example.com", "not-the-token");
      expect(wrong.status).toBe(400);
      expect(textOf(await wrong.text())).toContain(INVALID_LINK);

      const crossed = await apply("alice@example.com", bobToken);
      expect(crossed.status).toBe(400);
      expect(textOf(await crossed.text())).toContain(INVALID_LINK);

      await crossTenant(database.db)
        .updateTable("preference_changes")
        .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
        .where("subscriber_id", "=", aliceId)
        .execute();
      const expired = await apply("alice@example.com", aliceToken);
      expect(expired.status).toBe(400);
      expect(textOf(await expired.text())).toContain(INVALID_LINK);
      expect(await listsOf("alice@example.com")).toEqual(["newsletter", "industry-news"]);
      expect(await listsOf("bob@example.com")).toEqual(["newsletter", "industry-news"]);

      const noEmail = await page(`/subscription/preferences?token=${aliceToken}`);
      expect(noEmail.status).toBe(400);
      expect(noEmail.text).toContain(INVALID_LINK);
    });

    it("says so when the verification email cannot be sent, and keeps no pending change", async () => {
      const id = await seed("bounce@example.com");
      sink.answer = (to) => (to === "bounce@example.com" ? 451 : undefined);
      try {
        const response = await request(
          await centreOf("bounce@example.com", { intent: "review", list: ["product-updates"] }),
          { form: { intent: "send", list: "product-updates" } },
        );
        expect(response.status).toBe(503);
        const text = textOf(await response.text());
        expect(text).toContain("Failed to send verification email. Please try again.");
        // The panel stays open so the visitor can try again.
        expect(text).toContain("Confirm Your Changes");
      } finally {
        sink.answer = () => undefined;
      }
      const pending = await crossTenant(database.db)
        .selectFrom("preference_changes")
        .selectAll()
        .where("subscriber_id", "=", id)
        .execute();
      expect(pending).toEqual([]);
    });

    it("limits look-ups per address", async () => {
      const lookup = (email: string) =>
        request("/subscription/preferences", { form: { intent: "lookup", email } });
      for (let attempt = 0; attempt < 30; attempt++) {
        expect((await lookup(`someone${attempt}@example.com`)).status).toBe(302);
      }
      const limited = await lookup("someone@example.com");
      expect(limited.status).toBe(429);
      expect(textOf(await limited.text())).toContain("Too many requests from your address");
      clientAddress = "198.51.100.250";
      expect((await lookup("someone@example.com")).status).toBe(302);
    });
  });

  describe("the preference link in mail", () => {
    it("redirects /preferences and /unsubscribe to the pages, keeping the query", async () => {
      const preferences = await request("/preferences?email=x%40example.com");
      expect(preferences.status).toBe(302);
      expect(preferences.headers.get("location")).toBe(
        "/subscription/preferences?email=x%40example.com",
      );
      const unsubscribe = await request("/unsubscribe?email=x%40example.com&subdomain=main");
      expect(unsubscribe.status).toBe(302);
      expect(unsubscribe.headers.get("location")).toBe(
        "/subscription/unsubscribe?email=x%40example.com&subdomain=main",
      );
    });

    it("/preferences/{token} opens the centre for that subscriber, without a lookup", async () => {
      const id = await seed("token@example.com", ["industry-news"]);
      const { preferencesUrl } = subscriberLinks(ctx, { id, email: "token@example.com" });
      const path = new URL(preferencesUrl).pathname;
      const centre = await page(path);
      expect(centre.status).toBe(200);
      expect(centre.text).toContain("Subscriptions of token@example.com");
      expect(centre.text).not.toContain("Find Your Subscription");
      expect(checkedLists(centre.html)).toEqual(["industry-news"]);
      expect(centre.html).toContain('<meta name="robots" content="noindex"/>');

      const review = await page(`${path}?intent=review&list=newsletter`);
      expect(review.text).toContain("Confirm Your Changes");
      const before = sink.messages.length;
      const sent = await request(`${path}?intent=review&list=newsletter`, {
        form: { intent: "send", list: "newsletter" },
      });
      expect(sent.status).toBe(302);
      expect(sent.headers.get("location")).toBe(`${path}?sent=1`);
      expect((await page(`${path}?sent=1`)).text).toContain("Verification Email Sent");
      const link = linkIn(
        await verificationMail("token@example.com", before),
        "/subscription/preferences\\?",
      );
      expect(link.searchParams.get("email")).toBe("token@example.com");
      expect(await listsOf("token@example.com")).toEqual(["industry-news"]);
    });

    it("ships no script file: every step is a plain form, with one small inline script (issue 35)", async () => {
      const id = await seed("light@example.com", ["newsletter"]);
      const { preferencesUrl } = subscriberLinks(ctx, { id, email: "light@example.com" });
      const path = new URL(preferencesUrl).pathname;
      const steps = [
        path,
        `${path}?intent=review&list=newsletter&list=industry-news`,
        `${path}?sent=1`,
        `${path}?updated=1`,
        "/subscription/preferences",
        "/subscription/preferences?email=light%40example.com&token=x",
      ];
      for (const step of steps) {
        const { status, html } = await page(step);
        expect(status, step).toBe(200);
        // No module script, no preload of one, no hydration data: nothing but the inline script.
        expect(html, step).not.toMatch(
          /<script[^>]*\ssrc=|rel="modulepreload"|__reactRouterContext/,
        );
        const inline = [...html.matchAll(/<script[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
        expect(inline, step).toHaveLength(1);
        const bytes = gzipSync(inline.join("")).length;
        // The target is ≤ 50 KB gzip of JavaScript, or none; the enhancements are about 2 KB.
        expect(bytes, step).toBeLessThan(3_000);
      }
      // Save is a plain submit button for the enhancements to disable; each box says how it is now.
      const { html } = await page(path);
      expect(buttonTag(html, "Save Changes")).toContain(
        'data-unchanged-label="No Changes to Save"',
      );
      const box = (key: string) =>
        html.match(new RegExp(`<input[^>]*value="${key}"[^>]*>`))?.[0] ?? "";
      expect(box("newsletter")).toContain('data-saved="true"');
      expect(box("industry-news")).toContain('data-saved="false"');
      // The review's heading takes focus without script.
      const review = await page(`${path}?intent=review&list=industry-news`);
      expect(review.html).toMatch(/<h3 id="review-heading" tabindex="-1" autofocus=""/);
    });

    it("refuses a tampered token and a token signed for another tenant", async () => {
      const id = await seed("tenant@example.com");
      const other = signToken(SECRET, {
        purpose: "preferences",
        tenantId: "keydiscovery",
        subscriberId: id,
      });
      const foreign = await page(`/preferences/${other}`);
      expect(foreign.status).toBe(404);
      expect(foreign.text).toContain("This preference link is not valid.");
      expect(foreign.text).not.toContain("tenant@example.com");
      expect(foreign.html).toContain('href="/subscription/preferences"');

      const own = signToken(SECRET, { purpose: "preferences", tenantId: "main", subscriberId: id });
      const tampered = `${own.slice(0, -2)}xx`;
      expect((await page(`/preferences/${tampered}`)).status).toBe(404);
      const unsubscribeToken = signToken(SECRET, {
        purpose: "unsubscribe",
        tenantId: "main",
        subscriberId: id,
      });
      expect((await page(`/preferences/${unsubscribeToken}`)).status).toBe(404);
      const posted = await request(`/preferences/${other}`, {
        form: { intent: "send", list: "newsletter" },
      });
      expect(posted.status).toBe(404);
    });
  });

  describe("the unsubscribe page", () => {
    it("mails a confirmation link to a subscriber, and answers anyone else the same", async () => {
      const id = await seed("asked@example.com");
      const start = await page("/subscription/unsubscribe?email=pre%40example.com");
      expect(start.status).toBe(200);
      expect(start.html).toMatch(/<input[^>]*name="email"[^>]*value="pre@example.com"/);
      expect(buttonTag(start.html, "Unsubscribe from all newsletters")).not.toBe("");
      expect(start.html).toContain('href="/subscription/preferences?email=pre%40example.com"');
      expect(start.html).toMatch(/<nav aria-label="Subscription"[^>]*>.*href="\/terms"/s);
      expect(start.html).toContain('<meta name="robots" content="noindex"/>');

      const blank = await request("/subscription/unsubscribe", {
        form: { intent: "unsubscribe", email: "  " },
      });
      expect(blank.status).toBe(400);
      expect(textOf(await blank.text())).toContain("Please enter your email address.");

      const before = sink.messages.length;
      const answers = [];
      for (const email of ["ghost@example.com", "Asked@example.com"]) {
        const response = await request("/subscription/unsubscribe", {
          form: { intent: "unsubscribe", email },
        });
        answers.push([response.status, response.headers.get("location")]);
      }
      expect(answers).toEqual([
        [302, "/subscription/unsubscribe?sent=1"],
        [302, "/subscription/unsubscribe?sent=1"],
      ]);
      const sent = await page("/subscription/unsubscribe?sent=1");
      expect(sent.text).toContain(
        "If that address is subscribed, we have sent it a link to confirm that you want to unsubscribe.",
      );
      // Typing an address unsubscribes nobody: only the mailed link does.
      expect(await listsOf("asked@example.com")).toEqual(["newsletter", "industry-news"]);

      const mail = await mailTo("asked@example.com", before);
      expect(mail.subject).toBe("Confirm that you want to unsubscribe from KeyDiscovery");
      expect(mailsTo("ghost@example.com")).toEqual([]);
      const link = linkIn(mail, "/unsubscribe\\?");
      const opened = await request(`${link.pathname}${link.search}`);
      expect(opened.status).toBe(302);
      const confirm = await page(opened.headers.get("location") ?? "");
      expect(confirm.text).toContain("Stop all newsletters from KeyDiscovery to asked@example.com");
      const token = link.searchParams.get("token") ?? "";
      const done = await request(opened.headers.get("location") ?? "", {
        form: { intent: "confirm", token },
      });
      expect(done.status).toBe(302);
      expect(done.headers.get("location")).toMatch(/^\/subscription\/unsubscribe\?done=/);
      const row = await crossTenant(database.db)
        .selectFrom("subscribers")
        .select("status")
        .where("id", "=", id)
        .executeTakeFirstOrThrow();
      expect(row.status).toBe("unsubscribed");

      // The link expires after 24 hours; a forged one is refused.
      const stale = signToken(SECRET, {
        purpose: "unsubscribe",
        tenantId: "main",
        subscriberId: id,
        expiresAt: Date.now() - 1000,
      });
      for (const bad of [stale, `${token.slice(0, -2)}xx`]) {
        const refused = await page(`/subscription/unsubscribe?token=${bad}`);
        expect(refused.status).toBe(400);
        expect(refused.text).toContain(INVALID_LINK);
        const posted = await request("/subscription/unsubscribe", {
          form: { intent: "confirm", token: bad },
        });
        expect(posted.status).toBe(400);
      }
    });

    it("unsubscribes in one step from the link in mail, survives a reload and takes one feedback answer", async () => {
      const id = await seed("goodbye@example.com");
      const { unsubscribeUrl } = subscriberLinks(ctx, { id, email: "goodbye@example.com" });
      const link = new URL(unsubscribeUrl);
      expect(link.pathname).toBe("/unsubscribe");
      expect(link.searchParams.get("email")).toBe("goodbye@example.com");
      const path = `/subscription/unsubscribe${link.search}`;
      // Opening the link only asks (a mail scanner unsubscribes nobody).
      const asked = await page(path);
      expect(asked.status).toBe(200);
      expect(buttonTag(asked.html, "Unsubscribe from all newsletters")).not.toBe("");
      expect(await listsOf("goodbye@example.com")).toEqual(["newsletter", "industry-news"]);

      const response = await request(path, {
        form: { intent: "confirm", token: link.searchParams.get("token") ?? "" },
      });
      expect(response.status).toBe(302);
      const location = response.headers.get("location") ?? "";
      expect(location).toMatch(/^\/subscription\/unsubscribe\?done=/);
      const subscriber = await crossTenant(database.db)
        .selectFrom("subscribers")
        .selectAll()
        .where("id", "=", id)
        .executeTakeFirstOrThrow();
      expect(subscriber.status).toBe("unsubscribed");
      expect(await listsOf("goodbye@example.com")).toEqual([]);

      const done = await page(location);
      expect(done.status).toBe(200);
      expect(done.text).toContain("Unsubscribed Successfully");
      expect(done.text).toContain("goodbye@example.com");
      expect(done.html).toMatch(/href="\/preferences\/[^"]+"[^>]*>Choose your newsletters again/);
      expect(done.html).toMatch(/<legend[^>]*>Reason for unsubscribing/);
      for (const reason of [
        "Too many emails",
        "Content not relevant",
        "Signed up by mistake",
        "No longer interested",
        "Other",
      ]) {
        const radio = new RegExp(`<input[^>]*type="radio"[^>]*name="reason" value="${reason}"`);
        expect(done.html).toMatch(radio);
      }
      expect(done.text).toContain("Tell us more (for Other)");
      // A reload shows the same page and unsubscribes nobody again.
      expect((await page(location)).text).toContain("Unsubscribed Successfully");
      const after = await crossTenant(database.db)
        .selectFrom("subscribers")
        .select("unsubscribed_at")
        .where("id", "=", id)
        .executeTakeFirstOrThrow();
      expect(after.unsubscribed_at).toBe(subscriber.unsubscribed_at);

      // The mail's link again: nothing more to do.
      const again = await page(path);
      expect(again.text).toContain("You are not subscribed");
      expect(buttonTag(again.html, "Unsubscribe from all newsletters")).toBe("");

      const token = new URL(location, server.url).searchParams.get("done") ?? "";
      const noReason = await request(location, { form: { intent: "feedback", done: token } });
      expect(noReason.status).toBe(400);
      expect(textOf(await noReason.text())).toContain("Please choose a reason.");

      const forged = await request(location, {
        form: { intent: "feedback", done: `${token.slice(0, -2)}xx`, reason: "Other" },
      });
      expect(forged.status).toBe(400);
      expect(textOf(await forged.text())).toContain(INVALID_LINK);

      const feedback = await request(location, {
        form: {
          intent: "feedback",
          done: token,
          reason: "Other",
          details: "  Moving to a new firm.  ",
        },
      });
      expect(feedback.status).toBe(302);
      const thanks = await page(feedback.headers.get("location") ?? "");
      expect(thanks.text).toContain("Thank you for your feedback.");
      expect(thanks.text).not.toContain("Reason for unsubscribing");

      // One answer per unsubscribe: a second one (a replayed form, a script) is not stored.
      const twice = await Promise.all(
        ["Too many emails", "Content not relevant"].map((reason) =>
          request(location, { form: { intent: "feedback", done: token, reason } }),
        ),
      );
      const repeated = await page(twice[0]?.headers.get("location") ?? "");
      expect(repeated.text).toContain("We already have your answer for this unsubscribe.");
      const stored = await crossTenant(database.db)
        .selectFrom("unsubscribe_feedback")
        .selectAll()
        .where("subscriber_id", "=", id)
        .execute();
      expect(stored).toHaveLength(1);
      expect(stored[0]).toMatchObject({
        tenant_id: "main",
        reason: "Other",
        details: "Moving to a new firm.",
        unsubscribed_at: subscriber.unsubscribed_at,
      });
    });

    it("ignores a done token that is not valid for this tenant", async () => {
      const id = await seed("kept@example.com");
      const foreign = signToken(SECRET, {
        purpose: "unsubscribe",
        tenantId: "keydiscovery",
        subscriberId: id,
      });
      const view = await page(`/subscription/unsubscribe?email=kept%40example.com&done=${foreign}`);
      expect(view.text).not.toContain("Unsubscribed Successfully");
      expect(view.text).toContain("Unsubscribe from all newsletters");
    });
  });

  describe("one-click unsubscribe (RFC 8058)", () => {
    const oneClick = async (email: string) => {
      const id = await seed(email);
      return { id, path: new URL(subscriberLinks(ctx, { id, email }).oneClickUrl).pathname };
    };
    const statusOf = async (id: number) =>
      (
        await crossTenant(database.db)
          .selectFrom("subscribers")
          .select("status")
          .where("id", "=", id)
          .executeTakeFirstOrThrow()
      ).status;

    it("a provider's POST (no cookies, no Origin) unsubscribes at once, and again answers 200", async () => {
      const before = sink.messages.length;
      const { id } = await oneClick("provider@example.com");
      // The link really comes from the welcome mail's List-Unsubscribe header.
      const welcome = await sink.waitFor(
        (mail) => mail.to.includes("provider@example.com") && sink.messages.indexOf(mail) >= before,
      );
      const url = welcome.headers.get("list-unsubscribe")?.match(/<(http[^>]+)>/)?.[1] ?? "";
      expect(url).toContain("/subscription/one-click/");
      const post = () =>
        fetch(url, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: "List-Unsubscribe=One-Click",
          redirect: "manual",
        });
      const first = await post();
      expect(first.status).toBe(200);
      expect(textOf(await first.text())).toContain("Unsubscribed Successfully");
      expect(await statusOf(id)).toBe("unsubscribed");
      const second = await post();
      expect(second.status).toBe(200);
      expect(await statusOf(id)).toBe("unsubscribed");
    });

    it("a GET only shows the button; a tampered token changes nothing", async () => {
      const { id, path } = await oneClick("scanner@example.com");
      const view = await page(path);
      expect(view.status).toBe(200);
      expect(buttonTag(view.html, "Unsubscribe from all newsletters")).not.toBe("");
      expect(view.text).toContain("scanner@example.com");
      expect(view.html).toContain('<meta name="robots" content="noindex"/>');
      expect(await statusOf(id)).toBe("active");

      const tampered = `${path.slice(0, -2)}xx`;
      const refused = await request(tampered, { form: { "List-Unsubscribe": "One-Click" } });
      expect(refused.status).toBe(400);
      expect(textOf(await refused.text())).toContain(INVALID_LINK);
      expect((await page(tampered)).status).toBe(400);
      const foreign = signToken(SECRET, {
        purpose: "unsubscribe",
        tenantId: "keydiscovery",
        subscriberId: id,
      });
      const crossTenant = await request(`/subscription/one-click/${foreign}`, {
        form: { "List-Unsubscribe": "One-Click" },
      });
      expect(crossTenant.status).toBe(400);
      expect(await statusOf(id)).toBe("active");

      // The page's own button makes the same POST.
      const clicked = await request(path, { form: { "List-Unsubscribe": "One-Click" } });
      expect(clicked.status).toBe(200);
      expect(await statusOf(id)).toBe("unsubscribed");
    });

    it("refuses cross-site POSTs from browsers", async () => {
      const { id, path } = await oneClick("victim@example.com");
      const evil = { origin: "https://evil.example" };
      const oneClickPost = await request(path, {
        form: { "List-Unsubscribe": "One-Click" },
        headers: evil,
      });
      expect(oneClickPost.status).toBe(403);
      const pagePost = await request("/subscription/unsubscribe", {
        form: { intent: "unsubscribe", email: "victim@example.com" },
        headers: evil,
      });
      expect(pagePost.status).toBe(403);
      const sendPost = await request(await centreOf("victim@example.com"), {
        form: { intent: "send", list: [] },
        headers: { "sec-fetch-site": "cross-site" },
      });
      expect(sendPost.status).toBe(403);
      expect(await statusOf(id)).toBe("active");
    });
  });

  describe("double opt-in confirmation", () => {
    it("confirms from the emailed link with a POST, never on GET", async () => {
      const optIn: SubscriptionContext = { ...ctx, tenant: mainTenant };
      expect(mainTenant.features.doubleOptIn).toBe(true);
      const before = sink.messages.length;
      const { outcome, subscriberId } = await signUp(optIn, { email: "careful@example.com" });
      expect(outcome).toBe("confirmation-sent");
      const mail = await sink.waitFor(
        (m) => m.to.includes("careful@example.com") && sink.messages.indexOf(m) >= before,
      );
      const link = linkIn(mail, "/subscription/confirm/");

      const view = await page(link.pathname);
      expect(view.status).toBe(200);
      expect(view.text).toContain("Confirm your subscription");
      expect(buttonTag(view.html, "Confirm my subscription")).not.toBe("");
      expect((await findSubscriber(ctx, "careful@example.com"))?.status).toBe("unconfirmed");

      const welcomeBefore = sink.messages.length;
      const confirmed = await request(link.pathname, { form: {} });
      expect(confirmed.status).toBe(302);
      expect(confirmed.headers.get("location")).toBe(link.pathname);
      const done = await page(link.pathname);
      expect(done.text).toContain("Your subscription is confirmed.");
      expect(done.html).toContain('href="/newsletter"');
      expect(done.html).toMatch(/href="\/preferences\/[^"]+"[^>]*>Manage your preferences/);
      expect((await findSubscriber(ctx, "careful@example.com"))?.status).toBe("active");
      await sink.waitFor(
        (m) =>
          m.to.includes("careful@example.com") &&
          m.subject === mainTenant.emailTemplates.welcomeEmail.subject &&
          sink.messages.indexOf(m) >= welcomeBefore,
      );

      const foreign = signToken(SECRET, {
        purpose: "confirm-signup",
        tenantId: "keydiscovery",
        subscriberId,
      });
      for (const token of [foreign, "nonsense", `${link.pathname.split("/").pop()}x`]) {
        const invalid = await page(`/subscription/confirm/${token}`);
        expect(invalid.status).toBe(400);
        expect(invalid.text).toContain(INVALID_LINK);
        const posted = await request(`/subscription/confirm/${token}`, { form: {} });
        expect(posted.status).toBe(400);
      }
    });
  });
});
