import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateToLatest } from "../../server/db/migrate";
import { crossTenant } from "../../server/db/tenant-guard";
import { createNewsletter } from "../../server/newsletters/editing";
import { publishNewsletter } from "../../server/newsletters/newsletters";
import { listTenantLists } from "../../server/subscribers/lists";
import { seedTenants } from "../../server/tenants/seed";
import { getTenant } from "../../server/tenants/store";
import { zonedLocalToUtc } from "../../shared/time-zone";
import { createStaffUser, signIn } from "../support/auth";
import {
  countRows,
  createTestDatabase,
  type TestDatabase,
  testDialects,
} from "../support/database";
import { postForm, sendAsEmail } from "../support/forms";
import { textOf } from "../support/html";
import { type RunningServer, startServer } from "../support/server";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink";
import { insertSubscriber } from "../support/subscribers";
import { scaled } from "../support/timing";

const SECRET = "campaigns-admin-secret-0123456789abcdef";

describe.each(testDialects())("sending a newsletter from the admin pages on %s", (dialect) => {
  let database: TestDatabase;
  let sink: SmtpSink;
  let server: RunningServer;
  const cookies = { editor: "", otherTenant: "", superAdmin: "" };
  let newsletterId = "";
  let draftId = "";

  const post = (path: string, fields: Record<string, string | string[]>, cookie = cookies.editor) =>
    postForm(server.url, path, fields, cookie);
  const get = (path: string, cookie = cookies.editor) =>
    fetch(`${server.url}${path}`, { headers: { cookie }, redirect: "manual" });
  const campaignCount = () => countRows(database.db, "campaigns");
  const compose = (overrides: Record<string, string | string[]> = {}) => ({
    subject: "The ESI protocol issue",
    senderName: "KeyDiscovery Editors",
    senderEmail: "editors@keydiscovery.com",
    lists: ["newsletter"],
    trackOpens: "on",
    trackClicks: "on",
    mode: "now",
    intent: "create",
    ...overrides,
  });

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    await migrateToLatest(database.db);
    await seedTenants(database.db);
    const tenant = (await getTenant(database.db, "main")).config;
    const lists = await listTenantLists(database.db, tenant);
    const newsletterList = lists.find((list) => list.key === "newsletter")?.id ?? 0;
    for (const [index, status] of (
      ["active", "active", "active", "unsubscribed"] as const
    ).entries()) {
      await insertSubscriber(database.db, {
        email: `reader${index}@example.com`,
        status,
        listIds: [newsletterList],
      });
    }
    const scope = { db: database.db, tenantId: "main", authorId: null };
    const input = {
      title: "Issue 7",
      excerpt: "Negotiating the ESI protocol",
      content:
        '<p>Newsletter</p><p>Read <a href="https://example.com/esi-guide">the guide</a> and <a href="https://example.com/checklist">the checklist</a>.</p><p></p>',
      readTime: 4,
    };
    newsletterId = (await createNewsletter(scope, input)).id;
    await publishNewsletter(scope, newsletterId);
    draftId = (await createNewsletter(scope, { ...input, title: "Draft" })).id;
    sink = await startSmtpSink();
    server = await startServer({
      databaseUrl: database.url,
      env: { SMTP_URL: sink.url, SESSION_SECRET: SECRET, SEND_RATE: "0" },
    });
    const users = {
      editor: await createStaffUser(database.db, {
        email: "editor@example.com",
        products: { main: true },
      }),
      otherTenant: await createStaffUser(database.db, {
        email: "kd@example.com",
        products: { keydiscovery: true },
      }),
      superAdmin: await createStaffUser(database.db, {
        email: "chief@example.com",
        role: "super_admin",
      }),
    };
    for (const key of Object.keys(cookies) as (keyof typeof cookies)[]) {
      cookies[key] = await signIn(server.url, users[key].email);
    }
  });

  afterAll(async () => {
    await server?.stop();
    await sink?.stop();
    await database?.drop();
  });

  it("lets only staff of this tenant in", async () => {
    const anonymous = await get("/admin/campaigns", "");
    expect(anonymous.status).toBe(302);
    expect(anonymous.headers.get("location")).toMatch(/^\/admin\/login/);
    expect((await get("/admin/campaigns", cookies.otherTenant)).status).toBe(403);
    expect((await get(`/admin/newsletter/send/${newsletterId}`, cookies.otherTenant)).status).toBe(
      403,
    );
    expect((await post(`/admin/newsletter/send/${newsletterId}`, compose(), "")).status).toBe(302);
    expect(await campaignCount()).toBe(0);
  });

  it("offers the form with SPEC's defaults, and refuses a draft newsletter", async () => {
    const page = await (await get(`/admin/newsletter/send/${newsletterId}`)).text();
    expect(page).toContain('value="Issue 7"');
    expect(page).toMatch(/<input[^>]*name="lists"[^>]*checked=""[^>]*value="newsletter"/);
    expect((await get(`/admin/newsletter/send/${draftId}`)).status).toBe(409);
    expect((await get("/admin/newsletter/send/no-such-id")).status).toBe(404);
  });

  it("answers each bad input with SPEC's message and creates nothing", async () => {
    const cases: [Record<string, string | string[]>, string][] = [
      [{ subject: "   " }, "Subject and content are required"],
      [{ senderEmail: "editors@nodot" }, "Invalid sender email format"],
      [{ lists: ["no-such-list"] }, "No valid groups specified"],
      [{ lists: [] }, "No valid groups specified"],
      [{ mode: "schedule", scheduledAt: "" }, "Choose when to send it"],
      [{ subject: "x".repeat(301) }, "Subject must be at most 300 characters"],
    ];
    for (const [fields, message] of cases) {
      const response = await post(`/admin/newsletter/send/${newsletterId}`, compose(fields));
      expect(response.status, message).toBe(400);
      expect(textOf(await response.text())).toContain(message);
    }
    expect(await campaignCount()).toBe(0);
  });

  it("previews the real email and sends a test to the staff member only", async () => {
    const preview = await (
      await post(`/admin/newsletter/send/${newsletterId}`, compose({ intent: "preview" }))
    ).text();
    expect(preview).toContain('title="Email preview"');
    expect(preview).toContain("the guide");
    expect(preview).not.toMatch(/srcDoc="[^"]*&gt;Newsletter&lt;\/p/);
    const tested = await post(
      `/admin/newsletter/send/${newsletterId}`,
      compose({ intent: "test" }),
    );
    expect(textOf(await tested.text())).toContain("Test email sent to editor@example.com.");
    const mail = await sink.waitFor((m) => m.to.includes("editor@example.com"));
    expect(mail.subject).toBe("[Test] The ESI protocol issue");
    expect(mail.html).toContain("https://example.com/esi-guide");
    expect(sink.messages.filter((m) => m.to[0]?.startsWith("reader"))).toHaveLength(0);
    expect(await campaignCount()).toBe(0);
  });

  it("reviews before sending: the recipients after suppression, the email at desktop and phone width", async () => {
    const path = `/admin/newsletter/send/${newsletterId}`;
    const review = await post(path, compose({ intent: "review" }));
    expect(review.status).toBe(200);
    const html = await review.text();
    // Three active readers; the unsubscribed one is never counted.
    expect(textOf(html)).toContain("Recipients 3 recipients");
    expect(html).toContain('title="Email preview, desktop width"');
    expect(html).toContain('title="Email preview, phone width"');
    expect(textOf(html)).toContain("Send to 3 recipients");
    const audience = /name="confirmedAudience" value="([^"]*)"/.exec(html)?.[1] ?? "";
    expect(audience).toMatch(/^\d+$/);

    // Pressing the old one-click "send" shows the review; a stale count or other lists, again.
    const attempts: Record<string, string>[] = [
      {},
      { confirmedRecipients: "2", confirmedAudience: audience },
      { confirmedRecipients: "3", confirmedAudience: `${audience},999` },
    ];
    for (const fields of attempts) {
      const unreviewed = await post(path, compose(fields));
      expect(unreviewed.status).toBe(200);
      expect(textOf(await unreviewed.text())).toContain("Send to 3 recipients");
    }
    expect(await campaignCount()).toBe(0);
  });

  let campaignId = "";

  it("sends to the list's active subscribers, marks the newsletter sent and shows the campaign", async () => {
    const response = await sendAsEmail(
      server.url,
      `/admin/newsletter/send/${newsletterId}`,
      compose(),
      cookies.editor,
    );
    expect(response.status).toBe(303);
    campaignId = response.headers.get("location")?.split("/").pop() ?? "";
    expect(campaignId).toMatch(/^[0-9a-f-]{36}$/);
    for (const deadline = Date.now() + scaled(10_000); Date.now() < deadline; ) {
      const row = await crossTenant(database.db)
        .selectFrom("campaigns")
        .select("status")
        .where("id", "=", campaignId)
        .executeTakeFirstOrThrow();
      if (row.status === "sent") break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const readers = sink.messages.filter((m) => m.to[0]?.startsWith("reader")).map((m) => m.to[0]);
    expect(readers.sort()).toEqual([
      "reader0@example.com",
      "reader1@example.com",
      "reader2@example.com",
    ]);
    const mail = sink.messages.find((m) => m.to.includes("reader0@example.com"));
    expect(mail?.parsed.from?.value[0]?.address).toBe("editors@keydiscovery.com");
    // The envelope sender is the delivery's VERP bounce address (issue 12).
    expect(mail?.from).toMatch(/^bounces\+\d+\.[0-9a-f]{24}@localhost$/);
    expect(mail?.subject).toBe("The ESI protocol issue");
    expect(mail?.html).not.toContain(">Newsletter<");
    const newsletter = await crossTenant(database.db)
      .selectFrom("newsletters")
      .selectAll()
      .where("id", "=", newsletterId)
      .executeTakeFirstOrThrow();
    // "View in browser" leads to the readable address, tagged as mail (decision 047).
    expect(mail?.html).toContain(
      `/newsletter/${newsletter.slug}?utm_source=email&amp;utm_medium=email"`,
    );
    expect(newsletter).toMatchObject({ campaign_id: campaignId, send_status: "sent" });
    expect(newsletter.sent_at).toBeTruthy();

    const list = textOf(await (await get("/admin/campaigns")).text());
    expect(list).toContain("The ESI protocol issue");
    expect(list).toContain("100% · 3 sent · 0 failed · 3 recipients");
    expect(textOf(await (await get("/admin/campaigns?status=sent")).text())).toContain(
      "The ESI protocol issue",
    );
    expect(textOf(await (await get("/admin/campaigns?status=draft")).text())).toContain(
      "No draft campaigns.",
    );
  });

  it("counts opens and clicks, unique and total, and refuses tampered links", async () => {
    const mail = sink.messages.find((m) => m.to.includes("reader1@example.com"));
    const pixel =
      mail?.html.match(/src="(http[^"]+\/t\/o\/[^"]+)"/)?.[1]?.replaceAll("&amp;", "&") ?? "";
    const clicks = [...(mail?.html.matchAll(/href="(http[^"]+\/t\/c\/[^"]+)"/g) ?? [])].map((m) =>
      (m[1] ?? "").replaceAll("&amp;", "&"),
    );
    expect(clicks).toHaveLength(2);
    const opened = await fetch(pixel);
    expect(opened.status).toBe(200);
    expect(opened.headers.get("content-type")).toBe("image/gif");
    await fetch(pixel);
    const click = await fetch(clicks[1] ?? "", { redirect: "manual" });
    expect(click.status).toBe(302);
    expect(click.headers.get("location")).toBe("https://example.com/checklist");
    await fetch(clicks[1] ?? "", { redirect: "manual" });

    const [base, token] = (clicks[0] ?? "").split("/t/c/");
    const [delivery, , signature] = (token ?? "").split(".");
    const tampered = [
      `${delivery}.5.${signature}`,
      `${Number(delivery) + 1}.0.${signature}`,
      "1.0.AAAAAAAAAAAAAAAAAAAAAA",
    ];
    for (const bad of tampered) {
      expect((await fetch(`${base}/t/c/${bad}`, { redirect: "manual" })).status).toBe(404);
    }
    // A tampered open is not counted either, but still answers an image.
    expect(
      (await fetch(pixel.replace(/\.[\w-]+\.gif$/, ".AAAAAAAAAAAAAAAAAAAAAA.gif"))).status,
    ).toBe(200);

    // Reader 2 leaves through the mail's one-click header (RFC 8058): counted against this campaign.
    const leaving = sink.messages.find((m) => m.to.includes("reader2@example.com"));
    const oneClick = leaving?.headers.get("list-unsubscribe")?.match(/<(http[^>]+)>/)?.[1] ?? "";
    const left = await fetch(oneClick, {
      method: "POST",
      body: "List-Unsubscribe=One-Click",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(left.status).toBe(200);

    // Apple's privacy proxy fetches reader 3's pixel: flagged, not counted as a read.
    const proxied = sink.messages.find((m) => m.to.includes("reader0@example.com"));
    const proxiedPixel =
      proxied?.html.match(/src="(http[^"]+\/t\/o\/[^"]+)"/)?.[1]?.replaceAll("&amp;", "&") ?? "";
    expect((await fetch(proxiedPixel, { headers: { "user-agent": "Mozilla/5.0" } })).status).toBe(
      200,
    );
    // Staff looking at a campaign mail while signed in are not readers either.
    expect((await fetch(pixel, { headers: { cookie: cookies.editor } })).status).toBe(200);

    const report = textOf(await (await get(`/admin/campaigns/${campaignId}`)).text());
    expect(report).toMatch(/Machine opens \(not counted\)\s*1/);
    expect(report).toMatch(/Unsubscribes\s*1/);
    expect(report).toMatch(/Unique opens\s*1 \(33\.3%\)/);
    expect(report).toMatch(/Total opens\s*2/);
    expect(report).toMatch(/Unique clicks\s*1 \(33\.3%\)/);
    expect(report).toMatch(/Total clicks\s*2/);
    expect(report).toContain("https://example.com/checklist");
    const lists = textOf(await (await get("/admin/campaigns")).text());
    expect(lists).toMatch(/KeyDiscovery Newsletter\s*2\s*3\s*1\s*1/);
    // the comparison: 3 sent, 1 of 3 opened and clicked, 1 unsubscribe, no bounce
    expect(lists).toMatch(/Campaigns compared.*The ESI protocol issue .*? 3 33\.3% 33\.3% 1 0/);
  });

  it("keeps campaigns to their tenant and refuses actions a state does not allow", async () => {
    expect(
      (await get(`/admin/campaigns/${campaignId}?subdomain=keydiscovery`, cookies.superAdmin))
        .status,
    ).toBe(404);
    const cancel = await post(`/admin/campaigns/${campaignId}`, { action: "cancel" });
    expect(cancel.status).toBe(409);
    expect(textOf(await cancel.text())).toContain("A sent campaign cannot be cancelled");
    // a draft campaign can be sent later from its page
    const draft = await post(
      `/admin/newsletter/send/${newsletterId}`,
      compose({ mode: "draft", subject: "Later" }),
    );
    expect(draft.status).toBe(303);
    const draftPage = draft.headers.get("location") ?? "";
    expect(textOf(await (await get(draftPage)).text())).toContain("Send now");
    const status = async () =>
      (
        await crossTenant(database.db)
          .selectFrom("campaigns")
          .select("status")
          .where("id", "=", draftPage.split("/").pop() ?? "")
          .executeTakeFirstOrThrow()
      ).status;
    // "Send now" shows the review, "Cancel campaign" asks first, saying to how many; asking
    // changes nothing.
    const sendAsked = await post(draftPage, { action: "send" });
    expect(sendAsked.status).toBe(200);
    // (one of the three readers unsubscribed in an earlier test)
    const review = textOf(await sendAsked.text());
    expect(review).toContain("Review");
    expect(review).toContain("Send to 2 recipients");
    const cancelAsked = await post(draftPage, { action: "cancel" });
    expect(textOf(await cancelAsked.text())).toContain("Cancel this campaign?");
    expect(await status()).toBe("draft");
    const cancelled = await post(draftPage, { action: "cancel", confirmed: "yes" });
    expect(cancelled.status).toBe(200);
    expect(await status()).toBe("cancelled");
  });

  it("edits a scheduled campaign until it starts, with times in the tenant's time zone", async () => {
    const zoneSaved = await post(
      "/admin/tenants/main",
      { intent: "save", name: "KeyDiscovery", timeZone: "America/New_York" },
      cookies.superAdmin,
    );
    expect(zoneSaved.status).toBe(302);
    const day = new Date(Date.now() + 4 * 86_400_000).toISOString().slice(0, 10);
    // the form reads the time in the tenant's zone, whatever the browser's
    const scheduled = await sendAsEmail(
      server.url,
      `/admin/newsletter/send/${newsletterId}`,
      compose({ mode: "schedule", scheduledAt: `${day}T09:30`, subject: "Scheduled issue" }),
      cookies.editor,
    );
    expect(scheduled.status).toBe(303);
    const page = scheduled.headers.get("location") ?? "";
    const id = page.split("/").pop() ?? "";
    const stored = () =>
      crossTenant(database.db)
        .selectFrom("campaigns")
        .selectAll()
        .where("id", "=", id)
        .executeTakeFirstOrThrow();
    expect((await stored()).scheduled_at).toBe(zonedLocalToUtc(`${day}T09:30`, "America/New_York"));
    const shown = textOf(await (await get(page)).text());
    expect(shown).toMatch(/sends \w{3} \d{1,2}, \d{4}, 09:30 America\/New York/);
    expect(shown).toContain("2 recipients if it were sent now");
    expect(shown).toContain("Edit campaign");

    const form = await (await get(`${page}/edit`)).text();
    expect(form).toContain(`value="${day}T09:30"`);
    expect(form).toContain('value="Scheduled issue"');
    expect(textOf(form)).toContain("America/New York time");

    // bad input: the message, and nothing changes
    const before = await stored();
    for (const [fields, message] of [
      [{ subject: "" }, "Subject and content are required"],
      [{ lists: ["no-such-list"] }, "No valid groups specified"],
      [{ scheduledAt: "" }, "Choose when to send it"],
      [{ scheduledAt: "2020-01-01T09:00" }, "The send time must be in the future"],
      [{ mode: "now" }, "Choose when to send it"],
      [{ senderEmail: "<script>@x" }, "Invalid sender email format"],
    ] as [Record<string, string | string[]>, string][]) {
      const bad = await post(`${page}/edit`, {
        ...compose({ mode: "schedule", scheduledAt: `${day}T09:30` }),
        ...fields,
      });
      expect(bad.status, message).toBeGreaterThanOrEqual(400);
      expect(textOf(await bad.text())).toContain(message);
    }
    expect(await stored()).toEqual(before);

    // another tenant's staff cannot see or change it
    expect((await get(`${page}/edit`, cookies.otherTenant)).status).toBe(403);
    const foreign = await post(
      `${page}/edit?subdomain=keydiscovery`,
      compose({ mode: "schedule", scheduledAt: `${day}T10:00`, subject: "Hijacked" }),
      cookies.superAdmin,
    );
    expect(foreign.status).toBe(404);

    const edited = await post(`${page}/edit`, {
      ...compose({ mode: "schedule", scheduledAt: `${day}T17:45`, subject: "Edited issue" }),
      lists: ["newsletter", "product-updates"],
      replyTo: "desk@keydiscovery.example",
      trackClicks: "",
    });
    expect(edited.status).toBe(303);
    expect(edited.headers.get("location")).toBe(`${page}?saved=1`);
    const after = await stored();
    expect(after).toMatchObject({
      subject: "Edited issue",
      name: "Edited issue",
      reply_to: "desk@keydiscovery.example",
      track_clicks: 0,
      status: "scheduled",
      scheduled_at: zonedLocalToUtc(`${day}T17:45`, "America/New_York"),
    });
    expect((JSON.parse(after.list_ids) as number[]).length).toBe(2);
    expect(textOf(await (await get(`${page}?saved=1`)).text())).toContain("Changes saved.");

    // the newsletter was edited since: its content is taken again only when asked
    await crossTenant(database.db)
      .updateTable("newsletters")
      .set({ content: "<p>Corrected: the ESI protocol, second edition.</p>" })
      .where("id", "=", newsletterId)
      .execute();
    const kept = await post(`${page}/edit`, compose({ mode: "draft", subject: "Edited issue" }));
    expect(kept.status).toBe(303);
    expect((await stored()).content).not.toContain("second edition");
    const refreshed = await post(
      `${page}/edit`,
      compose({
        mode: "schedule",
        scheduledAt: `${day}T17:45`,
        subject: "Edited issue",
        refreshContent: "on",
      }),
    );
    expect(refreshed.status).toBe(303);
    expect((await stored()).content).toContain("second edition");

    // back to a draft: no send time
    const toDraft = await post(`${page}/edit`, compose({ mode: "draft", subject: "Edited issue" }));
    expect(toDraft.status).toBe(303);
    expect(await stored()).toMatchObject({ status: "draft", scheduled_at: null });

    // once it has started, it can no longer be edited
    // "Send now" sends with what its review showed
    const reviewed = await (await post(page, { action: "send" })).text();
    const showed = (name: string) =>
      new RegExp(`name="${name}" value="([^"]*)"`).exec(reviewed)?.[1] ?? "";
    const sent = await post(page, {
      action: "send",
      confirmedRecipients: showed("confirmedRecipients"),
      confirmedAudience: showed("confirmedAudience"),
    });
    expect(sent.status).toBe(200);
    expect((await stored()).status).not.toBe("draft");
    const late = await post(`${page}/edit`, compose({ mode: "draft", subject: "Too late" }));
    expect(late.status).toBe(409);
    expect(textOf(await late.text())).toContain(
      "This campaign has started sending; it can no longer be edited.",
    );
    expect((await stored()).subject).toBe("Edited issue");
    expect(textOf(await (await get(`${page}/edit`)).text())).toContain(
      "it can no longer be edited",
    );
  });
});
