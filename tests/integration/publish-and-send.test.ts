import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "../../server/auth/api-tokens";
import { TEST_SEND_ALLOWANCE } from "../../server/campaigns/test-sends";
import { migrateToLatest, migratorFor } from "../../server/db/migrate";
import { crossTenant } from "../../server/db/tenant-guard";
import { createNewsletter } from "../../server/newsletters/editing";
import { publishNewsletter } from "../../server/newsletters/newsletters";
import { listTenantLists } from "../../server/subscribers/lists";
import { saveSegment } from "../../server/subscribers/segments";
import { getTenant } from "../../server/tenants/store";
import { TOKEN_SCOPES } from "../../shared/schemas/api-tokens";
import { TEST_SEND_TEXT } from "../../shared/schemas/test-send";
import { createStaffUser, signIn } from "../support/auth";
import {
  countRows,
  createTestDatabase,
  type TestDatabase,
  testDialects,
} from "../support/database";
import { postForm } from "../support/forms";
import { textOf } from "../support/html";
import { type StaffSite, startStaffSite } from "../support/staff-site";
import { insertSubscriber } from "../support/subscribers";

const SECRET = "publish-and-send-secret-0123456789abcdef";

/*
 * Issue 35, target 1: publish and send in one step (the review stays), test sends to up to five
 * colleagues (staff only, rate limited, marked, never counted), member counts in the campaign
 * form; and the Names bullet of target 3: one sender name per tenant.
 */
