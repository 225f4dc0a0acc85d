import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateToLatest } from "../../server/db/migrate";
import { crossTenant } from "../../server/db/tenant-guard";
import { createNewsletter } from "../../server/newsletters/editing";
import { publishNewsletter } from "../../server/newsletters/newsletters";
import { recordEvent } from "../../server/subscribers/events";
import { subscriberGrowth } from "../../server/subscribers/growth";
import { listTenantLists } from "../../server/subscribers/lists";
import { seedTenants } from "../../server/tenants/seed";
import { getTenant } from "../../server/tenants/store";
import { createStaffUser, signIn } from "../support/auth";
import { createTestDatabase, type TestDatabase, testDialects } from "../support/database";
import { sendAsEmail } from "../support/forms";
import { textOf } from "../support/html";
import { type RunningServer, startServer } from "../support/server";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink";
import { insertSubscriber } from "../support/subscribers";
import { scaled } from "../support/timing";

/*
 * Issue 35, target 7: the dashboard's numbers come from this tenant's data only, and the staff
 * navigation's tenant menu offers exactly the tenants a staff member is granted.
 */

const SECRET = "admin-frame-secret-0123456789abcdefghij";
const DAY_MS = 86_400_000;
const daysAgo = (days: number) => new Date(Date.now() - days * DAY_MS).toISOString();

/** The text of one of the dashboard's figures. */
function figure(html: string, id: string): string {
  const match = new RegExp(`data-testid="dashboard-${id}"[^>]*>([\\s\\S]*?)</div>`).exec(html);
  if (!match) throw new Error(`no figure ${id} on the page`);
  return textOf(match[1] ?? "").trim();
}

/** The links of the staff navigation's tenant menu, on the desktop row. */
function tenantMenuLinks(html: string): string[] {
  const row = /data-testid="staff-nav-row"[\s\S]*?<\/ul><details/.exec(html)?.[0] ?? "";
  const tenantMenu = row.slice(row.lastIndexOf("<summary"));
  return [...tenantMenu.matchAll(/<a [^>]*href="([^"]+)"/g)].map((m) => m[1] ?? "");
}

/** Sign Out buttons below the site header (the page's own). */
function signOutsInContent(html: string): number {
  return (html.slice(html.indexOf('id="main"')).match(/>Sign Out</g) ?? []).length;
}

