import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { crossTenant } from "../../server/db/tenant-guard";
import { createNewsletter } from "../../server/newsletters/editing";
import { publishNewsletter } from "../../server/newsletters/newsletters";
import { listTenantLists } from "../../server/subscribers/lists";
import { getTenant } from "../../server/tenants/store";
import { type TestDatabase, testDialects } from "../support/database";
import { postForm, sendAsEmail } from "../support/forms";
import { textOf } from "../support/html";
import type { RunningServer } from "../support/server";
import { type StaffSite, startStaffSite } from "../support/staff-site";
import { insertSubscriber } from "../support/subscribers";

const SECRET = "segments-secret-0123456789abcdef01234567";
const DAY = 86_400_000;

describe.each(testDialects())("segments on %s", (dialect) => {
  let site: StaffSite;
  let database: TestDatabase;
  let server: RunningServer;
  let editor = "";
  let superAdmin = "";
  let newsletterId = "";
  const people: Record<string, number> = {};

  const get = (path: string, cookie = editor) =>
    fetch(`${server.url}${path}`, { headers: { cookie }, redirect: "manual" });
  const post = (path: string, fields: Record<string, string | string[]>, cookie = editor) =>
    postForm(server.url, path, fields, cookie);
  /** The live count of a rule as the form would send it. */
  const count = async (fields: Record<string, string | string[]>) => {
    const response = await post("/admin/segments/new", { intent: "count", ...fields });
    const text = textOf(await response.text());
    const match = /([\d,]+) subscribers? match(?:es)? · ([\d,]+) active/.exec(text);
    if (!match) throw new Error(`no count (${response.status}): ${text.slice(0, 300)}`);
    return {
      matching: Number(match[1]?.replace(/,/g, "")),
      active: Number(match[2]?.replace(/,/g, "")),
    };
  };

  beforeAll(async () => {
    site = await startStaffSite(dialect, SECRET);
    ({ database, server, editor, superAdmin } = site);
    await post("/admin/subscribers/fields", { label: "Company size", type: "number" });
    await post("/admin/subscribers/fields", {
      label: "Region",
      type: "choice",
      choices: "EMEA\nAmericas\nAPAC",
    });
    const lists = await listTenantLists(database.db, (await getTenant(database.db, "main")).config);
    const list = (key: string) => lists.find((each) => each.key === key)?.id ?? 0;
    const now = Date.now();
    const rows = [
      // name, status, lists, company size, region, joined days ago
      ["ada", "active", ["newsletter"], "1200", "EMEA", 40],
      ["bo", "active", ["newsletter", "industry-news"], "900", "Americas", 10],
      ["cy", "active", ["industry-news"], "15000", "EMEA", 2],
      ["di", "unsubscribed", ["newsletter"], "2000", "EMEA", 5],
      ["ed", "bounced", [], "3000", "APAC", 5],
      ["fay", "active", ["product-updates"], null, null, 1],
    ] as const;
    for (const [name, status, keys, size, region, daysAgo] of rows) {
      const id = await insertSubscriber(database.db, {
        email: `${name}@example.com`,
        status,
        listIds: keys.map(list),
      });
      people[name] = id;
      await crossTenant(database.db)
        .updateTable("subscribers")
        .set({ created_at: new Date(now - daysAgo * DAY).toISOString() })
        .where("id", "=", id)
        .execute();
      const values = [
        ...(size ? [{ field_key: "company_size", value: size }] : []),
        ...(region ? [{ field_key: "region", value: region }] : []),
      ];
      if (values.length) {
        await crossTenant(database.db)
          .insertInto("subscriber_values")
          .values(values.map((value) => ({ ...value, tenant_id: "main", subscriber_id: id })))
          .execute();
      }
    }
    // a past campaign: ada opened 3 days ago, bo opened 60 days ago and clicked, cy got it
    const stamp = new Date(now - 61 * DAY).toISOString();
    await crossTenant(database.db)
      .insertInto("campaigns")
      .values({
        id: "past-campaign",
        tenant_id: "main",
        newsletter_id: null,
        name: "Past",
        subject: "Past",
        from_name: "KD",
        from_email: "kd@example.com",
        content: "<p>Past</p>",
        list_ids: "[]",
        track_opens: 1,
        track_clicks: 1,
        status: "sent",
        scheduled_at: stamp,
        started_at: stamp,
        finished_at: stamp,
        created_by: null,
        created_at: stamp,
        updated_at: stamp,
      })
      .execute();
    const delivery = async (name: string) =>
      (
        await crossTenant(database.db)
          .insertInto("deliveries")
          .values({
            tenant_id: "main",
            campaign_id: "past-campaign",
            subscriber_id: people[name] ?? 0,
            email: `${name}@example.com`,
            status: "sent",
            next_attempt_at: stamp,
            sent_at: stamp,
          })
          .returning("id")
          .executeTakeFirstOrThrow()
      ).id;
    const event = async (deliveryId: number, kind: "open" | "click", daysAgo: number) =>
      crossTenant(database.db)
        .insertInto("campaign_events")
        .values({
          tenant_id: "main",
          campaign_id: "past-campaign",
          delivery_id: deliveryId,
          kind,
          url: null,
          created_at: new Date(now - daysAgo * DAY).toISOString(),
        })
        .execute();
    await event(await delivery("ada"), "open", 3);
    const bo = await delivery("bo");
    await event(bo, "open", 60);
    await event(bo, "click", 60);
    await delivery("cy");
    const scope = { db: database.db, tenantId: "main", authorId: null };
    newsletterId = (
      await createNewsletter(scope, {
        title: "Issue",
        excerpt: "E",
        content: "<p>Hello</p>",
        readTime: 1,
      })
    ).id;
    await publishNewsletter(scope, newsletterId);
  });

  afterAll(async () => {
    await site?.stop();
  });

  it("counts live: lists, statuses, fields (numbers as numbers), join dates, opens and clicks", async () => {
    expect(await count({})).toEqual({ matching: 6, active: 4 });
    expect(await count({ lists: ["newsletter"] })).toEqual({ matching: 3, active: 2 });
    expect(await count({ statuses: ["bounced", "unsubscribed"] })).toEqual({
      matching: 2,
      active: 0,
    });
    // 900 < 1000 < 1200 < 15000: as text "15000" < "900" would be wrong
    expect(
      await count({
        "field.0.key": "company_size",
        "field.0.op": "greater",
        "field.0.value": "1000",
      }),
    ).toEqual({ matching: 4, active: 2 });
    expect(
      await count({ "field.0.key": "company_size", "field.0.op": "less", "field.0.value": "1000" }),
    ).toEqual({ matching: 1, active: 1 });
    expect(
      await count({
        "field.0.key": "region",
        "field.0.op": "is",
        "field.0.value": "EMEA",
        "field.1.key": "company_size",
        "field.1.op": "greater",
        "field.1.value": "1500",
      }),
    ).toEqual({ matching: 2, active: 1 });
    expect(await count({ "field.0.key": "region", "field.0.op": "unset" })).toEqual({
      matching: 1,
      active: 1,
    });
    expect(
      await count({ "field.0.key": "region", "field.0.op": "contains", "field.0.value": "meric" }),
    ).toEqual({ matching: 1, active: 1 });
    const day = (daysAgo: number) =>
      new Date(Date.now() - daysAgo * DAY).toISOString().slice(0, 10);
    expect(await count({ signedUpAfter: day(7), signedUpBefore: day(0) })).toEqual({
      matching: 4,
      active: 2,
    });
    expect(await count({ activity: "opened", days: "7" })).toEqual({ matching: 1, active: 1 });
    expect(await count({ activity: "opened", days: "90" })).toEqual({ matching: 2, active: 2 });
    expect(await count({ activity: "clicked", days: "90" })).toEqual({ matching: 1, active: 1 });
    expect(await count({ activity: "never-opened" })).toEqual({ matching: 4, active: 2 });
  });

  it("refuses a bad segment with a clear message and saves nothing", async () => {
    for (const [fields, message] of [
      [{ name: "" }, "A segment needs a name"],
      [{ name: "x".repeat(101) }, "Name must be at most 100 characters"],
      [{ name: "Recent", activity: "opened", days: "0" }, "Enter a number of days from 1 to 3,650"],
      [
        {
          name: "Big",
          "field.0.key": "company_size",
          "field.0.op": "greater",
          "field.0.value": "",
        },
        "Enter a value to compare with",
      ],
      [
        { name: "Odd", "field.0.key": "shoe_size", "field.0.op": "set" },
        "Choose fields from the list",
      ],
      [{ name: "When", signedUpAfter: "2026-02-30x" }, "Enter a date (YYYY-MM-DD)"],
    ] as [Record<string, string>, string][]) {
      const response = await post("/admin/segments/new", { intent: "save", ...fields });
      expect(response.status, message).toBeGreaterThanOrEqual(400);
      expect(textOf(await response.text())).toContain(message);
    }
    const saved = await crossTenant(database.db).selectFrom("segments").select("id").execute();
    expect(saved).toHaveLength(0);
  });

  it("saves a segment, sends a campaign to it — active members only — and holds it while unsent", async () => {
    const created = await post("/admin/segments/new", {
      intent: "save",
      name: "EMEA <big> accounts",
      "field.0.key": "region",
      "field.0.op": "is",
      "field.0.value": "EMEA",
    });
    expect(created.status).toBe(303);
    const page = (created.headers.get("location") ?? "").replace("?saved=1", "");
    expect(page).toMatch(/^\/admin\/segments\/\d+$/);
    const id = page.split("/").pop() ?? "";
    const html = await (await get(`${page}?saved=1`)).text();
    expect(html).toContain("EMEA &lt;big&gt; accounts");
    expect(textOf(html)).toContain("Segment saved.");
    expect(textOf(html)).toContain("3 subscribers match · 2 active");
    expect(await (await get("/admin/segments")).text()).toContain("EMEA &lt;big&gt; accounts");

    // the review counts active members only; ada and cy get it, di (unsubscribed) does not
    const review = await post(`/admin/newsletter/send/${newsletterId}`, {
      subject: "For EMEA",
      segments: [id],
      mode: "draft",
      intent: "review",
    });
    const reviewed = await review.text();
    expect(reviewed).toContain("EMEA &lt;big&gt; accounts (segment)");
    expect(textOf(reviewed)).toContain("Send to 2 recipients");
    const sent = await sendAsEmail(
      server.url,
      `/admin/newsletter/send/${newsletterId}`,
      { subject: "For EMEA", segments: [id], lists: ["product-updates"], mode: "now" },
      editor,
    );
    expect(sent.status).toBe(303);
    const campaignId = (sent.headers.get("location") ?? "").split("/").pop() ?? "";
    const recipients = async () =>
      (
        await crossTenant(database.db)
          .selectFrom("deliveries")
          .select("email")
          .where("campaign_id", "=", campaignId)
          .orderBy("email")
          .execute()
      ).map((row) => row.email);
    expect(await recipients()).toEqual(["ada@example.com", "cy@example.com", "fay@example.com"]);

    // a draft to the segment holds it
    const draft = await post(`/admin/newsletter/send/${newsletterId}`, {
      subject: "Later",
      segments: [id],
      mode: "draft",
      intent: "create",
    });
    expect(draft.status).toBe(303);
    const held = await post(page, { intent: "delete", confirmed: "yes" });
    expect(held.status).toBe(409);
    expect(textOf(await held.text())).toContain("A campaign not yet sent goes to this segment");
    await post(draft.headers.get("location") ?? "", { action: "cancel", confirmed: "yes" });
    const asked = await post(page, { intent: "delete" });
    expect(await asked.text()).toContain("Delete “EMEA &lt;big&gt; accounts”?");
    const deleted = await post(page, { intent: "delete", confirmed: "yes" });
    expect(deleted.status).toBe(303);
    expect((await get(page)).status).toBe(404);
  });

  it("refuses a campaign with no audience, and keeps segments to their tenant", async () => {
    const none = await post(`/admin/newsletter/send/${newsletterId}`, {
      subject: "Nobody",
      mode: "draft",
      intent: "create",
    });
    expect(none.status).toBe(400);
    expect(textOf(await none.text())).toContain("No valid groups specified");
    const created = await post("/admin/segments/new", { intent: "save", name: "Everyone" });
    const page = (created.headers.get("location") ?? "").replace("?saved=1", "");
    expect((await get(`${page}?subdomain=keydiscovery`, superAdmin)).status).toBe(404);
    const foreign = await post(
      `${page}?subdomain=keydiscovery`,
      { intent: "delete", confirmed: "yes" },
      superAdmin,
    );
    expect(foreign.status).toBe(404);
    expect((await get(page)).status).toBe(200);
    expect((await get("/admin/segments/abc")).status).toBe(404);
    // another tenant's campaign form cannot name this tenant's segment
    const id = page.split("/").pop() ?? "";
    const kd = await post(
      `/admin/newsletter/send/${newsletterId}?subdomain=keydiscovery`,
      { subject: "x", segments: [id], mode: "draft", intent: "create" },
      superAdmin,
    );
    expect(kd.status).toBeGreaterThanOrEqual(400);
  });
});
