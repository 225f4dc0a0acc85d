import Papa from "papaparse";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCampaign } from "../../server/campaigns/campaigns";
import { recipientActivityPage } from "../../server/campaigns/recipient-activity";
import { migrateToLatest } from "../../server/db/migrate";
import { crossTenant, tenantDb } from "../../server/db/tenant-guard";
import { smtpTransport } from "../../server/mail/transport";
import { listTenantLists } from "../../server/subscribers/lists";
import { seedTenants } from "../../server/tenants/seed";
import { getTenant } from "../../server/tenants/store";
import { createStaffUser, signIn } from "../support/auth";
import { waitForStatus } from "../support/campaigns";
import {
  countRows,
  createTestDatabase,
  type TestDatabase,
  testDialects,
} from "../support/database";
import { postForm } from "../support/forms";
import { textOf } from "../support/html";
import { type RunningServer, startServer } from "../support/server";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink";
import { insertSubscriber } from "../support/subscribers";

/*
 * Issue 35, target 4: who did what with a campaign — per recipient, filtered, paged, as CSV; a
 * click is an open; "Send to those who did not open" makes one draft that reaches, when it is
 * sent, those who still have not opened and are still subscribed.
 */

const SECRET = "campaign-activity-secret-0123456789abcdef";
const BROWSER = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 Version/17.0";
const silent = pino({ level: "silent" });
const readers = ["r0", "r1", "r2", "r3", "r4", "r5"].map((name) => `${name}@example.com`);

