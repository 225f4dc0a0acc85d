import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { crossTenant } from "../../server/db/tenant-guard";
import { signToken } from "../../server/mail/tokens";
import { createNewsletter } from "../../server/newsletters/editing";
import { publishNewsletter } from "../../server/newsletters/newsletters";
import { countRows, type TestDatabase, testDialects } from "../support/database";
import { postForm, sendAsEmail } from "../support/forms";
import { textOf } from "../support/html";
import type { RunningServer } from "../support/server";
import type { SmtpSink } from "../support/smtp-sink";
import { type StaffSite, startStaffSite } from "../support/staff-site";
import { scaled } from "../support/timing";

const SECRET = "profiles-secret-0123456789abcdef01234567";

describe.each(testDialects())("subscribers one at a time, profiles and GDPR on %s", (dialect) => {
  let site: StaffSite;
  let database: TestDatabase;
  let sink: SmtpSink;
  let server: RunningServer;
  let editor = "";
  let otherTenant = "";
  let superAdmin = "";
  let newsletterId = "";

  const get = (path: string, cookie = editor) =>
    fetch(`${server.url}${path}`, { headers: { cookie }, redirect: "manual" });
  const post = (path: string, fields: Record<string, string | string[]>, cookie = editor) =>
    postForm(server.url, path, fields, cookie);
  const subscriber = (email: string) =>
    crossTenant(database.db)
      .selectFrom("subscribers")
      .selectAll()
      .where("tenant_id", "=", "main")
      .where("email", "=", email)
      .executeTakeFirst();
  const idOf = async (email: string) => (await subscriber(email))?.id ?? 0;
  const values = async (id: number) =>
    Object.fromEntries(
      (
        await crossTenant(database.db)
          .selectFrom("subscriber_values")
          .select(["field_key", "value"])
          .where("subscriber_id", "=", id)
          .execute()
      ).map((row) => [row.field_key, row.value]),
    );
  const listsOf = async (id: number) =>
    (
      await crossTenant(database.db)
        .selectFrom("subscriptions")
        .innerJoin("lists", "lists.id", "subscriptions.list_id")
        .select("lists.key")
        .where("subscriptions.subscriber_id", "=", id)
        .orderBy("lists.id")
        .execute()
    ).map((row) => row.key);
  const profileText = async (id: number) =>
    textOf(await (await get(`/admin/subscribers/${id}`)).text());
  /** Follows the double opt-in link mailed to `email` (the page asks; its form confirms). */
  const confirmFromMail = async (email: string) => {
    const mail = await sink.waitFor((each) => each.to.includes(email));
    const link =
      /https?:\/\/[^\s"<>]+\/subscription\/confirm\/[^\s"<>\])]+/.exec(mail.text)?.[0] ?? "";
    expect(link).not.toBe("");
    const path = new URL(link).pathname;
    expect((await post(path, {}, "")).status).toBeLessThan(400);
  };
  const newSubscriber = (fields: Record<string, string | string[]> = {}) =>
    post("/admin/subscribers/new", {
      email: "dana@lawfirm.example",
      name: "Dana",
      lists: ["newsletter"],
      "field.company_size": "1,200",
      "field.region": "EMEA",
      "field.renewal": "2027-03-31",
      mode: "active",
      ...fields,
    });

  beforeAll(async () => {
    site = await startStaffSite(dialect, SECRET);
    ({ database, sink, server, editor, otherTenant, superAdmin } = site);
    const scope = { db: database.db, tenantId: "main", authorId: null };
    newsletterId = (
      await createNewsletter(scope, {
        title: "Issue 1",
        excerpt: "First",
        content: '<p>Hello <a href="https://example.com/read">read</a></p>',
        readTime: 1,
      })
    ).id;
    await publishNewsletter(scope, newsletterId);
  });

  afterAll(async () => {
    await site?.stop();
  });

  it("lets staff define custom fields, refusing bad ones", async () => {
    expect((await get("/admin/subscribers/fields", otherTenant)).status).toBe(403);
    for (const [fields, message] of [
      [{ label: "", type: "text" }, "A field needs a name"],
      [
        { label: "Tier", type: "choice", choices: "Gold" },
        "A choice field needs at least two choices",
      ],
      [{ label: "Tier", type: "colour" }, "Choose a type"],
      [{ label: "x".repeat(61), type: "text" }, "Name must be at most 60 characters"],
    ] as [Record<string, string>, string][]) {
      const response = await post("/admin/subscribers/fields", fields);
      expect(response.status, message).toBe(400);
      expect(textOf(await response.text())).toContain(message);
    }
    expect(await countRows(database.db, "subscriber_fields")).toBe(0);
    for (const field of [
      { label: "Company size", type: "number" },
      { label: "Region", type: "choice", choices: "EMEA\nAmericas\n\nAPAC\nEMEA" },
      { label: "Renewal", type: "date" },
      { label: "Notes", type: "text" },
    ] as Record<string, string>[]) {
      const response = await post("/admin/subscribers/fields", field);
      expect(response.status).toBe(200);
      expect(textOf(await response.text())).toContain(`Added “${field.label}”.`);
    }
    const duplicate = await post("/admin/subscribers/fields", { label: "region", type: "text" });
    expect(duplicate.status).toBe(409);
    const region = await crossTenant(database.db)
      .selectFrom("subscriber_fields")
      .selectAll()
      .where("key", "=", "region")
      .executeTakeFirstOrThrow();
    expect(JSON.parse(region.choices)).toEqual(["EMEA", "Americas", "APAC"]);
    // deleting asks first
    const asked = await post("/admin/subscribers/fields", { intent: "delete", key: "notes" });
    expect(textOf(await asked.text())).toContain("Delete “Notes”?");
    expect(await countRows(database.db, "subscriber_fields")).toBe(4);
    await post("/admin/subscribers/fields", { intent: "delete", key: "notes", confirmed: "yes" });
    expect(await countRows(database.db, "subscriber_fields")).toBe(3);
  });

  it("adds a subscriber as active, with fields, sending nothing; refuses bad input", async () => {
    const before = await countRows(database.db, "subscribers");
    for (const [fields, message] of [
      [{ email: "not-an-address" }, "Please enter a valid email address."],
      [{ email: "" }, "Please enter an email address."],
      [{ "field.company_size": "lots" }, "Company size must be a number"],
      [{ "field.renewal": "2027-02-30" }, "Renewal must be a date (YYYY-MM-DD)"],
      [{ "field.region": "Mars" }, "Region must be one of: EMEA, Americas, APAC"],
      [{ lists: ["no-such-list"] }, "Choose lists from the list"],
      [{ lists: [] }, "Choose at least one list."],
      [{ name: "n".repeat(101) }, "Name must be at most 100 characters"],
    ] as [Record<string, string | string[]>, string][]) {
      const response = await newSubscriber(fields);
      expect(response.status, message).toBe(400);
      expect(textOf(await response.text())).toContain(message);
    }
    expect(await countRows(database.db, "subscribers")).toBe(before);

    const added = await newSubscriber();
    expect(added.status).toBe(303);
    const id = await idOf("dana@lawfirm.example");
    expect(added.headers.get("location")).toBe(`/admin/subscribers/${id}?added=active`);
    expect(await subscriber("dana@lawfirm.example")).toMatchObject({
      status: "active",
      name: "Dana",
    });
    expect(await values(id)).toEqual({
      company_size: "1200",
      region: "EMEA",
      renewal: "2027-03-31",
    });
    const again = await newSubscriber();
    expect(again.status).toBe(409);
    expect(textOf(await again.text())).toContain("This address is already a subscriber");
    expect(textOf(await (await get(added.headers.get("location") ?? "")).text())).toContain(
      "Subscriber added as active.",
    );
    const page = await profileText(id);
    expect(page).toContain("Added by staff (editor@example.com)");
    expect(page).toContain("Added by editor@example.com as active");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(sink.messages.filter((mail) => mail.to.includes("dana@lawfirm.example"))).toHaveLength(
      0,
    );
  });

  it("adds a subscriber with the double opt-in: unconfirmed until the emailed link", async () => {
    const response = await newSubscriber({ email: "lee@lawfirm.example", mode: "opt-in" });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toMatch(/\?added=opt-in$/);
    expect((await subscriber("lee@lawfirm.example"))?.status).toBe("unconfirmed");
    await confirmFromMail("lee@lawfirm.example");
    expect((await subscriber("lee@lawfirm.example"))?.status).toBe("active");
    const page = await profileText(await idOf("lee@lawfirm.example"));
    expect(page).toContain("Invited by editor@example.com: the double opt-in email was sent");
    expect(page).toContain("Confirmed the subscription (double opt-in)");
  });

  it("keeps a visitor's consent record: the form, the page, the client address, the time", async () => {
    const response = await post(
      "/newsletter/subscribe",
      { email: "visitor@example.com", lists: ["newsletter"], chooseLists: "1", page: "/about" },
      "",
    );
    expect(response.status).toBe(303);
    await confirmFromMail("visitor@example.com");
    const page = await profileText(await idOf("visitor@example.com"));
    expect(page).toContain("Signed up through the form");
    expect(page).toMatch(/Page \/about/);
    expect(page).toMatch(/Client address \S+/);
    // a page that is not a path is not kept
    await post(
      "/newsletter/subscribe",
      {
        email: "other@example.com",
        lists: ["newsletter"],
        chooseLists: "1",
        page: "javascript:alert(1)",
      },
      "",
    );
    await confirmFromMail("other@example.com");
    const other = await idOf("other@example.com");
    expect(other).toBeGreaterThan(0);
    expect(await profileText(other)).toContain("Signed up through the form");
    expect(await profileText(other)).not.toContain("javascript:");
  });

  it("edits address, name, fields and lists in one go, on the timeline; refuses a taken address", async () => {
    const id = await idOf("dana@lawfirm.example");
    const taken = await post(`/admin/subscribers/${id}`, {
      intent: "save",
      email: "lee@lawfirm.example",
      name: "Dana",
      lists: ["newsletter"],
    });
    expect(taken.status).toBe(409);
    expect(textOf(await taken.text())).toContain("Another subscriber already has this address");
    const bad = await post(`/admin/subscribers/${id}`, {
      intent: "save",
      email: "dana@lawfirm.example",
      name: "Dana",
      lists: ["newsletter"],
      "field.company_size": "many",
    });
    expect(bad.status).toBe(400);
    expect(await values(id)).toMatchObject({ company_size: "1200" });

    const saved = await post(`/admin/subscribers/${id}`, {
      intent: "save",
      email: "Dana.Moss@LawFirm.example",
      name: "Dana Moss",
      lists: ["industry-news", "product-updates"],
      "field.company_size": "1300",
      "field.region": "",
      "field.renewal": "2027-03-31",
    });
    expect(saved.status).toBe(200);
    expect(textOf(await saved.text())).toContain("Changes saved.");
    expect(await subscriber("dana.moss@lawfirm.example")).toMatchObject({ id, name: "Dana Moss" });
    expect(await listsOf(id)).toEqual(["product-updates", "industry-news"]);
    expect(await values(id)).toEqual({ company_size: "1300", renewal: "2027-03-31" });
    const page = await profileText(id);
    expect(page).toContain("Changed: email, name, Company size, Region");
    expect(page).toMatch(
      /added to KeyDiscovery Updates, Industry News; removed from KeyDiscovery Newsletter/,
    );
  });

  it("shows the campaigns sent to a subscriber on their timeline", async () => {
    const sent = await sendAsEmail(
      server.url,
      `/admin/newsletter/send/${newsletterId}`,
      {
        subject: "The timeline issue",
        lists: ["newsletter"],
        trackOpens: "on",
        trackClicks: "on",
        mode: "now",
      },
      editor,
    );
    expect(sent.status).toBe(303);
    await sink.waitFor(
      (mail) => mail.subject === "The timeline issue" && mail.to.includes("visitor@example.com"),
    );
    const id = await idOf("visitor@example.com");
    for (const deadline = Date.now() + scaled(5_000); Date.now() < deadline; ) {
      if ((await profileText(id)).includes("Sent “The timeline issue”")) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await profileText(id)).toContain("Sent “The timeline issue”");
  });

  it("applies bulk actions to the ticked rows or to everyone matching a search", async () => {
    const ids = [await idOf("visitor@example.com"), await idOf("other@example.com")];
    const add = await post("/admin/subscribers", {
      intent: "bulk",
      scope: "ticked",
      bulk: "add",
      toList: "industry-news",
      ids: ids.map(String),
    });
    expect(add.status).toBe(200);
    expect(textOf(await add.text())).toContain("2 of 2 subscribers added to the list.");
    for (const id of ids) expect(await listsOf(id)).toContain("industry-news");
    const remove = await post("/admin/subscribers", {
      intent: "bulk",
      scope: "all",
      "filter.q": "other@",
      bulk: "remove",
      toList: "industry-news",
    });
    expect(textOf(await remove.text())).toContain("1 of 1 subscriber removed from the list.");
    expect(await listsOf(ids[1] ?? 0)).not.toContain("industry-news");
    expect(await listsOf(ids[0] ?? 0)).toContain("industry-news");

    const nothing = await post("/admin/subscribers", {
      intent: "bulk",
      scope: "ticked",
      bulk: "unsubscribe",
    });
    expect(nothing.status).toBe(400);
    expect(textOf(await nothing.text())).toContain("Tick the subscribers first");

    const exported = await post("/admin/subscribers", {
      intent: "bulk",
      scope: "ticked",
      bulk: "export",
      ids: ids.map(String),
    });
    expect(exported.status).toBe(303);
    const download = await get(exported.headers.get("location") ?? "");
    expect(download.headers.get("content-type")).toContain("text/csv");
    const csv = await download.text();
    expect(csv).toContain("visitor@example.com");
    expect(csv).toContain("other@example.com");
    expect(csv).not.toContain("lee@lawfirm.example");

    const fields = { intent: "bulk", scope: "all", "filter.q": "other@", bulk: "unsubscribe" };
    const asked = await post("/admin/subscribers", fields);
    expect(textOf(await asked.text())).toContain("Unsubscribe 1 subscriber?");
    expect((await subscriber("other@example.com"))?.status).toBe("active");
    const done = await post("/admin/subscribers", { ...fields, confirmed: "yes" });
    expect(textOf(await done.text())).toContain("1 subscriber unsubscribed.");
    expect((await subscriber("other@example.com"))?.status).toBe("unsubscribed");
    expect(await profileText(ids[1] ?? 0)).toContain("Unsubscribed by staff (editor@example.com)");
  });

  it("exports one person's data as JSON, to staff and to the subscriber through their signed link", async () => {
    const id = await idOf("visitor@example.com");
    const staff = await get(`/admin/subscribers/${id}/export.json`);
    expect(staff.headers.get("content-type")).toContain("application/json");
    const body = (await staff.json()) as Record<string, unknown> & {
      subscriber: { email: string };
      consent: { page: string };
      history: { title: string }[];
    };
    expect(body.subscriber.email).toBe("visitor@example.com");
    expect(body.consent.page).toBe("/about");
    expect(body.history.map((entry) => entry.title)).toContain("Sent “The timeline issue”");
    expect((await get(`/admin/subscribers/${id}/export.json`, "")).status).toBe(302);
    expect((await get(`/admin/subscribers/${id}/export.json`, otherTenant)).status).toBe(403);

    const token = signToken(SECRET, { purpose: "preferences", tenantId: "main", subscriberId: id });
    const centre = await (await get(`/preferences/${token}`, "")).text();
    expect(centre).toContain(`/preferences/${token}/data.json`);
    const own = await get(`/preferences/${token}/data.json`, "");
    expect(own.status).toBe(200);
    expect(((await own.json()) as { subscriber: { email: string } }).subscriber.email).toBe(
      "visitor@example.com",
    );
    const forged = signToken("another-secret-0123456789abcdef0123456", {
      purpose: "preferences",
      tenantId: "main",
      subscriberId: id,
    });
    expect((await get(`/preferences/${forged}/data.json`, "")).status).toBe(404);
    const wrongPurpose = signToken(SECRET, {
      purpose: "unsubscribe",
      tenantId: "main",
      subscriberId: id,
    });
    expect((await get(`/preferences/${wrongPurpose}/data.json`, "")).status).toBe(404);
  });

  it("erases a person: personal data gone, campaign counts kept, a new sign-up starts fresh", async () => {
    const id = await idOf("visitor@example.com");
    const sentBefore = await crossTenant(database.db)
      .selectFrom("deliveries")
      .select(["campaign_id", "status"])
      .where("subscriber_id", "=", id)
      .execute();
    expect(sentBefore.length).toBeGreaterThan(0);
    const asked = await post(`/admin/subscribers/${id}`, { intent: "erase" });
    expect(textOf(await asked.text())).toContain("Erase visitor@example.com?");
    expect(await idOf("visitor@example.com")).toBe(id);
    const erased = await post(`/admin/subscribers/${id}`, { intent: "erase", confirmed: "yes" });
    expect(erased.status).toBe(303);
    expect(erased.headers.get("location")).toBe("/admin/subscribers?erased=1");

    const row = await crossTenant(database.db)
      .selectFrom("subscribers")
      .selectAll()
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    expect(row.email).not.toContain("visitor");
    expect(row).toMatchObject({ name: "", status: "unsubscribed" });
    expect(row.erased_at).not.toBeNull();
    expect(await listsOf(id)).toEqual([]);
    expect(await values(id)).toEqual({});
    const events = await crossTenant(database.db)
      .selectFrom("subscriber_events")
      .select("id")
      .where("subscriber_id", "=", id)
      .execute();
    expect(events).toHaveLength(0);
    const mail = await crossTenant(database.db)
      .selectFrom("mail_log")
      .select("id")
      .where("to_address", "=", "visitor@example.com")
      .execute();
    expect(mail).toHaveLength(0);
    const deliveries = await crossTenant(database.db)
      .selectFrom("deliveries")
      .select(["campaign_id", "status", "email"])
      .where("subscriber_id", "=", id)
      .execute();
    expect(deliveries.map(({ campaign_id, status }) => ({ campaign_id, status }))).toEqual(
      sentBefore,
    );
    expect(deliveries.every((delivery) => delivery.email === "")).toBe(true);
    // gone from the staff pages
    expect((await get(`/admin/subscribers/${id}`)).status).toBe(404);
    const list = textOf(await (await get("/admin/subscribers?erased=1")).text());
    expect(list).toContain("Subscriber erased.");
    expect(list).not.toContain("visitor@example.com");
    expect(list).not.toContain("erased.invalid");

    // the same address signs up again: a new subscriber with no past
    await post(
      "/newsletter/subscribe",
      { email: "visitor@example.com", lists: ["newsletter"], chooseLists: "1" },
      "",
    );
    const fresh = await idOf("visitor@example.com");
    expect(fresh).not.toBe(id);
    const page = await profileText(fresh);
    expect(page).not.toContain("The timeline issue");
  });

  it("keeps profiles to their tenant", async () => {
    const id = await idOf("lee@lawfirm.example");
    expect((await get(`/admin/subscribers/${id}`, otherTenant)).status).toBe(403);
    expect((await get(`/admin/subscribers/${id}?subdomain=keydiscovery`, superAdmin)).status).toBe(
      404,
    );
    const edit = await post(
      `/admin/subscribers/${id}?subdomain=keydiscovery`,
      { intent: "erase", confirmed: "yes" },
      superAdmin,
    );
    expect(edit.status).toBe(404);
    expect((await subscriber("lee@lawfirm.example"))?.erased_at).toBeNull();
    expect((await get("/admin/subscribers/abc")).status).toBe(404);
    expect((await get("/admin/subscribers/99999999")).status).toBe(404);
  });

  it("shows growth per day for the tenant and per list, from the timelines", async () => {
    const page = textOf(await (await get("/admin/subscribers?growth=7")).text());
    // dana (active at once), lee and other (confirmed), the re-signed visitor (unconfirmed);
    // other unsubscribed; the erased visitor's first sign-up went with her
    expect(page).toContain(
      "Last 7 days, all subscribers: 4 new, 3 confirmed, 1 unsubscribed, net +2.",
    );
    const list = textOf(
      await (await get("/admin/subscribers?growth=30&growthList=industry-news")).text(),
    );
    // dana moved onto it, other added in bulk then removed
    expect(list).toContain(
      "Last 30 days, Industry News: 2 new, 2 confirmed, 1 unsubscribed, net +1.",
    );
    const today = new Date().toISOString().slice(0, 10);
    expect(list).toMatch(new RegExp(`${today} 2 2 1 \\+?1`));
    // a period that is not offered falls back to 30 days
    expect(textOf(await (await get("/admin/subscribers?growth=12345")).text())).toContain(
      "Last 30 days, all subscribers",
    );
  });
});
