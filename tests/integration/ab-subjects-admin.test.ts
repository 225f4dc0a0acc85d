import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordOpen } from "../../server/campaigns/tracking";
import { migrateToLatest } from "../../server/db/migrate";
import { crossTenant } from "../../server/db/tenant-guard";
import { createNewsletter } from "../../server/newsletters/editing";
import { publishNewsletter } from "../../server/newsletters/newsletters";
import { listTenantLists } from "../../server/subscribers/lists";
import { seedTenants } from "../../server/tenants/seed";
import { getTenant } from "../../server/tenants/store";
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

const BROWSER =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/131.0 Safari/537.36";

// A/B subject lines from the staff pages (issue 35, target 5): the form's checks, the send, the
// report with both arms, "Pick winner now" once, and each recipient's subject.
describe.each(testDialects())("A/B subject lines from the admin pages on %s", (dialect) => {
  let database: TestDatabase;
  let sink: SmtpSink;
  let server: RunningServer;
  let cookie = "";
  let newsletterId = "";
  const path = () => `/admin/newsletter/send/${newsletterId}`;
  const compose = (overrides: Record<string, string | string[]> = {}) => ({
    subject: "Issue 8: the protocol",
    lists: ["newsletter"],
    trackOpens: "on",
    trackClicks: "on",
    mode: "now",
    abTest: "on",
    abSubject1: "Issue 8: what changed",
    abShare: "40",
    abWinnerBy: "opens",
    abWaitHours: "24",
    ...overrides,
  });
  const page = async (url: string) =>
    textOf(await (await fetch(`${server.url}${url}`, { headers: { cookie } })).text());

  const deliveryRows = () =>
    crossTenant(database.db).selectFrom("deliveries").selectAll().orderBy("id").execute();
  const campaignRows = () => crossTenant(database.db).selectFrom("campaigns").selectAll().execute();

  async function waitUntil(what: string, done: () => Promise<boolean>) {
    const deadline = Date.now() + scaled(20_000);
    while (!(await done())) {
      if (Date.now() > deadline) throw new Error(`${what}: not within the wait`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async function waitForMail(count: number) {
    const deadline = Date.now() + scaled(20_000);
    while (sink.messages.length < count) {
      if (Date.now() > deadline) throw new Error(`${count} messages: not within the wait`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    await migrateToLatest(database.db);
    await seedTenants(database.db);
    const tenant = (await getTenant(database.db, "main")).config;
    const list = (await listTenantLists(database.db, tenant)).find(
      (each) => each.key === "newsletter",
    );
    for (let index = 0; index < 10; index++) {
      await insertSubscriber(database.db, {
        email: `ab${index}@example.com`,
        status: "active",
        listIds: [list?.id ?? 0],
      });
    }
    const scope = { db: database.db, tenantId: "main", authorId: null };
    newsletterId = (
      await createNewsletter(scope, {
        title: "Issue 8",
        excerpt: "The protocol",
        content: "<p>The protocol.</p>",
      })
    ).id;
    await publishNewsletter(scope, newsletterId);
    sink = await startSmtpSink();
    server = await startServer({
      databaseUrl: database.url,
      env: {
        SMTP_URL: sink.url,
        SESSION_SECRET: "ab-admin-secret-0123456789abcdef",
        SEND_RATE: "0",
      },
    });
    const editor = await createStaffUser(database.db, {
      email: "editor@example.com",
      products: { main: true },
    });
    cookie = await signIn(server.url, editor.email);
  });

  afterAll(async () => {
    await server?.stop();
    await sink?.stop();
    await database?.drop();
  });

  it("offers the A/B part and refuses what it cannot test, changing nothing", async () => {
    const form = await page(path());
    expect(form).toContain("A/B test subject lines (optional)");
    expect(form).toContain("Pick the winner after");
    const refusals: [Record<string, string>, string][] = [
      [{ abSubject1: "" }, "Add at least one more subject line to test"],
      [{ abShare: "60" }, "The test share is 10 % to 50 % of the audience"],
      [{ abShare: "5" }, "The test share is 10 % to 50 % of the audience"],
      [{ abWaitHours: "200" }, "Wait between 1 hour and 7 days"],
      [{ abWinnerBy: "replies" }, "Choose opens or clicks"],
      [{ abWinnerBy: "clicks", trackClicks: "" }, "Track clicks to pick the winner by clicks"],
      [
        { abSubject1: "issue 8: THE PROTOCOL" },
        "Each A/B subject line must differ from the others",
      ],
    ];
    for (const [overrides, message] of refusals) {
      const answer = await postForm(
        server.url,
        path(),
        { ...compose(overrides), intent: "review" },
        cookie,
      );
      expect(answer.status, message).toBe(400);
      expect(textOf(await answer.text())).toContain(message);
    }
    expect(await countRows(database.db, "campaigns")).toBe(0);
  });

  it("says in the review how the audience will be split", async () => {
    const review = await postForm(server.url, path(), { ...compose(), intent: "review" }, cookie);
    expect(review.status).toBe(200);
    const text = textOf(await review.text());
    // 40 % of 10: two arms of two, the other six get the winner.
    expect(text).toContain("A: “Issue 8: the protocol” to 2 recipients at random");
    expect(text).toContain("B: “Issue 8: what changed” to 2 recipients at random");
    expect(text).toContain(
      "The other 6 recipients get the subject with the most opens after 1 day",
    );
    expect(await countRows(database.db, "campaigns")).toBe(0);
  });

  it("sends the test share, reports both arms, picks the winner once and sends it to the rest", async () => {
    // The SMTP server takes the first message, then holds the rest: the test share is still out.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let taken = 0;
    sink.delay = () => (taken++ < 1 ? undefined : held);
    const sent = await sendAsEmail(server.url, path(), compose(), cookie);
    expect(sent.status).toBe(303);
    const campaignUrl = sent.headers.get("location") ?? "";
    expect(campaignUrl).toMatch(/^\/admin\/campaigns\/[\w-]+$/);
    await waitUntil("one sent, the next held", async () => {
      const rows = await deliveryRows();
      return sink.held > 0 && rows.filter((row) => row.status === "sent").length === 1;
    });

    // While the test share is being sent, no pick: the page says so, and a post is refused.
    let report = await page(campaignUrl);
    expect(report).toContain(
      "The test share is still being sent: 1 of 4 messages gone. You can pick a winner once it has gone out.",
    );
    expect(report).not.toContain("Pick winner now");
    const campaignBefore = await campaignRows();
    const deliveriesBefore = await deliveryRows();
    const early = await postForm(server.url, campaignUrl, { action: "pick-winner" }, cookie);
    expect(early.status).toBe(409);
    expect(textOf(await early.text())).toContain(
      "The test share is still being sent: pick a winner once it has gone out.",
    );
    expect(await campaignRows()).toEqual(campaignBefore);
    expect(await deliveryRows()).toEqual(deliveriesBefore);
    expect(campaignBefore[0]?.ab_winner).toBeNull();

    // The test share goes out: 40 % of 10, two arms of two.
    sink.delay = () => undefined;
    release();
    await waitForMail(4);
    await waitUntil("the test share sent", async () =>
      (await deliveryRows()).every((row) => row.status === "sent"),
    );
    const subjects = sink.messages.map((mail) => mail.subject).sort();
    expect(subjects).toEqual([
      "Issue 8: the protocol",
      "Issue 8: the protocol",
      "Issue 8: what changed",
      "Issue 8: what changed",
    ]);
    report = await page(campaignUrl);
    expect(report).toContain("A/B test: subject lines");
    expect(report).toContain("40% of the audience got a test, split evenly between 2 subjects");
    expect(report).toContain("Pick winner now");
    expect(report).not.toContain("The test share is still being sent");
    expect(report).toContain("B (test share)");

    // B's two readers open it; A's do not.
    const deliveries = await crossTenant(database.db)
      .selectFrom("deliveries")
      .select(["id", "ab_variant"])
      .execute();
    for (const row of deliveries.filter((each) => each.ab_variant === 1)) {
      await recordOpen(database.db, row.id, BROWSER);
    }
    const pick = () => postForm(server.url, campaignUrl, { action: "pick-winner" }, cookie);
    expect((await pick()).status).toBe(200);
    await waitForMail(10);
    const again = await pick();
    expect(again.status).toBe(409);
    expect(await again.text()).toContain("The winner was already chosen");
    const rest = sink.messages.slice(4).map((mail) => mail.subject);
    expect(new Set(rest)).toEqual(new Set(["Issue 8: what changed"]));
    expect(new Set(sink.messages.map((mail) => mail.to[0])).size).toBe(10);

    report = await page(campaignUrl);
    expect(report).toContain("Winner");
    expect(report).toContain(
      "Picked by staff, by opens: B 2 of 2 opened (100%), against A: 0 of 2 opened (0%).",
    );
    expect(report).toContain("The rest of the audience, with the winning subject");
    expect(report).toContain("B (winner, to the rest)");
    expect(report).not.toContain("Pick winner now");
    const csv = await (
      await fetch(`${server.url}${campaignUrl}/recipients.csv`, { headers: { cookie } })
    ).text();
    expect(csv.split("\n")[0]).toContain("ab_subject");
    expect(csv).toContain("A (test share)");
  });
});