describe.each(testDialects())("the admin frame on %s", (dialect) => {
  let database: TestDatabase;
  let sink: SmtpSink;
  let server: RunningServer;
  const cookies = { editor: "", kdEditor: "", both: "", superAdmin: "" };
  const get = (path: string, cookie: string) =>
    fetch(`${server.url}${path}`, { headers: { cookie }, redirect: "manual" });

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    await migrateToLatest(database.db);
    await seedTenants(database.db);
    const db = crossTenant(database.db);
    const listOf = async (tenantId: string) =>
      (await listTenantLists(db, (await getTenant(db, tenantId)).config)).find(
        (list) => list.key === "newsletter",
      )?.id ?? 0;
    const mainList = await listOf("main");
    // main: three who signed up this month, one who left this month, one from long ago.
    const signUp = async (tenantId: string, email: string, listId: number, days: number) => {
      const id = await insertSubscriber(db, { email, tenantId, listIds: [listId] });
      const lists = ["newsletter"];
      await recordEvent(
        db,
        tenantId,
        { subscriberId: id, kind: "signed-up", detail: { source: "form", lists, active: true } },
        daysAgo(days),
      );
      return id;
    };
    for (const index of [0, 1, 2]) await signUp("main", `reader${index}@example.com`, mainList, 5);
    await signUp("main", "old@example.com", mainList, 60);
    // A double opt-in: signed up three days ago, confirmed yesterday.
    const pending = await insertSubscriber(db, {
      email: "pending@example.com",
      listIds: [mainList],
    });
    await recordEvent(
      db,
      "main",
      {
        subscriberId: pending,
        kind: "signed-up",
        detail: { source: "form", lists: ["newsletter"], active: false },
      },
      daysAgo(3),
    );
    await recordEvent(
      db,
      "main",
      { subscriberId: pending, kind: "confirmed", detail: { lists: ["newsletter"] } },
      daysAgo(1),
    );
    const leaver = await signUp("main", "leaver@example.com", mainList, 40);
    await db
      .updateTable("subscribers")
      .set({ status: "unsubscribed", unsubscribed_at: daysAgo(2) })
      .where("id", "=", leaver)
      .execute();
    await recordEvent(
      db,
      "main",
      { subscriberId: leaver, kind: "unsubscribed", detail: { via: "link" } },
      daysAgo(2),
    );
    // The other tenant's people and drafts must not show in main's numbers.
    const kdList = await listOf("keydiscovery");
    for (const index of [0, 1]) await signUp("keydiscovery", `kd${index}@example.com`, kdList, 1);

    const input = {
      title: "Issue 1",
      excerpt: "An issue",
      content: '<p>Read <a href="https://example.com/guide">the guide</a>.</p>',
      readTime: 2,
    };
    const main = { db, tenantId: "main", authorId: null };
    const published = (await createNewsletter(main, input)).id;
    await publishNewsletter(main, published);
    await createNewsletter(main, { ...input, title: "Draft one" });
    await createNewsletter(main, { ...input, title: "Draft two" });
    await createNewsletter({ ...main, tenantId: "keydiscovery" }, { ...input, title: "KD draft" });

    sink = await startSmtpSink();
    server = await startServer({
      databaseUrl: database.url,
      env: { SMTP_URL: sink.url, SESSION_SECRET: SECRET, SEND_RATE: "0" },
    });
    const users: Record<keyof typeof cookies, Parameters<typeof createStaffUser>[1]> = {
      editor: { email: "editor@example.com", products: { main: true } },
      kdEditor: { email: "kd@example.com", products: { keydiscovery: true } },
      both: { email: "both@example.com", products: { main: true, keydiscovery: true } },
      superAdmin: { email: "chief@example.com", role: "super_admin" },
    };
    for (const key of Object.keys(cookies) as (keyof typeof cookies)[]) {
      cookies[key] = await signIn(server.url, (await createStaffUser(db, users[key])).email);
    }

    // The last campaign: sent to main's five active readers, two open it, one clicks.
    const sent = await sendAsEmail(
      server.url,
      `/admin/newsletter/send/${published}`,
      {
        subject: "Issue 1 by mail",
        senderName: "Editors",
        senderEmail: "editors@keydiscovery.com",
        lists: ["newsletter"],
        trackOpens: "on",
        trackClicks: "on",
        mode: "now",
        intent: "create",
      },
      cookies.editor,
    );
    expect(sent.status, textOf(await sent.clone().text()).slice(0, 2000)).toBe(303);
    const readers = ["reader0@example.com", "reader1@example.com"];
    const mails = await Promise.all(
      readers.map((reader) => sink.waitFor((mail) => mail.to.includes(reader), 15_000)),
    );
    for (const mail of mails) {
      const pixel = mail.html.match(/src="(http[^"]+\/t\/o\/[^"]+)"/)?.[1] ?? "";
      expect((await fetch(pixel.replaceAll("&amp;", "&"))).status).toBe(200);
    }
    const link = mails[1]?.html.match(/href="(http[^"]+\/t\/c\/[^"]+)"/)?.[1] ?? "";
    expect((await fetch(link.replaceAll("&amp;", "&"), { redirect: "manual" })).status).toBe(302);
  });

  afterAll(async () => {
    await server?.stop();
    await sink?.stop();
    await database?.drop();
  });

  it("shows the tenant's subscribers, growth, last campaign and drafts on the dashboard", async () => {
    // Sending finishes on its own: wait until the last of the five is sent.
    const deadline = Date.now() + scaled(15_000);
    let html = "";
    while (Date.now() < deadline) {
      html = await (await get("/admin/dashboard", cookies.editor)).text();
      if (figure(html, "last-campaign").includes("of 5 sent")) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(figure(html, "subscribers")).toBe("Active subscribers 5 6 in all");
    expect(figure(html, "growth")).toBe("Growth, last 30 days +3 4 sign-ups, 1 unsubscribed");
    // The same sums as the subscribers page's growth chart over its 30 days.
    const chart = await subscriberGrowth(
      database.db,
      (await getTenant(crossTenant(database.db), "main")).config,
      { days: 30 },
    );
    const total = (key: "new" | "unsubscribed" | "net") =>
      chart.reduce((sum, day) => sum + day[key], 0);
    expect([total("net"), total("new"), total("unsubscribed")]).toEqual([3, 4, 1]);
    expect(figure(html, "last-campaign")).toBe(
      "Last campaign opens 40% Issue 1 by mail : 2 opened, 1 clicked (20%) of 5 sent",
    );
    expect(figure(html, "drafts")).toBe("Drafts waiting 2 2 newsletter drafts , 0 campaign drafts");
    // SPEC's dashboard: its own Sign Out beside "Create New Newsletter" (and the bar's).
    expect(signOutsInContent(html)).toBe(1);
  });

  it("shows the other tenant its own numbers, and none before any campaign", async () => {
    const html = await (
      await get("/admin/dashboard?subdomain=keydiscovery", cookies.kdEditor)
    ).text();
    expect(figure(html, "subscribers")).toBe("Active subscribers 2 2 in all");
    expect(figure(html, "last-campaign")).toBe("Last campaign opens – No campaign sent yet.");
    expect(figure(html, "drafts")).toContain("1 newsletter draft ,");
    expect((await get("/admin/dashboard", cookies.kdEditor)).status).toBe(403);
  });

  it("puts one Sign Out on the other staff pages: the site header's", async () => {
    for (const path of ["/admin/lists", "/admin/subscribers", "/admin/campaigns"]) {
      const html = await (await get(path, cookies.editor)).text();
      expect(signOutsInContent(html), path).toBe(0);
      expect(html.slice(0, html.indexOf('id="main"')), path).toContain(">Sign Out<");
    }
  });

  it("offers in the tenant menu exactly the other tenants a staff member may manage", async () => {
    const menu = async (path: string, cookie: string) =>
      tenantMenuLinks(await (await get(path, cookie)).text());
    // One tenant: itself and the all-tenants page, nothing else.
    expect(await menu("/admin/lists", cookies.editor)).toEqual(["/admin/dashboard", "/admin/cms"]);
    expect(await menu("/admin/lists?subdomain=keydiscovery", cookies.kdEditor)).toEqual([
      "/admin/dashboard",
      "/admin/cms",
    ]);
    // On a host whose tenant is not theirs (the CMS page): that tenant's name is no link.
    expect(await menu("/admin/cms", cookies.kdEditor)).toEqual([
      "/admin/dashboard?subdomain=keydiscovery",
      "/admin/cms",
    ]);
    // Two granted tenants, or a super admin: the other one's admin, on its own host.
    expect(await menu("/admin/lists", cookies.both)).toEqual([
      "/admin/dashboard",
      "/admin/dashboard?subdomain=keydiscovery",
      "/admin/cms",
    ]);
    expect(await menu("/admin/lists?subdomain=keydiscovery", cookies.both)).toEqual([
      "/admin/dashboard",
      "/admin/dashboard?subdomain=main",
      "/admin/cms",
    ]);
    expect(await menu("/admin/lists", cookies.superAdmin)).toEqual([
      "/admin/dashboard",
      "/admin/dashboard?subdomain=keydiscovery",
      "/admin/cms",
    ]);
    // A tenant with a domain of its own: its admin is on that domain.
    await crossTenant(database.db)
      .updateTable("tenants")
      .set({ domain: "news.keydiscovery.example" })
      .where("id", "=", "keydiscovery")
      .execute();
    expect(await menu("/admin/segments", cookies.both)).toContain(
      "https://news.keydiscovery.example/admin/dashboard",
    );
  });

  it("fills the home page's hero with the latest issue, or with what an issue holds", async () => {
    const main = await (await get("/?subdomain=main", "")).text();
    const { slug } = await crossTenant(database.db)
      .selectFrom("newsletters")
      .select("slug")
      .where("tenant_id", "=", "main")
      .where("status", "=", "published")
      .executeTakeFirstOrThrow();
    expect(main).toMatch(/<h2 id="hero-issue-title"[^>]*>Issue 1<\/h2>/);
    expect(main).toContain(`href="/newsletter/${slug}"`);
    // Drafts are not issues: the other tenant has none published.
    const other = textOf(await (await get("/?subdomain=keydiscovery", "")).text());
    expect(other).toContain("What each issue holds.");
    expect(other).not.toContain("KD draft");
  });
});