describe.each(testDialects())("publishing and sending in one errand on %s", (dialect) => {
  let site: StaffSite;
  let limited = "";
  let busyEditor: Awaited<ReturnType<typeof createStaffUser>>;
  let newsletterId = "";
  let draftId = "";
  let segmentId = 0;

  const sendPath = () => `/admin/newsletter/send/${newsletterId}`;
  const post = (path: string, fields: Record<string, string | string[]>, cookie = site.editor) =>
    postForm(site.server.url, path, fields, cookie);
  const get = (path: string, cookie = site.editor) =>
    fetch(`${site.server.url}${path}`, { headers: { cookie }, redirect: "manual" });
  const compose = (overrides: Record<string, string | string[]> = {}) => ({
    subject: "The ESI protocol issue",
    lists: ["newsletter"],
    trackOpens: "on",
    trackClicks: "on",
    mode: "now",
    intent: "test",
    ...overrides,
  });
  const testMails = () => site.sink.messages.filter((mail) => mail.subject.startsWith("[Test]"));
  /** Everything a real send would leave behind: none of it may come from a test. */
  const counted = async () => ({
    campaigns: await countRows(site.database.db, "campaigns"),
    deliveries: await countRows(site.database.db, "deliveries"),
    events: await countRows(site.database.db, "campaign_events"),
  });
  const nothingCounted = { campaigns: 0, deliveries: 0, events: 0 };

  beforeAll(async () => {
    site = await startStaffSite(dialect, SECRET);
    const db = site.database.db;
    const lists = await listTenantLists(db, (await getTenant(db, "main")).config);
    const newsletterList = lists.find((list) => list.key === "newsletter")?.id ?? 0;
    for (const [index, status] of (
      ["active", "active", "active", "unsubscribed"] as const
    ).entries()) {
      await insertSubscriber(db, {
        email: `reader${index}@example.com`,
        status,
        listIds: [newsletterList],
      });
    }
    // On no list: counted by the segment (everyone who signed up), not by any list.
    await insertSubscriber(db, { email: "listless@example.com" });
    segmentId = await saveSegment(db, "main", {
      name: "Everyone since 2000",
      rule: { lists: [], statuses: [], fields: [], signedUpAfter: "2000-01-01" },
    });
    const scope = { db, tenantId: "main", authorId: null };
    const input = {
      title: "Issue 9",
      excerpt: "Test sends",
      content: '<p>Read <a href="https://example.com/guide">the guide</a>.</p>',
      readTime: 3,
    };
    newsletterId = (await createNewsletter(scope, input)).id;
    await publishNewsletter(scope, newsletterId);
    draftId = (await createNewsletter(scope, { ...input, title: "Issue 10" })).id;
    busyEditor = await createStaffUser(db, { email: "busy@example.com", products: { main: true } });
    limited = await signIn(site.server.url, "busy@example.com");
  });

  afterAll(() => site?.stop());

  it("publishes and goes straight to the send form, mailing nobody; the editor then offers Send as email", async () => {
    const before = await get(`/admin/newsletter/edit/${draftId}`);
    const draftPage = textOf(await before.text());
    expect(draftPage).toContain("Publish and send");
    expect(draftPage).not.toContain("Send as email");

    const response = await post(`/admin/newsletter/edit/${draftId}`, {
      intent: "publish-send",
      title: "Issue 10",
      excerpt: "Test sends",
      content: "<p>Ten.</p>",
      readTime: "3",
    });
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe(`/admin/newsletter/send/${draftId}`);
    const row = await crossTenant(site.database.db)
      .selectFrom("newsletters")
      .select(["status", "title"])
      .where("id", "=", draftId)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ status: "published", title: "Issue 10" });
    // The review step stays: the send form opens, and nothing was sent or created.
    const form = await get(`/admin/newsletter/send/${draftId}`);
    expect(form.status).toBe(200);
    expect(textOf(await form.text())).toContain("Review and send");
    expect(await counted()).toEqual(nothingCounted);
    expect(site.sink.messages).toHaveLength(0);

    // A new newsletter can be created, published and taken to the send form in the same step.
    expect(textOf(await (await get("/admin/newsletter/new")).text())).toContain("Publish and send");
    const created = await post("/admin/newsletter/new", {
      intent: "publish-send",
      title: "Issue 11",
      excerpt: "Straight out",
      content: "<p>Eleven.</p>",
    });
    expect(created.status).toBe(302);
    const newId = /^\/admin\/newsletter\/send\/([^/]+)$/.exec(
      created.headers.get("location") ?? "",
    )?.[1];
    const fresh = await crossTenant(site.database.db)
      .selectFrom("newsletters")
      .select(["status", "title"])
      .where("id", "=", newId ?? "")
      .executeTakeFirst();
    expect(fresh).toEqual({ status: "published", title: "Issue 11" });
    expect(await counted()).toEqual(nothingCounted);

    const editor = await (await get(`/admin/newsletter/edit/${draftId}`)).text();
    expect(editor).toMatch(
      /<a[^>]*href="\/admin\/newsletter\/send\/[^"]+"[^>]*>Send as email<\/a>/,
    );
    expect(textOf(editor)).not.toContain("Publish and send");
  });

  it("refuses test sends to visitors, API tokens and staff of another tenant, sending nothing", async () => {
    const anonymous = await post(sendPath(), compose({ testRecipients: "a@example.com" }), "");
    expect(anonymous.status).toBe(302);
    expect(anonymous.headers.get("location")).toMatch(/^\/admin\/login/);
    const other = await post(
      sendPath(),
      compose({ testRecipients: "a@example.com" }),
      site.otherTenant,
    );
    expect(other.status).toBe(403);
    // An API token (of staff of this tenant) is for the API: the staff pages want a session.
    const { token } = await createApiToken(site.database.db, busyEditor, "test sends", {
      scopes: TOKEN_SCOPES,
    });
    const viaToken = await fetch(`${site.server.url}${sendPath()}`, {
      method: "POST",
      body: new URLSearchParams({
        subject: "By token",
        lists: "newsletter",
        mode: "now",
        intent: "test",
        testRecipients: "a@example.com",
      }),
      headers: { authorization: `Bearer ${token}`, "x-auth-token": token, origin: site.server.url },
      redirect: "manual",
    });
    expect(viaToken.status).toBe(302);
    expect(site.sink.messages).toHaveLength(0);
  });

  it("sends the real email, marked as a test, to up to five colleagues; never counted", async () => {
    const page = await (await get(sendPath())).text();
    // The field starts with the signed-in staff member's address.
    expect(page).toMatch(/<input[^>]*name="testRecipients"[^>]*value="editor@example.com"/);
    const to = [
      "ana@example.com",
      "Ben@Example.com",
      "cy@example.com",
      "di@example.com",
      "ed@example.com",
    ];
    const response = await post(
      sendPath(),
      compose({ testRecipients: ` ${to.join(", ")}\n ana@example.com ` }),
    );
    expect(response.status).toBe(200);
    expect(textOf(await response.text())).toContain(`Test email sent to ${to.join(", ")}.`);
    for (const address of to) {
      const mail = await site.sink.waitFor((m) =>
        m.to.some((each) => each.toLowerCase() === address.toLowerCase()),
      );
      expect(mail.subject).toBe("[Test] The ESI protocol issue");
      expect(mail.headers.get("x-herald-test")).toBe("1");
      // The real content, without the open pixel or tracked links a delivery would have.
      expect(mail.html).toContain("https://example.com/guide");
      expect(mail.html).not.toContain("/t/o/");
      expect(mail.html).not.toContain("/t/c/");
    }
    expect(testMails()).toHaveLength(5);
    expect(site.sink.messages.filter((m) => m.to.some((a) => a.startsWith("reader")))).toHaveLength(
      0,
    );
    expect(await counted()).toEqual(nothingCounted);
    const logged = await crossTenant(site.database.db)
      .selectFrom("mail_log")
      .select(["kind", "tenant_id"])
      .where("kind", "=", "campaign-test")
      .execute();
    expect(logged).toHaveLength(5);
    expect(logged.every((row) => row.tenant_id === "main")).toBe(true);
  });

  it("refuses six addresses, a bad one, none, or a bad campaign, with a clear message, sending nothing", async () => {
    const before = site.sink.messages.length;
    const six = ["1", "2", "3", "4", "5", "6"].map((n) => `p${n}@example.com`).join(", ");
    const cases: [Record<string, string>, string][] = [
      [{ testRecipients: six }, TEST_SEND_TEXT.tooMany],
      [
        { testRecipients: "ok@example.com, <script>x</script>@evil" },
        "Invalid email format: <script>x</script>@evil",
      ],
      [
        { testRecipients: "ok@example.com, x'); DROP TABLE subscribers;--" },
        "Invalid email format: x')",
      ],
      [{ testRecipients: "   " }, TEST_SEND_TEXT.none],
      [{ testRecipients: "ok@example.com", subject: " " }, "Subject and content are required"],
    ];
    for (const [fields, message] of cases) {
      const response = await post(sendPath(), compose(fields));
      expect(response.status, message).toBe(400);
      const html = await response.text();
      expect(textOf(html).replaceAll("&lt;", "<").replaceAll("&gt;", ">")).toContain(message);
      expect(html).not.toContain("<script>x</script>");
    }
    const kept = await (await post(sendPath(), compose({ testRecipients: six }))).text();
    expect(kept).toContain(`value="${six}"`);
    expect(site.sink.messages.length).toBe(before);
    expect(await countRows(site.database.db, "subscribers")).toBe(5);
  });

  it("limits test emails per staff member and sends none of a refused test", async () => {
    const tests = TEST_SEND_ALLOWANCE.addresses / 5;
    const five = (round: number) =>
      ["a", "b", "c", "d", "e"].map((name) => `${name}${round}@limit.example`).join(",");
    for (let round = 0; round < tests; round++) {
      const response = await post(sendPath(), compose({ testRecipients: five(round) }), limited);
      expect(response.status, `test ${round + 1}`).toBe(200);
    }
    const before = site.sink.messages.length;
    const refused = await post(
      sendPath(),
      compose({ testRecipients: "late@limit.example" }),
      limited,
    );
    expect(refused.status).toBe(429);
    expect(textOf(await refused.text())).toContain(
      `You have sent ${TEST_SEND_ALLOWANCE.addresses} test emails in the last ${TEST_SEND_ALLOWANCE.windowMinutes} minutes.`,
    );
    expect(site.sink.messages.length).toBe(before);
    expect(site.sink.messages.some((m) => m.to.includes("late@limit.example"))).toBe(false);
    // Another staff member's allowance is their own.
    const other = await post(sendPath(), compose({ testRecipients: "fine@example.com" }));
    expect(other.status).toBe(200);
    expect(await counted()).toEqual(nothingCounted);
  });

  it("shows each list's and segment's active members beside it, in the send and edit forms", async () => {
    const sizes = (html: string) =>
      [
        ...html.matchAll(
          /name="(lists|segments)"[^>]*value="([^"]+)"[\s\S]*?data-testid="audience-size"[^>]*>([^<]*)</g,
        ),
      ].map(([, name, value, size]) => `${name}:${value}:${size}`);
    const expected = [
      "lists:newsletter:· 3 active subscribers",
      "lists:product-updates:· 0 active subscribers",
      "lists:industry-news:· 0 active subscribers",
      `segments:${segmentId}:· 4 active subscribers`,
    ];
    expect(sizes(await (await get(sendPath())).text())).toEqual(expected);

    const draft = await post(sendPath(), compose({ intent: "create", mode: "draft" }));
    expect(draft.status).toBe(303);
    const campaignId = draft.headers.get("location")?.split("/").pop() ?? "";
    expect(sizes(await (await get(`/admin/campaigns/${campaignId}/edit`)).text())).toEqual(
      expected,
    );
  });

  it("sends a tenant's subscriber mail from the tenant's one sender name", async () => {
    const email = "casey@lawfirm.example";
    const response = await fetch(`${site.server.url}/newsletter/subscribe`, {
      method: "POST",
      body: new URLSearchParams({ email, name: "Casey", lists: "newsletter", chooseLists: "1" }),
      headers: { cookie: "herald_subdomain=keydiscovery", origin: site.server.url },
      redirect: "manual",
    });
    expect(response.status).toBe(303);
    const mail = await site.sink.waitFor((m) => m.to.includes(email));
    expect(mail.parsed.from?.value[0]?.name).toBe("KeyDiscovery Legal");
    // The tenant manager says where a blank template sender comes from.
    const manager = await get("/admin/tenants/keydiscovery", site.superAdmin);
    expect(textOf(await manager.text())).toContain("Sender name The tenant’s (KeyDiscovery Legal)");
  });
});

