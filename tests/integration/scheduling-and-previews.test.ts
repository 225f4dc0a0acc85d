import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { crossTenant } from "../../server/db/tenant-guard";
import { createNewsletter } from "../../server/newsletters/editing";
import { createPreviewLink } from "../../server/newsletters/previews";
import { runSchedule } from "../../server/newsletters/scheduler";
import { zonedLocalToUtc } from "../../shared/time-zone";
import { createStaffUser, signIn } from "../support/auth";
import { createTestDatabase, type TestDatabase, testDialects } from "../support/database";
import { postForm } from "../support/forms";
import { textOf } from "../support/html";
import { type RunningServer, startServer } from "../support/server";
import { scaled } from "../support/timing";

/** Issue 15, part 5: the tenant's time zone, scheduled publishing (and sending), and previews. */

const FORM = {
  title: "Scheduled issue",
  excerpt: "Out on Monday.",
  content: "<p>Monday's words.</p>",
  readTime: "",
  slug: "",
  tags: "",
};

describe.each(testDialects())("scheduling and previews on %s", (dialect) => {
  let database: TestDatabase;
  let server: RunningServer;
  let admin = "";
  let editor = "";
  let otherEditor = "";
  let sessionSecret = "";

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    sessionSecret = "scheduling-test-secret-0123456789abcdef";
    server = await startServer({
      databaseUrl: database.url,
      env: { SESSION_SECRET: sessionSecret },
    });
    await createStaffUser(database.db, { email: "boss@example.com", role: "super_admin" });
    await createStaffUser(database.db, { email: "writer@example.com", products: { main: true } });
    await createStaffUser(database.db, {
      email: "kd-writer@example.com",
      products: { keydiscovery: true },
    });
    admin = await signIn(server.url, "boss@example.com");
    editor = await signIn(server.url, "writer@example.com");
    otherEditor = await signIn(server.url, "kd-writer@example.com");
  });

  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, { headers, redirect: "manual" });

  const draft = (title = FORM.title) =>
    createNewsletter(
      { db: database.db, tenantId: "main", authorId: null },
      { title, excerpt: FORM.excerpt, content: FORM.content },
    );

  const row = (id: string) =>
    database.db
      .selectFrom("newsletters")
      .selectAll()
      .where("tenant_id", "=", "main")
      .where("id", "=", id)
      .executeTakeFirstOrThrow();

  const campaignsOf = (id: string) =>
    database.db
      .selectFrom("campaigns")
      .select(["id", "subject"])
      .where("tenant_id", "=", "main")
      .where("newsletter_id", "=", id)
      .execute();

  /** A wall-clock time some days ahead, as the datetime-local field sends it. */
  const daysAhead = (days: number, time = "09:00") =>
    `${new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10)}T${time}`;

  it("lets the tenant manager choose a time zone, refusing one that does not exist", async () => {
    const bad = await postForm(
      server.url,
      "/admin/tenants/main",
      { intent: "save", name: "Herald", timeZone: "Mars/Olympus_Mons" },
      admin,
    );
    expect(bad.status).toBe(400);
    expect(textOf(await bad.text())).toContain("Choose a time zone from the list");
    const saved = await postForm(
      server.url,
      "/admin/tenants/main",
      { intent: "save", name: "Herald", timeZone: "Europe/Berlin" },
      admin,
    );
    expect(saved.status).toBe(302);
    const page = await (await get("/admin/tenants/main", { cookie: admin })).text();
    expect(textOf(page)).toContain("Time zone Europe/Berlin");
  });

  it("saves and schedules a draft at a time in the tenant's zone, stored in UTC", async () => {
    const newsletter = await draft();
    const local = daysAhead(3);
    const response = await postForm(
      server.url,
      `/admin/newsletter/edit/${newsletter.id}`,
      {
        ...FORM,
        title: "Scheduled issue, edited",
        intent: "schedule",
        publishAt: local,
        sendEmail: "on",
      },
      editor,
    );
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toContain("notice=scheduled");
    const stored = await row(newsletter.id);
    expect(stored.title).toBe("Scheduled issue, edited");
    expect(stored.status).toBe("draft");
    expect(stored.scheduled_at).toBe(zonedLocalToUtc(local, "Europe/Berlin"));
    expect(Number(stored.scheduled_send)).toBe(1);
    const page = textOf(
      await (await get(`/admin/newsletter/edit/${newsletter.id}`, { cookie: editor })).text(),
    );
    expect(page).toMatch(
      /Publishes \w{3} \d{1,2}, \d{4}, 09:00 Europe\/Berlin, then is sent by email/,
    );

    const cancel = await postForm(
      server.url,
      `/admin/newsletter/edit/${newsletter.id}`,
      { intent: "unschedule" },
      editor,
    );
    expect(cancel.status).toBe(302);
    expect((await row(newsletter.id)).scheduled_at).toBeNull();
  });

  it.each([
    ["a time gone by", "2020-01-01T09:00", "Choose a time in the future"],
    ["no time", "", "Choose a date and a time"],
    ["a time that is not one", "next tuesday", "Choose a date and a time"],
  ])("refuses %s and changes nothing", async (_label, publishAt, message) => {
    const newsletter = await draft("Not yet");
    const response = await postForm(
      server.url,
      `/admin/newsletter/edit/${newsletter.id}`,
      { ...FORM, title: "Changed title", intent: "schedule", publishAt },
      editor,
    );
    expect(response.status).toBe(400);
    expect(textOf(await response.text())).toContain(message);
    const stored = await row(newsletter.id);
    expect(stored.title).toBe("Not yet");
    expect(stored.scheduled_at).toBeNull();
  });

  it("publishes a due draft and sends it, once, through the running server's worker", async () => {
    const newsletter = await draft("Due now");
    await postForm(
      server.url,
      `/admin/newsletter/edit/${newsletter.id}`,
      { ...FORM, title: "Due now", intent: "schedule", publishAt: daysAhead(1), sendEmail: "on" },
      editor,
    );
    // The clock moves on: the schedule comes due.
    const due = new Date(Date.now() - 1_000).toISOString();
    await crossTenant(database.db)
      .updateTable("newsletters")
      .set({ scheduled_at: due })
      .where("id", "=", newsletter.id)
      .execute();
    const deadline = Date.now() + scaled(15_000);
    while ((await row(newsletter.id)).status !== "published" && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const published = await row(newsletter.id);
    expect(published.status, server.output()).toBe("published");
    expect(published.published_at).toBe(due);
    expect(published.scheduled_at).toBeNull();
    while ((await campaignsOf(newsletter.id)).length === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    // Another round, here and in the server, changes nothing more.
    const deps = {
      db: database.db,
      logger: pino({ level: "silent" }),
      transport: null as never,
      sessionSecret,
      env: { APP_URL: server.url },
    };
    await Promise.all([runSchedule(deps), runSchedule(deps)]);
    const campaigns = await campaignsOf(newsletter.id);
    expect(campaigns).toEqual([expect.objectContaining({ subject: "Due now" })]);
    expect(Number((await row(newsletter.id)).scheduled_send)).toBe(0);
    expect((await get(`/newsletter/${published.slug}`)).status).toBe(200);
  });

  it("publishes a due draft without a send when none was asked for, even when two rounds race", async () => {
    const newsletter = await draft("Quietly out");
    await crossTenant(database.db)
      .updateTable("newsletters")
      .set({ scheduled_at: new Date(Date.now() - 1_000).toISOString(), scheduled_send: 0 })
      .where("id", "=", newsletter.id)
      .execute();
    const deps = {
      db: database.db,
      logger: pino({ level: "silent" }),
      transport: null as never,
      sessionSecret,
      env: { APP_URL: server.url },
    };
    await Promise.all([runSchedule(deps), runSchedule(deps)]);
    expect((await row(newsletter.id)).status).toBe("published");
    expect(await campaignsOf(newsletter.id)).toEqual([]);
  });

  describe("previews", () => {
    it("shows staff a draft exactly as the public page would, and no one else", async () => {
      const newsletter = await draft("Preview me");
      const page = await get(`/admin/newsletter/preview/${newsletter.id}`, { cookie: editor });
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain('id="newsletter-title"');
      expect(textOf(html)).toContain("Preview of a draft: readers cannot see it yet");
      expect(textOf(html)).toContain("Monday's words.");
      expect(html).toContain('name="robots" content="noindex"');
      // The phone view frames this page: only this page may be framed, by its own site.
      expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'self'");
      expect((await get("/about")).headers.get("content-security-policy")).toContain(
        "frame-ancestors 'none'",
      );
      expect((await get(`/admin/newsletter/preview/${newsletter.id}`)).status).toBe(302);
      const other = await get(`/admin/newsletter/preview/${newsletter.id}`, {
        cookie: `${otherEditor}; herald_subdomain=keydiscovery`,
      });
      expect(other.status).toBe(404);
    });

    it("gives reviewers a signed link that works for 7 days until revoked", async () => {
      const newsletter = await draft("For review");
      const made = await postForm(
        server.url,
        `/admin/newsletter/edit/${newsletter.id}`,
        { intent: "share" },
        editor,
      );
      expect(made.status).toBe(200);
      const url = /id="share-url"[^>]*value="([^"]+)"/.exec(await made.text())?.[1] ?? "";
      expect(url).toMatch(/\/newsletter\/preview\/[0-9a-f-]{36}\.[0-9a-z]+\.[A-Za-z0-9_-]{22}$/);
      const path = new URL(url).pathname;

      const shared = await get(path);
      expect(shared.status).toBe(200);
      expect(shared.headers.get("cache-control")).toBe("private, no-store");
      expect(shared.headers.get("referrer-policy")).toBe("no-referrer");
      const html = await shared.text();
      expect(textOf(html)).toContain("For review");
      expect(textOf(html)).toContain("It is not published yet; this link works until");
      expect(html).toContain('name="robots" content="noindex"');

      // A changed signature, another site, an expired link: not found, nothing shown.
      const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
      const swap = (text: string, at: number, change: (index: number) => number) =>
        `${text.slice(0, at)}${alphabet[change(alphabet.indexOf(text.at(at) ?? "A"))]}${text.slice(at + 1)}`;
      // A changed signature; and the same bytes spelt differently (base64 ignores the last
      // character's low bits): neither is the link that was given out.
      const tampered = swap(path, path.length - 5, (index) => (index + 1) % 64);
      const respelt = swap(path, path.length - 1, (index) => index ^ 1);
      for (const [label, response] of [
        ["tampered", await get(tampered)],
        ["respelt", await get(respelt)],
        ["other site", await get(path, { cookie: "herald_subdomain=keydiscovery" })],
      ] as const) {
        expect(response.status, label).toBe(404);
        expect(await response.text(), label).not.toContain("For review");
      }
      const old = await createPreviewLink(
        { db: database.db, tenantId: "main", sessionSecret },
        newsletter.id,
        Date.now() - 8 * 86_400_000,
      );
      expect((await get(old?.path ?? "")).status).toBe(404);

      const revoke = await postForm(
        server.url,
        `/admin/newsletter/edit/${newsletter.id}`,
        { intent: "revoke-share" },
        editor,
      );
      expect(revoke.status).toBe(302);
      expect((await get(path)).status).toBe(404);
      const again = await postForm(
        server.url,
        `/admin/newsletter/edit/${newsletter.id}`,
        { intent: "share" },
        editor,
      );
      const fresh = /id="share-url"[^>]*value="([^"]+)"/.exec(await again.text())?.[1] ?? "";
      expect((await get(new URL(fresh).pathname)).status).toBe(200);
    });

    it("refuses share links to anyone but the newsletter's site staff", async () => {
      const newsletter = await draft("Guarded");
      const anonymous = await fetch(`${server.url}/admin/newsletter/edit/${newsletter.id}`, {
        method: "POST",
        body: new URLSearchParams({ intent: "share" }),
        headers: { origin: server.url },
        redirect: "manual",
      });
      expect(anonymous.status).toBe(302);
      const other = await postForm(
        server.url,
        `/admin/newsletter/edit/${newsletter.id}`,
        { intent: "share" },
        `${otherEditor}; herald_subdomain=keydiscovery`,
      );
      expect(other.status).toBe(404);
      expect((await row(newsletter.id)).preview_key).toBeNull();
    });
  });
});
