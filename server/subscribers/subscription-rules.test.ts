import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase, testDialects } from "../../tests/support/database";
import { migrateToLatest } from "../db/migrate";
import type { OutgoingMessage, Transport } from "../mail/transport";
import type { TenantConfig } from "../tenants/config";
import { seedTenants } from "../tenants/seed";
import { getTenant } from "../tenants/store";
import { changeListMembership, eraseSubscribers } from "./bulk-actions";
import { SubscriptionError } from "./errors";
import { setFieldValues } from "./fields";
import { createList, setListArchived } from "./lists";
import { applyPreferenceChange, requestPreferenceChange } from "./preferences";
import { countByList, countByStatus } from "./search";
import { confirmSignup, signUp } from "./signup";
import { updateSubscriber } from "./store";
import { getSubscriberById, type SubscriptionContext } from "./subscribers";
import { feedbackSummary, recordUnsubscribeFeedback, unsubscribe } from "./unsubscribe";

/*
 * The audience's rules on a real database (SQLite, and PostgreSQL with TEST_DATABASE_URL): how a
 * subscriber's state changes (sign-up, double opt-in, unsubscribe, coming back, erasure), who may
 * join which list, the preference centre's single-use link, the feedback answer, and the counts
 * the triggers keep. Mail goes to a transport that keeps what it is handed, so a test can follow
 * the links in it as a reader would.
 */