describe.each(testDialects())("migration 0033 (one sender name per tenant) on %s", (dialect) => {
  let database: TestDatabase | undefined;

  afterAll(async () => {
    await database?.drop();
  });

  it("clears template senders copied from the old fixed default over a tenant's own sender", async () => {
    database = await createTestDatabase(dialect);
    const raw = crossTenant(database.db);
    expect(
      (await migratorFor(database.db).migrateTo("0031_tenant_not_null")).error,
    ).toBeUndefined();
    const now = new Date().toISOString();
    const copied = { senderName: "KeyDiscovery", fromName: "KeyDiscovery", subject: "Hello" };
    const configs = {
      legal: {
        email: { senderName: "KeyDiscovery Legal" },
        emailTemplates: {
          welcomeEmail: copied,
          bounceNotificationEmail: { senderName: "Deliverability Desk" },
        },
      },
      plain: { emailTemplates: { welcomeEmail: copied } },
    };
    for (const [id, config] of Object.entries(configs)) {
      await raw
        .insertInto("tenants")
        .values({
          id,
          name: id,
          description: "",
          config: JSON.stringify(config),
          created_at: now,
          updated_at: now,
        })
        .execute();
    }
    await migrateToLatest(database.db);
    const stored = async (id: string) =>
      JSON.parse(
        (
          await raw
            .selectFrom("tenants")
            .select("config")
            .where("id", "=", id)
            .executeTakeFirstOrThrow()
        ).config,
      );
    expect((await stored("legal")).emailTemplates).toEqual({
      welcomeEmail: { subject: "Hello" },
      bounceNotificationEmail: { senderName: "Deliverability Desk" },
    });
    // No sender of its own: the template's name is what it sends as, and stays.
    expect(await stored("plain")).toEqual(configs.plain);
    const legal = (await getTenant(database.db, "legal")).config;
    expect(legal.emailTemplates.welcomeEmail.senderName).toBe("");
    expect(legal.emailTemplates.bounceNotificationEmail.senderName).toBe("Deliverability Desk");
  });
});