describe.each(testDialects())("a campaign's recipients and their activity on %s", (dialect) => {
  let database: TestDatabase;
  let sink: SmtpSink;
  let server: RunningServer;
  const cookies = { editor: "", otherTenant: "", noPermission: "" };
  let campaignId = "";
  let untrackedId = "";
  let otherTenantCampaignId = "";
  let resendId = "";

  const get = (path: string, cookie = cookies.editor) =>
    fetch(`${server.url}${path}`, { headers: { cookie }, redirect: "manual" });
  const post = (path: string, fields: Record<string, string>, cookie = cookies.editor) =>
    postForm(server.url, path, fields, cookie);
  const mailTo = (email: string, id: string) =>
    sink.messages.find((mail) => mail.to.includes(email) && mail.messageId.includes(`.${id}@`));
  const trackingUrls = (email: string, id: string) => {
    const html = mailTo(email, id)?.html ?? "";
    const fromHtml = (url = "") => url.replaceAll("&amp;", "&");
    return {
      pixel: fromHtml(html.match(/src="(http[^"]+\/t\/o\/[^"]+)"/)?.[1]),
      clicks: [...html.matchAll(/href="(http[^"]+\/t\/c\/[^"]+)"/g)].map((m) => fromHtml(m[1])),
    };
  };
  /** The report's recipient list (the bounces section names addresses too). */
  const recipientsSection = async (query = "") => {
    const html = await (await get(`/admin/campaigns/${campaignId}${query}`)).text();
    return html.slice(
      html.indexOf('id="recipients-heading"'),
      html.indexOf('id="activity-heading"'),
    );
  };
  const open = (email: string, id: string, agent = BROWSER) =>
    fetch(trackingUrls(email, id).pixel, { headers: { "user-agent": agent } });

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    await migrateToLatest(database.db);
    await seedTenants(database.db);
    sink = await startSmtpSink();
    // r3's address does not exist: a 5xx at send time, a hard bounce.
    sink.answer = (to) => (to === "r3@example.com" ? 550 : undefined);
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
      noPermission: await createStaffUser(database.db, {
        email: "intern@example.com",
        products: {},
      }),
    };
    for (const key of Object.keys(cookies) as (keyof typeof cookies)[]) {
      cookies[key] = await signIn(server.url, users[key].email);
    }
    const tenant = (await getTenant(database.db, "main")).config;
    const list = (await listTenantLists(database.db, tenant)).find((l) => l.key === "newsletter");
    for (const email of readers) {
      await insertSubscriber(database.db, { email, status: "active", listIds: [list?.id ?? 0] });
    }
    const transport = smtpTransport(sink.url, 2);
    const ctx = {
      db: tenantDb(database.db, "main"),
      logger: silent,
      transport,
      tenant,
      origin: server.url,
      sessionSecret: SECRET,
    };
    const content =
      '<p>Read <a href="https://example.com/guide">the guide</a> or <a href="https://example.com/=SUM(1)">the sheet</a>.</p>';
    const campaign = await createCampaign(
      ctx,
      { subject: "Issue 9", content, groups: ["newsletter"], mode: "now" },
      null,
    );
    campaignId = campaign.id;
    const untracked = await createCampaign(
      ctx,
      { subject: "Untracked", content, groups: ["industry-news"], trackOpens: false },
      null,
    );
    untrackedId = untracked.id;
    await waitForStatus(database.db, campaignId, ["sent"]);
    await waitForStatus(database.db, untrackedId, ["sent"]);
    const kd = (await getTenant(database.db, "keydiscovery")).config;
    otherTenantCampaignId = (
      await createCampaign(
        { ...ctx, db: tenantDb(database.db, "keydiscovery"), tenant: kd },
        { subject: "Theirs", content, mode: "draft" },
        null,
      )
    ).id;
    transport.close();

    // r0 opens; r1 clicks the second link without loading images; Apple's proxy fetches r2's
    // pixel (a machine: not an open); r4 leaves through the one-click header; r5 does nothing.
    expect((await open("r0@example.com", campaignId)).status).toBe(200);
    await open("r0@example.com", campaignId);
    const click = await fetch(trackingUrls("r1@example.com", campaignId).clicks[1] ?? "", {
      redirect: "manual",
    });
    expect(click.headers.get("location")).toBe("https://example.com/=SUM(1)");
    await open("r2@example.com", campaignId, "Mozilla/5.0");
    const oneClick =
      mailTo("r4@example.com", campaignId)
        ?.headers.get("list-unsubscribe")
        ?.match(/<(http[^>]+)>/)?.[1] ?? "";
    const left = await fetch(oneClick, {
      method: "POST",
      body: "List-Unsubscribe=One-Click",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(left.status).toBe(200);
  });

  afterAll(async () => {
    await server?.stop();
    await sink?.stop();
    await database?.drop();
  });

  it("counts a click as an open, in the totals and for the reader", async () => {
    const report = textOf(await (await get(`/admin/campaigns/${campaignId}`)).text());
    expect(report).toMatch(/Unique opens\s*2 \(40%\)/);
    // r0's two loads and r1's click; the proxy's load is apart
    expect(report).toMatch(/Total opens\s*3/);
    expect(report).toMatch(/Machine opens \(not counted\)\s*1/);
    expect(report).toMatch(/Unique clicks\s*1 \(20%\)/);
    // A second click adds no second open.
    await fetch(trackingUrls("r1@example.com", campaignId).clicks[0] ?? "", { redirect: "manual" });
    const after = textOf(await (await get(`/admin/campaigns/${campaignId}`)).text());
    expect(after).toMatch(/Total opens\s*3/);
    expect(after).toMatch(/Total clicks\s*2/);
  });

  it("lists each recipient's delivery, opens, clicked links, bounce and unsubscribe", async () => {
    const html = await recipientsSection();
    const text = textOf(html);
    expect(text).toMatch(/All \( ?6 ?\)/);
    expect(text).toMatch(/Delivered \( ?5 ?\)/);
    expect(text).toMatch(/Opened \( ?2 ?\)/);
    expect(text).toMatch(/Did not open \( ?3 ?\)/);
    expect(text).toMatch(/Clicked \( ?1 ?\)/);
    expect(text).toMatch(/Bounced \( ?1 ?\)/);
    expect(text).toMatch(/Unsubscribed \( ?1 ?\)/);
    const rowOf = (email: string) =>
      textOf(
        html.match(new RegExp(`<tr[^>]*>(?:(?!</tr>).)*${email}(?:(?!</tr>).)*</tr>`, "s"))?.[0] ??
          "",
      )
        .replace(/\s+/g, " ")
        .trim();
    expect(rowOf("r1@example.com")).toMatch(/^r1@example\.com Delivered \S.*\d{4}.*https.*No$/);
    expect(rowOf("r1@example.com")).toContain("https://example.com/guide");
    expect(rowOf("r1@example.com")).toContain("https://example.com/=SUM(1)");
    expect(rowOf("r2@example.com")).toMatch(/Delivered\s*No\s*No\s*No/);
    expect(rowOf("r3@example.com")).toMatch(/Bounced\s*No\s*No\s*No/);
    expect(rowOf("r4@example.com")).toMatch(/Delivered\s*No\s*No\s*\w+/);
    expect(rowOf("r4@example.com")).not.toMatch(/No$/);
  });

  it("filters by state and by part of the address, and pages by delivery", async () => {
    const shown = async (query: string) => {
      const text = textOf(await recipientsSection(`?${query}`));
      return readers.filter((email) => text.includes(email));
    };
    expect(await shown("filter=opened")).toEqual(["r0@example.com", "r1@example.com"]);
    expect(await shown("filter=not-opened")).toEqual([
      "r2@example.com",
      "r4@example.com",
      "r5@example.com",
    ]);
    expect(await shown("filter=clicked")).toEqual(["r1@example.com"]);
    expect(await shown("filter=bounced")).toEqual(["r3@example.com"]);
    expect(await shown("filter=unsubscribed")).toEqual(["r4@example.com"]);
    expect(await shown("filter=delivered")).toEqual(readers.filter((e) => e !== "r3@example.com"));
    expect(await shown("q=R5")).toEqual(["r5@example.com"]);
    // wildcards are text; nonsense falls back to everyone, not an error
    expect(await shown("q=%25")).toEqual([]);
    expect(await shown("filter=<script>&after=x")).toEqual(readers);

    const db = tenantDb(database.db, "main");
    const page = (query: { after?: number; before?: number }) =>
      recipientActivityPage(db, campaignId, { filter: "all", q: "", ...query }, 2);
    const first = await page({});
    expect(first.rows.map((row) => row.email)).toEqual(readers.slice(0, 2));
    expect(first.previous).toBeNull();
    const second = await page({ after: first.next ?? -1 });
    expect(second.rows.map((row) => row.email)).toEqual(readers.slice(2, 4));
    const third = await page({ after: second.next ?? -1 });
    expect(third.rows.map((row) => row.email)).toEqual(readers.slice(4));
    expect(third.next).toBeNull();
    const back = await page({ before: third.previous ?? -1 });
    expect(back.rows.map((row) => row.email)).toEqual(readers.slice(2, 4));
    expect(back.next).toBe(second.next);
    expect((await page({ before: back.previous ?? -1 })).previous).toBeNull();
  });

  it("exports the recipients a filter keeps as CSV", async () => {
    const response = await get(`/admin/campaigns/${campaignId}/recipients.csv?filter=opened`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("private, no-store");
    const bytes = new Uint8Array(await response.arrayBuffer());
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const body = new TextDecoder().decode(bytes);
    const rows = Papa.parse<Record<string, string>>(body.trim(), { header: true }).data;
    expect(rows.map((row) => row.email)).toEqual(["r0@example.com", "r1@example.com"]);
    expect(rows[0]).toMatchObject({ delivery: "sent", opened: "yes", opens: "2", clicked: "no" });
    expect(rows[1]).toMatchObject({ opened: "yes", opens: "1", clicked: "yes", clicks: "2" });
    expect(rows[1]?.links?.split(" ").sort()).toEqual([
      "https://example.com/=SUM(1)",
      "https://example.com/guide",
    ]);
    const all = await (await get(`/admin/campaigns/${campaignId}/recipients.csv`)).text();
    expect(all.trim().split("\r\n")).toHaveLength(7);
    expect(all).toMatch(/r3@example\.com,failed,,no,,0,no,0,,\d{4}-/);
  });

  it("makes one draft for those who did not open, however often the button is pressed", async () => {
    const before = await countRows(database.db, "campaigns");
    const presses = await Promise.all([
      post(`/admin/campaigns/${campaignId}`, { action: "resend-unopened" }),
      post(`/admin/campaigns/${campaignId}`, { action: "resend-unopened" }),
    ]);
    expect(presses.map((press) => press.status)).toEqual([303, 303]);
    const [first, second] = presses.map((press) => press.headers.get("location"));
    expect(first).toBe(second);
    expect(await countRows(database.db, "campaigns")).toBe(before + 1);
    resendId = first?.split("/").pop() ?? "";
    const again = await post(`/admin/campaigns/${campaignId}`, { action: "resend-unopened" });
    expect(again.headers.get("location")).toBe(first);
    const page = textOf(await (await get(`/admin/campaigns/${resendId}`)).text());
    expect(page).toContain("only those who did not open Issue 9");
    expect(page).toMatch(/\bdraft\b/);
    const original = textOf(await (await get(`/admin/campaigns/${campaignId}`)).text());
    expect(original).toMatch(/The campaign to those who did not open \( ?draft ?\)/);
    expect(original).not.toContain("Send to those who did not open");
  });

  it("sends it, after the review, to those still unopened and subscribed, once each", async () => {
    // r5 opens the first mail after the draft was made: left out when it is sent; r4 left.
    await open("r5@example.com", campaignId);
    const review = await post(`/admin/campaigns/${resendId}`, { action: "send" });
    const html = await review.text();
    expect(textOf(html)).toContain("only those who did not open “Issue 9”");
    const recipients = /name="confirmedRecipients" value="(\d+)"/.exec(html)?.[1];
    const audience = /name="confirmedAudience" value="([^"]*)"/.exec(html)?.[1] ?? "";
    expect(recipients).toBe("1");
    expect(audience).toContain(`unopened:${campaignId}`);
    const sent = await post(`/admin/campaigns/${resendId}`, {
      action: "send",
      confirmedRecipients: "1",
      confirmedAudience: audience,
    });
    expect(sent.status).toBe(200);
    await waitForStatus(database.db, resendId, ["sent"]);
    const resent = sink.messages.filter((mail) => mail.messageId.includes(`.${resendId}@`));
    expect(resent.flatMap((mail) => mail.to)).toEqual(["r2@example.com"]);
    // the newsletter-less campaign: its row, not a newsletter, says what it was
    const row = await crossTenant(database.db)
      .selectFrom("campaigns")
      .select(["unopened_of", "total"])
      .where("id", "=", resendId)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ unopened_of: campaignId, total: 1 });
  });

  it("refuses a campaign not finished, one without open tracking, and changes nothing", async () => {
    const count = await countRows(database.db, "campaigns");
    const untracked = await post(`/admin/campaigns/${untrackedId}`, {
      action: "resend-unopened",
    });
    expect(untracked.status).toBe(409);
    expect(textOf(await untracked.text())).toContain(
      "Opens were not tracked for this campaign, so who did not open it is unknown.",
    );
    const draft = await post(
      `/admin/campaigns/${otherTenantCampaignId}?subdomain=keydiscovery`,
      {
        action: "resend-unopened",
      },
      cookies.otherTenant,
    );
    expect(draft.status).toBe(409);
    expect(textOf(await draft.text())).toContain(
      "Only a campaign that has finished sending can go to those who did not open it.",
    );
    expect(await countRows(database.db, "campaigns")).toBe(count);
  });

  it("keeps each tenant's recipients to its staff", async () => {
    const count = await countRows(database.db, "campaigns");
    // another tenant's campaign id, asked on this tenant's site: not found
    expect((await get(`/admin/campaigns/${otherTenantCampaignId}`)).status).toBe(404);
    expect((await get(`/admin/campaigns/${otherTenantCampaignId}/recipients.csv`)).status).toBe(
      404,
    );
    expect(
      (await post(`/admin/campaigns/${otherTenantCampaignId}`, { action: "resend-unopened" }))
        .status,
    ).toBe(404);
    // staff of another tenant, and staff without the permission, are refused
    for (const cookie of [cookies.otherTenant, cookies.noPermission]) {
      expect((await get(`/admin/campaigns/${campaignId}/recipients.csv`, cookie)).status).toBe(403);
      expect((await get(`/admin/campaigns/${campaignId}?filter=opened`, cookie)).status).toBe(403);
      expect(
        (await post(`/admin/campaigns/${campaignId}`, { action: "resend-unopened" }, cookie))
          .status,
      ).toBe(403);
    }
    const anonymous = await get(`/admin/campaigns/${campaignId}/recipients.csv`, "");
    expect(anonymous.status).toBe(302);
    expect(anonymous.headers.get("location")).toMatch(/^\/admin\/login/);
    expect(await countRows(database.db, "campaigns")).toBe(count);
  });
});