describe.each(testDialects())("subscription rules on %s", (dialect) => {
  let database: TestDatabase;
  let tenant: TenantConfig;
  const sent: OutgoingMessage[] = [];
  const transport: Transport = {
    kind: "smtp",
    async deliver(message) {
      sent.push(message);
      return { messageId: `<${sent.length}@test>` };
    },
    close() {},
  };
  const context = (doubleOptIn = false): SubscriptionContext => ({
    db: database.db,
    logger: pino({ level: "silent" }),
    transport,
    tenant: { ...tenant, features: { ...tenant.features, doubleOptIn } },
    origin: "http://localhost:3000",
    sessionSecret: "test-secret-test-secret-test-secret-0123",
  });
  const mailTo = (address: string) => sent.filter((mail) => mail.to === address);
  const row = (id: number) =>
    database.db
      .selectFrom("subscribers")
      .selectAll()
      .where("tenant_id", "=", "main")
      .where("id", "=", id)
      .executeTakeFirstOrThrow();

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    await migrateToLatest(database.db);
    await seedTenants(database.db);
    tenant = (await getTenant(database.db, "main")).config;
    await createList(database.db, tenant, {
      name: "Insiders",
      description: "",
      visibility: "private",
    });
  });

  afterAll(async () => {
    await database?.drop();
  });

  it("lets a visitor join public lists only, and staff invite to private ones (double opt-in)", async () => {
    const ctx = context();
    await expect(
      signUp(ctx, { email: "private@example.com", lists: ["insiders"] }),
    ).rejects.toThrow("No valid groups specified");
    const visitor = await signUp(ctx, {
      email: "visitor@example.com",
      lists: ["newsletter", "insiders"],
    });
    expect(visitor.outcome).toBe("subscribed");
    expect((await getSubscriberById(ctx, visitor.subscriberId))?.lists).toEqual(["newsletter"]);

    const invited = await signUp(ctx, {
      email: "invited@example.com",
      lists: ["insiders"],
      consent: { source: "staff", by: "staff@example.com", optIn: true, lists: ["insiders"] },
    });
    expect(invited.outcome).toBe("confirmation-sent");
    const view = await getSubscriberById(ctx, invited.subscriberId);
    expect(view).toMatchObject({ status: "unconfirmed", lists: ["insiders"], subscribedAt: null });
  });

  it("signs up at once without double opt-in, once per address, adding lists on a second sign-up", async () => {
    const ctx = context();
    const first = await signUp(ctx, { email: " Reader@Example.COM ", name: "Rae" });
    expect(first.outcome).toBe("subscribed");
    const created = await row(first.subscriberId);
    expect(created).toMatchObject({ email: "reader@example.com", name: "Rae", status: "active" });
    expect(created.subscribed_at).not.toBeNull();
    expect(
      mailTo("reader@example.com").map((mail) => mail.headers["List-Unsubscribe-Post"]),
    ).toEqual(["List-Unsubscribe=One-Click"]);

    const again = await signUp(ctx, { email: "reader@example.com", lists: ["industry-news"] });
    expect(again).toEqual({ outcome: "already-subscribed", subscriberId: first.subscriberId });
    expect((await getSubscriberById(ctx, first.subscriberId))?.lists).toEqual([
      "newsletter",
      "industry-news",
    ]);
    // No second welcome for someone already here.
    expect(mailTo("reader@example.com")).toHaveLength(1);
  });

  it("keeps a double opt-in sign-up unconfirmed until its link is followed, then welcomes them", async () => {
    const ctx = context(true);
    const { outcome, subscriberId } = await signUp(ctx, { email: "optin@example.com" });
    expect(outcome).toBe("confirmation-sent");
    expect((await row(subscriberId)).status).toBe("unconfirmed");
    expect(mailTo("optin@example.com").map((mail) => mail.text)).toEqual([
      expect.stringContaining("/subscription/confirm/"),
    ]);

    const confirmed = await confirmSignup(ctx, subscriberId);
    expect(confirmed).toMatchObject({ status: "active", lists: ["newsletter"] });
    expect((await row(subscriberId)).subscribed_at).not.toBeNull();
    expect(mailTo("optin@example.com")).toHaveLength(2);
    const kinds = await database.db
      .selectFrom("subscriber_events")
      .select("kind")
      .where("tenant_id", "=", "main")
      .where("subscriber_id", "=", subscriberId)
      .orderBy("id")
      .execute();
    expect(kinds.map((event) => event.kind)).toEqual(["signed-up", "confirmed"]);
  });

  it("unsubscribes an active subscriber from every list, and only an active one", async () => {
    const ctx = context();
    const { subscriberId } = await signUp(ctx, {
      email: "leaver@example.com",
      lists: ["newsletter", "industry-news"],
    });
    const left = await unsubscribe(ctx, { email: "LEAVER@example.com" });
    expect(left).toMatchObject({ status: "unsubscribed", lists: [] });
    expect(await getSubscriberById(ctx, subscriberId)).toMatchObject({
      status: "unsubscribed",
      lists: [],
    });
    expect((await row(subscriberId)).unsubscribed_at).not.toBeNull();
    const again = unsubscribe(ctx, { subscriberId });
    await expect(again).rejects.toBeInstanceOf(SubscriptionError);
    await expect(again).rejects.toMatchObject({ status: 409 });
    await expect(unsubscribe(ctx, { email: "nobody@example.com" })).rejects.toMatchObject({
      status: 404,
    });
  });

  it("takes back someone who left when they sign up again, but a bounced address only through the emailed link", async () => {
    const ctx = context();
    const { subscriberId } = await signUp(ctx, { email: "returner@example.com" });
    await unsubscribe(ctx, { subscriberId });
    const back = await signUp(ctx, { email: "returner@example.com" });
    expect(back).toEqual({ outcome: "subscribed", subscriberId });
    expect(await getSubscriberById(ctx, subscriberId)).toMatchObject({
      status: "active",
      lists: ["newsletter"],
    });
    expect((await row(subscriberId)).unsubscribed_at).toBeNull();

    const bounced = await signUp(ctx, { email: "bounced@example.com" });
    const now = new Date().toISOString();
    await updateSubscriber(database.db, "main", bounced.subscriberId, { status: "bounced" }, now);
    const retry = await signUp(ctx, { email: "bounced@example.com" });
    expect(retry.outcome).toBe("confirmation-sent");
    expect((await row(bounced.subscriberId)).status).toBe("bounced");
    expect((await confirmSignup(ctx, bounced.subscriberId)).status).toBe("active");
  });

  it("applies a preference change only with the mailed token, once, within 24 hours, keeping private lists", async () => {
    const ctx = context();
    const email = "prefs@example.com";
    const { subscriberId } = await signUp(ctx, { email, lists: ["newsletter"] });
    await changeListMembership(ctx, "staff@example.com", [subscriberId], {
      listKey: "insiders",
      action: "add",
    });
    const tokenOf = () => {
      const mail = mailTo(email).at(-1);
      return /token=([\w-]+)/.exec(mail?.text ?? "")?.[1] ?? "";
    };

    await requestPreferenceChange(ctx, { email, activeLists: ["industry-news", "insiders"] });
    const token = tokenOf();
    expect(token).not.toBe("");
    // Nothing changes until the link is followed.
    expect((await getSubscriberById(ctx, subscriberId))?.lists).toEqual(["newsletter", "insiders"]);
    await expect(applyPreferenceChange(ctx, { email, token: `${token}x` })).rejects.toThrow(
      "Invalid or expired verification link",
    );
    const tooLate = new Date(Date.now() + 25 * 3_600_000);
    await expect(applyPreferenceChange(ctx, { email, token }, tooLate)).rejects.toThrow(
      "Invalid or expired verification link",
    );
    // A private list is not the centre's to offer or take: "insiders" stays, unasked.
    const applied = await applyPreferenceChange(ctx, { email, token });
    expect(applied).toMatchObject({ status: "active" });
    expect([...applied.lists].sort()).toEqual(["industry-news", "insiders"]);
    await expect(applyPreferenceChange(ctx, { email, token })).rejects.toThrow(
      "Invalid or expired verification link",
    );

    // Choosing nothing is leaving every list.
    await requestPreferenceChange(ctx, { email, activeLists: [] });
    const none = await applyPreferenceChange(ctx, { email, token: tokenOf() });
    expect(none).toMatchObject({ status: "unsubscribed", lists: [] });
  });

  it("keeps one feedback answer per unsubscribe, and none from someone who never left", async () => {
    const ctx = context();
    const { subscriberId } = await signUp(ctx, { email: "feedback@example.com" });
    const answer = { subscriberId, reason: "Other" as const, details: "  too many  " };
    expect(await recordUnsubscribeFeedback(ctx, answer)).toBe(false);
    await unsubscribe(ctx, { subscriberId });
    expect(await recordUnsubscribeFeedback(ctx, answer)).toBe(true);
    expect(await recordUnsubscribeFeedback(ctx, answer)).toBe(false);
    const summary = await feedbackSummary(ctx);
    expect(summary.reasons.find((each) => each.reason === "Other")?.count).toBe(1);
    expect(summary.others.map((other) => other.text)).toEqual(["too many"]);
  });

  it("erases a subscriber: no address, name, lists, values or timeline; their feedback anonymous", async () => {
    const ctx = context();
    const { subscriberId } = await signUp(ctx, { email: "erase.me@example.com", name: "Eve" });
    await database.db
      .insertInto("subscriber_fields")
      .values({
        tenant_id: "main",
        key: "city",
        label: "City",
        type: "text",
        choices: "[]",
        position: 0,
        created_at: new Date().toISOString(),
      })
      .execute();
    await setFieldValues(database.db, "main", subscriberId, { city: "Lyon" });
    await unsubscribe(ctx, { subscriberId });
    await recordUnsubscribeFeedback(ctx, { subscriberId, reason: "Other", details: "private" });

    expect(await eraseSubscribers(ctx, [subscriberId])).toBe(1);
    const erased = await row(subscriberId);
    expect(erased.email).toBe(`erased-${subscriberId}@erased.invalid`);
    expect(erased).toMatchObject({ name: "", erased_at: expect.any(String) });
    expect(await getSubscriberById(ctx, subscriberId)).toBeNull();
    const left = async (table: "subscriptions" | "subscriber_values" | "subscriber_events") =>
      (
        await database.db
          .selectFrom(table)
          .select("subscriber_id")
          .where("tenant_id", "=", "main")
          .where("subscriber_id", "=", subscriberId)
          .execute()
      ).length;
    expect(await left("subscriptions")).toBe(0);
    expect(await left("subscriber_values")).toBe(0);
    expect(await left("subscriber_events")).toBe(0);
    const feedback = await database.db
      .selectFrom("unsubscribe_feedback")
      .select(["subscriber_id", "details"])
      .where("tenant_id", "=", "main")
      .where("reason", "=", "Other")
      .where("details", "is", null)
      .execute();
    expect(feedback).toEqual([{ subscriber_id: null, details: null }]);
    // The address is free again: signing up makes a new subscriber.
    const again = await signUp(ctx, { email: "erase.me@example.com" });
    expect(again.subscriberId).not.toBe(subscriberId);
  });

  it("moves a selection onto a list and off it, counting only those it changed", async () => {
    const ctx = context();
    const ids = [];
    for (const email of ["bulk1@example.com", "bulk2@example.com", "bulk3@example.com"]) {
      ids.push((await signUp(ctx, { email })).subscriberId);
    }
    const [first = 0] = ids;
    const add = { listKey: "product-updates", action: "add" as const };
    expect(await changeListMembership(ctx, "staff", [first], add)).toBe(1);
    expect(await changeListMembership(ctx, "staff", ids, add)).toBe(2);
    expect(await changeListMembership(ctx, "staff", ids, add)).toBe(0);
    const remove = { listKey: "product-updates", action: "remove" as const };
    expect(await changeListMembership(ctx, "staff", ids, remove)).toBe(3);
    expect((await getSubscriberById(ctx, first))?.lists).toEqual(["newsletter"]);

    const archived = await createList(database.db, tenant, {
      name: "Old news",
      description: "",
      visibility: "public",
    });
    await setListArchived(database.db, tenant, archived.id, true);
    await expect(
      changeListMembership(ctx, "staff", ids, { listKey: archived.key, action: "add" }),
    ).rejects.toThrow("Choose a list");
  });

  it("counts per status and per list as the rows stand after all of the above", async () => {
    const ctx = context();
    const rows = await database.db
      .selectFrom("subscribers")
      .select(["id", "status"])
      .where("tenant_id", "=", "main")
      .where("erased_at", "is", null)
      .execute();
    const byStatus = await countByStatus(ctx);
    expect(byStatus.total).toBe(rows.length);
    for (const status of ["active", "unsubscribed", "unconfirmed", "bounced"] as const) {
      expect(byStatus[status], status).toBe(rows.filter((each) => each.status === status).length);
    }
    const members = await database.db
      .selectFrom("subscriptions")
      .innerJoin("subscribers", "subscribers.id", "subscriptions.subscriber_id")
      .innerJoin("lists", "lists.id", "subscriptions.list_id")
      .select("lists.key")
      .where("subscriptions.tenant_id", "=", "main")
      .where("subscribers.tenant_id", "=", "main")
      .where("lists.tenant_id", "=", "main")
      .where("subscribers.status", "=", "active")
      .execute();
    const perList = await countByList(ctx);
    expect(perList.length).toBeGreaterThanOrEqual(4);
    for (const list of perList) {
      expect(list.active, list.key).toBe(members.filter((each) => each.key === list.key).length);
    }
    expect(perList.find((list) => list.key === "newsletter")?.active).toBeGreaterThan(3);
  });
});
