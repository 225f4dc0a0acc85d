import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { crossTenant } from "../../server/db/tenant-guard";
import { smtpTransport, type Transport } from "../../server/mail/transport";
import { createNewsletter } from "../../server/newsletters/editing";
import { publishNewsletter } from "../../server/newsletters/newsletters";
import { listTenantLists } from "../../server/subscribers/lists";
import { requestPreferenceChange } from "../../server/subscribers/preferences";
import type { SubscriptionContext } from "../../server/subscribers/subscribers";
import { getTenant } from "../../server/tenants/store";
import { countRows, type TestDatabase, testDialects } from "../support/database";
import { postForm } from "../support/forms";
import { textOf } from "../support/html";
import type { RunningServer } from "../support/server";
import type { SmtpSink } from "../support/smtp-sink";
import { type StaffSite, startStaffSite } from "../support/staff-site";
import { insertSubscriber } from "../support/subscribers";

const SECRET = "lists-admin-secret-0123456789abcdef0123";

describe.each(testDialects())("managing lists on %s", (dialect) => {
  let site: StaffSite;
  let database: TestDatabase;
  let sink: SmtpSink;
  let transport: Transport;
  let server: RunningServer;
  let editor = "";
  let otherTenant = "";
  let superAdmin = "";
  let newsletterId = "";

  const get = (path: string, cookie = editor) =>
    fetch(`${server.url}${path}`, { headers: { cookie }, redirect: "manual" });
  const post = (path: string, fields: Record<string, string | string[]>, cookie = editor) =>
    postForm(server.url, path, fields, cookie);
  const lists = async () =>
    listTenantLists(database.db, (await getTenant(database.db, "main")).config);
  const listRow = (key: string) =>
    crossTenant(database.db)
      .selectFrom("lists")
      .selectAll()
      .where("tenant_id", "=", "main")
      .where("key", "=", key)
      .executeTakeFirstOrThrow();
  const offeredOnSignUp = async () => {
    const html = await (await get("/newsletter/subscribe", "")).text();
    return [...html.matchAll(/<input[^>]*type="checkbox"[^>]*value="([^"]*)"/g)].map((m) => m[1]);
  };
  const groupsApi = async () =>
    (
      (await (await get("/api/tenants/main/email-groups", "")).json()) as {
        groups: { key: string }[];
      }
    ).groups.map((group) => group.key);

  beforeAll(async () => {
    site = await startStaffSite(dialect, SECRET);
    ({ database, sink, server, editor, otherTenant, superAdmin } = site);
    transport = smtpTransport(sink.url);
    const scope = { db: database.db, tenantId: "main", authorId: null };
    newsletterId = (
      await createNewsletter(scope, {
        title: "Issue 1",
        excerpt: "First",
        content: "<p>Hello</p>",
        readTime: 1,
      })
    ).id;
    await publishNewsletter(scope, newsletterId);
  });

  afterAll(async () => {
    transport?.close();
    await site?.stop();
  });

  it("lets only staff of this tenant in", async () => {
    const anonymous = await get("/admin/lists", "");
    expect(anonymous.status).toBe(302);
    expect(anonymous.headers.get("location")).toMatch(/^\/admin\/login/);
    expect((await get("/admin/lists", otherTenant)).status).toBe(403);
    const before = await countRows(database.db, "lists");
    expect((await post("/admin/lists", { name: "Sneaky", visibility: "public" }, "")).status).toBe(
      302,
    );
    expect(
      (await post("/admin/lists", { name: "Sneaky", visibility: "public" }, otherTenant)).status,
    ).toBe(403);
    expect(await countRows(database.db, "lists")).toBe(before);
    const page = textOf(await (await get("/admin/lists")).text());
    expect(page).toContain("KeyDiscovery Newsletter");
    expect(page).toContain("(default)");
  });

  it("refuses bad input with a clear message and creates nothing", async () => {
    const before = await countRows(database.db, "lists");
    for (const [fields, message] of [
      [{ name: "", visibility: "public" }, "A list needs a name"],
      [{ name: "   ", visibility: "public" }, "A list needs a name"],
      [{ name: "x".repeat(101), visibility: "public" }, "Name must be at most 100 characters"],
      [
        { name: "Fine", description: "d".repeat(501), visibility: "public" },
        "Description must be at most 500 characters",
      ],
      [{ name: "Fine", visibility: "secret" }, "Choose public or private"],
      [{ name: "industry NEWS", visibility: "public" }, "A list with this name already exists"],
    ] as [Record<string, string>, string][]) {
      const response = await post("/admin/lists", fields);
      expect(response.status, message).toBeGreaterThanOrEqual(400);
      expect(textOf(await response.text())).toContain(message);
    }
    expect(await countRows(database.db, "lists")).toBe(before);
  });

  it("creates a private list staff see and visitors do not, then makes it public", async () => {
    const created = await post("/admin/lists", {
      name: "Legal Ops <Digest>",
      description: "'; DROP TABLE lists; --",
      visibility: "private",
    });
    expect(created.status).toBe(303);
    const page = created.headers.get("location") ?? "";
    expect(page).toMatch(/^\/admin\/lists\/\d+\?created=1$/);
    const html = await (await get(page)).text();
    expect(html).toContain("Legal Ops &lt;Digest&gt;");
    expect(textOf(html)).toContain("List created.");
    const row = await listRow("legal-ops-digest");
    expect(row).toMatchObject({ name: "Legal Ops <Digest>", visibility: "private" });
    expect(row.description).toBe("'; DROP TABLE lists; --");

    expect(await offeredOnSignUp()).not.toContain("legal-ops-digest");
    expect(await groupsApi()).not.toContain("legal-ops-digest");
    // a visitor naming it anyway joins nothing through it
    const signUp = await post(
      "/newsletter/subscribe",
      { email: "sneaky@example.com", lists: ["legal-ops-digest"], chooseLists: "1" },
      "",
    );
    expect(textOf(await signUp.text())).toContain("No valid groups specified");
    // staff can send to it
    const send = await post(`/admin/newsletter/send/${newsletterId}`, {
      subject: "Private issue",
      lists: ["legal-ops-digest"],
      mode: "draft",
      intent: "create",
    });
    expect(send.status).toBe(303);

    const id = page.split("/").pop()?.split("?")[0] ?? "";
    const saved = await post(`/admin/lists/${id}`, {
      intent: "save",
      name: "Legal Ops Digest",
      description: "Monthly notes for legal operations teams.",
      visibility: "public",
    });
    expect(saved.status).toBe(200);
    expect(textOf(await saved.text())).toContain("Changes saved.");
    expect(await listRow("legal-ops-digest")).toMatchObject({
      name: "Legal Ops Digest",
      visibility: "public",
    });
    expect(await offeredOnSignUp()).toContain("legal-ops-digest");
    expect(await groupsApi()).toContain("legal-ops-digest");

    const bad = await post(`/admin/lists/${id}`, {
      intent: "save",
      name: "",
      visibility: "public",
    });
    expect(bad.status).toBe(400);
    expect(textOf(await bad.text())).toContain("A list needs a name");
    expect((await listRow("legal-ops-digest")).name).toBe("Legal Ops Digest");
  });

  it("archives a list: kept with its people, offered nowhere, not for new campaigns; restores it", async () => {
    const list = (await lists()).find((each) => each.key === "industry-news");
    const id = list?.id ?? 0;
    const reader = await insertSubscriber(database.db, { email: "ann@example.com", listIds: [id] });
    // Read first: the sign-up form's lists are kept per tenant, and a change must drop them at once.
    expect(await offeredOnSignUp()).toContain("industry-news");
    expect((await post(`/admin/lists/${id}`, { intent: "archive" })).status).toBe(200);
    expect((await listRow("industry-news")).archived_at).not.toBeNull();
    expect(await offeredOnSignUp()).not.toContain("industry-news");
    const send = await post(`/admin/newsletter/send/${newsletterId}`, {
      subject: "To the archive",
      lists: ["industry-news"],
      mode: "draft",
      intent: "create",
    });
    expect(send.status).toBe(400);
    expect(textOf(await send.text())).toContain("No valid groups specified");
    const members = await crossTenant(database.db)
      .selectFrom("subscriptions")
      .select("subscriber_id")
      .where("list_id", "=", id)
      .execute();
    expect(members.map((m) => m.subscriber_id)).toEqual([reader]);
    expect(textOf(await (await get("/admin/lists")).text())).toContain("Archived");

    expect((await post(`/admin/lists/${id}`, { intent: "restore" })).status).toBe(200);
    expect((await listRow("industry-news")).archived_at).toBeNull();
    expect(await offeredOnSignUp()).toContain("industry-news");
  });

  it("keeps the default list public and in use", async () => {
    const id = (await lists()).find((each) => each.key === "newsletter")?.id ?? 0;
    const message =
      "This is the list sign-ups join by default; choose another default list in the tenant settings first.";
    for (const fields of [
      { intent: "save", name: "KeyDiscovery Newsletter", visibility: "private" },
      { intent: "archive" },
      { intent: "delete", confirmed: "yes" },
    ] as Record<string, string>[]) {
      const response = await post(`/admin/lists/${id}`, fields);
      expect(response.status).toBe(409);
      expect(textOf(await response.text())).toContain(message);
    }
    expect(await listRow("newsletter")).toMatchObject({
      visibility: "public",
      archived_at: null,
      deleted_at: null,
    });
  });

  it("keeps private memberships when a subscriber changes preferences", async () => {
    const all = await lists();
    const id = (key: string) => all.find((each) => each.key === key)?.id ?? 0;
    await post(`/admin/lists/${id("legal-ops-digest")}`, {
      intent: "save",
      name: "Legal Ops Digest",
      visibility: "private",
    });
    const subscriber = await insertSubscriber(database.db, {
      email: "pat@example.com",
      listIds: [id("newsletter"), id("legal-ops-digest")],
    });
    const tenant = (await getTenant(database.db, "main")).config;
    const ctx: SubscriptionContext = {
      db: database.db,
      logger: pino({ level: "silent" }),
      transport,
      tenant,
      origin: server.url,
      sessionSecret: SECRET,
    };
    const pending = () =>
      crossTenant(database.db)
        .selectFrom("preference_changes")
        .select(["active_lists", "inactive_lists"])
        .where("subscriber_id", "=", subscriber)
        .executeTakeFirstOrThrow();
    // a private list's key sent by the centre's form is ignored; the membership is kept
    await requestPreferenceChange(ctx, {
      email: "pat@example.com",
      activeLists: ["product-updates"],
    });
    expect(JSON.parse((await pending()).active_lists)).toEqual([
      "product-updates",
      "legal-ops-digest",
    ]);
    // choosing nothing unsubscribes from everything, private lists included
    await requestPreferenceChange(ctx, { email: "pat@example.com", activeLists: [] });
    expect(JSON.parse((await pending()).active_lists)).toEqual([]);
    expect(JSON.parse((await pending()).inactive_lists)).toContain("legal-ops-digest");
    // the centre does not show the private list
    const centre = await (
      await get("/subscription/preferences?email=pat%40example.com", "")
    ).text();
    expect(centre).not.toContain("Legal Ops Digest");
  });

  it("deletes a list after asking: its people come off it, other lists and history stay", async () => {
    const all = await lists();
    const id = all.find((each) => each.key === "product-updates")?.id ?? 0;
    const keeper = all.find((each) => each.key === "newsletter")?.id ?? 0;
    const both = await insertSubscriber(database.db, {
      email: "sam@example.com",
      listIds: [id, keeper],
    });
    const members = () =>
      crossTenant(database.db)
        .selectFrom("subscriptions")
        .selectAll()
        .where("list_id", "=", id)
        .execute();
    const count = (await members()).length;
    expect(count).toBeGreaterThan(0);

    const asked = await post(`/admin/lists/${id}`, { intent: "delete" });
    expect(asked.status).toBe(200);
    const question = textOf(await asked.text());
    expect(question).toContain("Delete “KeyDiscovery Updates”?");
    expect(question).toContain(`${count} ${count === 1 ? "person" : "people"} will be taken off`);
    expect(await members()).toHaveLength(count);

    // a campaign not yet sent to it holds the list
    const draft = await post(`/admin/newsletter/send/${newsletterId}`, {
      subject: "Updates",
      lists: ["product-updates"],
      mode: "draft",
      intent: "create",
    });
    const campaignPage = draft.headers.get("location") ?? "";
    const held = await post(`/admin/lists/${id}`, { intent: "delete", confirmed: "yes" });
    expect(held.status).toBe(409);
    expect(textOf(await held.text())).toContain("A campaign not yet sent goes to this list");
    expect(await members()).toHaveLength(count);
    await post(campaignPage, { action: "cancel", confirmed: "yes" });

    const deleted = await post(`/admin/lists/${id}`, { intent: "delete", confirmed: "yes" });
    expect(deleted.status).toBe(303);
    expect(deleted.headers.get("location")).toBe("/admin/lists?deleted=1");
    expect(await members()).toHaveLength(0);
    expect((await lists()).map((each) => each.key)).not.toContain("product-updates");
    // a default of the tenant's settings is not created again
    expect((await lists()).map((each) => each.key)).not.toContain("product-updates");
    expect((await listRow("product-updates")).deleted_at).not.toBeNull();
    const stillThere = await crossTenant(database.db)
      .selectFrom("subscriptions")
      .select("list_id")
      .where("subscriber_id", "=", both)
      .execute();
    expect(stillThere.map((row) => row.list_id)).toEqual([keeper]);
    expect((await get(`/admin/lists/${id}`)).status).toBe(404);
    expect(textOf(await (await get("/admin/lists?deleted=1")).text())).toContain("List deleted.");
    // a new list with the same name gets a fresh key
    const again = await post("/admin/lists", {
      name: "KeyDiscovery Updates",
      visibility: "public",
    });
    expect(again.status).toBe(303);
    expect((await lists()).map((each) => each.key)).toContain("keydiscovery-updates");
  });

  it("keeps each tenant's lists to itself", async () => {
    const theirs = await crossTenant(database.db)
      .selectFrom("lists")
      .select("id")
      .where("tenant_id", "=", "keydiscovery")
      .executeTakeFirst();
    const foreignId =
      theirs?.id ??
      (await listTenantLists(database.db, (await getTenant(database.db, "keydiscovery")).config))[0]
        ?.id;
    expect((await get(`/admin/lists/${foreignId}`)).status).toBe(404);
    const attempt = await post(`/admin/lists/${foreignId}`, { intent: "delete", confirmed: "yes" });
    expect(attempt.status).toBe(404);
    expect((await get(`/admin/lists/${foreignId}?subdomain=keydiscovery`, superAdmin)).status).toBe(
      200,
    );
    expect((await get("/admin/lists/not-a-number")).status).toBe(404);
  });
});
