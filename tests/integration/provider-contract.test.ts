import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateToLatest } from "../../server/db/migrate";
import { outboxTransport } from "../../server/mail/transport";
import { BuiltinProvider } from "../../server/providers/builtin";
import { MailerLiteProvider } from "../../server/providers/mailerlite";
import { type MailProvider, ProviderError } from "../../server/providers/types";
import { listTenantLists } from "../../server/subscribers/lists";
import { seedTenants } from "../../server/tenants/seed";
import { getTenant } from "../../server/tenants/store";
import { createTestDatabase, type TestDatabase, testDialects } from "../support/database";
import { type FakeMailerLite, startFakeMailerLite } from "../support/fake-mailerlite";

const LIST_KEYS = ["newsletter", "product-updates", "industry-news"];
const SENDER = { name: "KeyDiscovery", email: "newsletter@keydiscovery.com" };

interface Harness {
  provider: MailProvider;
  /** the provider's own id of a list, by key */
  groupId: (key: string) => string;
  close(): Promise<void>;
}

async function builtin(dialect: "sqlite" | "postgres"): Promise<Harness> {
  const database: TestDatabase = await createTestDatabase(dialect);
  await migrateToLatest(database.db);
  await seedTenants(database.db);
  const tenant = (await getTenant(database.db, "main")).config;
  const lists = await listTenantLists(database.db, tenant);
  const provider = new BuiltinProvider({
    db: database.db,
    logger: pino({ level: "silent" }),
    transport: outboxTransport(),
    tenant,
    origin: "http://localhost:3000",
    sessionSecret: "provider-contract-secret-0123456789abcdef",
  });
  return {
    provider,
    groupId: (key) => String(lists.find((list) => list.key === key)?.id),
    close: () => database.drop(),
  };
}

async function mailerlite(fake: FakeMailerLite): Promise<Harness> {
  const groupIds: Record<string, string> = {};
  for (const [index, key] of LIST_KEYS.entries()) {
    const id = String(500 + index);
    fake.groups.set(id, { id, name: key });
    groupIds[key] = id;
  }
  return {
    provider: new MailerLiteProvider({
      baseUrl: fake.url,
      apiKey: fake.apiKey,
      groupIds,
      defaultSender: SENDER,
      minIntervalMs: 0,
    }),
    groupId: (key) => groupIds[key] ?? "",
    close: async () => {},
  };
}

const expectError = async (work: Promise<unknown>, status: string, message: string | RegExp) => {
  const error = await work.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ProviderError);
  expect((error as ProviderError).status).toBe(status);
  expect((error as ProviderError).message).toMatch(message);
};

let fake: FakeMailerLite;
beforeAll(async () => {
  fake = await startFakeMailerLite();
});
afterAll(async () => {
  await fake?.stop();
});

const providers: [string, () => Promise<Harness>][] = [
  ...testDialects().map(
    (dialect) =>
      [`builtin on ${dialect}`, () => builtin(dialect)] as [string, () => Promise<Harness>],
  ),
  ["mailerlite (local API)", () => mailerlite(fake)],
];

describe.each(providers)("the mail provider contract: %s", (_name, make) => {
  let harness: Harness;
  let provider: MailProvider;

  beforeAll(async () => {
    harness = await make();
    provider = harness.provider;
  });
  afterAll(async () => {
    await harness?.close();
  });

  it("upserts: creates once, then only adds groups and updates the name", async () => {
    const first = await provider.upsertSubscriber({
      email: " Dana@Example.com ",
      name: "Dana",
      groups: ["newsletter"],
    });
    expect(first.created).toBe(true);
    expect(first.subscriber).toMatchObject({
      email: "dana@example.com",
      status: "active",
      fields: { name: "Dana" },
    });
    const again = await provider.upsertSubscriber({
      email: "dana@example.com",
      name: "Dana Reyes",
      groups: [Number(harness.groupId("industry-news"))],
    });
    expect(again.created).toBe(false);
    expect(again.subscriber.id).toBe(first.subscriber.id);
    expect(again.subscriber.fields.name).toBe("Dana Reyes");
    expect(again.subscriber.groups.map((group) => group.id).sort()).toEqual(
      [harness.groupId("newsletter"), harness.groupId("industry-news")].sort(),
    );
    await expectError(
      provider.upsertSubscriber({ email: "dana@nodot" }),
      "INVALID_ARGUMENT",
      "Invalid email format: dana@nodot",
    );
  });

  it("finds a subscriber with embedded groups, or null", async () => {
    expect(await provider.findSubscriber("nobody@example.com")).toBeNull();
    const found = await provider.findSubscriber("DANA@example.com");
    expect(found?.groups).toHaveLength(2);
    expect(await provider.subscriberGroups("dana@example.com")).toEqual(found?.groups);
    await expectError(
      provider.subscriberGroups("nobody@example.com"),
      "NOT_FOUND",
      "Subscriber not found",
    );
  });

  it("adds to and removes from one group by key, id string or number", async () => {
    const { subscriber } = await provider.upsertSubscriber({ email: "lee@example.com" });
    await provider.addToGroup(subscriber.id, "product-updates");
    await provider.addToGroup(subscriber.id, harness.groupId("newsletter"));
    expect((await provider.subscriberGroups("lee@example.com")).map((g) => g.id).sort()).toEqual(
      [harness.groupId("newsletter"), harness.groupId("product-updates")].sort(),
    );
    await provider.removeFromGroup(subscriber.id, Number(harness.groupId("product-updates")));
    expect((await provider.subscriberGroups("lee@example.com")).map((g) => g.id)).toEqual([
      harness.groupId("newsletter"),
    ]);
    await expectError(
      provider.addToGroup(subscriber.id, "no-such-list"),
      "INVALID_ARGUMENT",
      "No valid groups specified",
    );
  });

  it("counts subscribers and lists groups with SPEC's fields", async () => {
    expect(await provider.countSubscribers()).toBe(2);
    const groups = await provider.listGroups();
    const newsletter = groups.find((group) => group.id === harness.groupId("newsletter"));
    expect(newsletter).toMatchObject({
      active_count: 2,
      sent: expect.any(Number),
      opened: expect.any(Number),
      clicked: expect.any(Number),
    });
  });

  it("unsubscribes a known subscriber and refuses an unknown one", async () => {
    const left = await provider.unsubscribe("lee@example.com");
    expect(left.status).toBe("unsubscribed");
    await expectError(
      provider.unsubscribe("nobody@example.com"),
      "NOT_FOUND",
      "Subscriber not found",
    );
  });

  it("validates campaigns with SPEC's messages", async () => {
    const base = { subject: "Issue 1", content: "<p>Hello</p>", groups: ["newsletter"] };
    await expectError(
      provider.createCampaign({ ...base, subject: " " }),
      "INVALID_ARGUMENT",
      "Subject and content are required",
    );
    await expectError(
      provider.createCampaign({ ...base, content: "<p></p>" }),
      "INVALID_ARGUMENT",
      "Subject and content are required",
    );
    await expectError(
      provider.createCampaign({ ...base, senderEmail: "x@nodot" }),
      "INVALID_ARGUMENT",
      "Invalid sender email format",
    );
    await expectError(
      provider.createCampaign({ ...base, groups: ["nope", 99999] }),
      "INVALID_ARGUMENT",
      "No valid groups specified",
    );
    await expectError(provider.getCampaign(" "), "INVALID_ARGUMENT", "Campaign ID is required");
    await expectError(provider.getCampaign("424242"), "NOT_FOUND", /not found/i);
  });

  it("creates draft and sent campaigns, lists them by status and gets one", async () => {
    const draft = await provider.createCampaign({
      subject: "Draft issue",
      content: "<p>Hi</p>",
      groups: ["newsletter"],
      mode: "draft",
    });
    expect(draft.status).toBe("draft");
    expect(draft.groups).toEqual([harness.groupId("newsletter")]);
    const sent = await provider.createCampaign({
      subject: "Sent issue",
      content: "<p>Hi</p>",
      groups: [harness.groupId("industry-news")],
    });
    expect(["sending", "sent"]).toContain(sent.status);
    expect((await provider.getCampaign(draft.id)).subject).toBe("Draft issue");
    const drafts = await provider.listCampaigns({ status: "draft" });
    expect(drafts.items.map((campaign) => campaign.id)).toEqual([draft.id]);
    const all = await provider.listCampaigns({ limit: 1, page: 2 });
    expect(all.total).toBe(2);
    expect(all.items).toHaveLength(1);
  });
});

describe("the MailerLite provider against the API's edge cases", () => {
  let local: FakeMailerLite;
  let provider: MailerLiteProvider;
  beforeAll(async () => {
    local = await startFakeMailerLite({ limitPerMinute: 3, windowMs: 1_500 });
    local.groups.set("500", { id: "500", name: "newsletter" });
    provider = new MailerLiteProvider({
      baseUrl: local.url,
      apiKey: local.apiKey,
      groupIds: { newsletter: "500" },
      defaultSender: SENDER,
      minIntervalMs: 0,
    });
  });
  afterAll(async () => {
    await local?.stop();
  });

  it("never calls the API for a campaign without a valid group", async () => {
    const before = local.requests.length;
    await expectError(
      provider.createCampaign({ subject: "S", content: "<p>C</p>", groups: ["unknown"] }),
      "INVALID_ARGUMENT",
      "No valid groups specified",
    );
    expect(local.requests.length).toBe(before);
  });

  it("unsubscribes with a PUT that does not send groups (which would replace them)", async () => {
    await provider.upsertSubscriber({ email: "kim@example.com", groups: ["newsletter"] });
    await provider.unsubscribe("kim@example.com");
    const put = local.requests.find((request) => request.method === "PUT");
    expect(put?.body).toEqual({ status: "unsubscribed" });
    expect(local.subscribers.get([...local.subscribers.keys()][0] ?? "")?.groups).toEqual(["500"]);
  });

  it("waits out a 429 by its Retry-After, then succeeds", async () => {
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    const started = Date.now();
    const counts = [];
    for (let i = 0; i < 5; i++) counts.push(await provider.countSubscribers());
    expect(counts).toEqual([1, 1, 1, 1, 1]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it("retries 5xx answers, then gives SPEC's message", async () => {
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    local.failNext = { status: 503, count: 2 };
    expect(await provider.countSubscribers()).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    local.failNext = { status: 500, count: 10 };
    await expectError(
      provider.countSubscribers(),
      "UNAVAILABLE",
      "An error occurred while processing your request.",
    );
    local.failNext = null;
  });

  it("turns 401 into a configuration message and 422 into field messages", async () => {
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    const wrongKey = new MailerLiteProvider({
      baseUrl: local.url,
      apiKey: "wrong",
      groupIds: {},
      defaultSender: SENDER,
      minIntervalMs: 0,
    });
    await expectError(wrongKey.countSubscribers(), "UNAVAILABLE", /MAILERLITE_API_KEY/);
    const error = await provider
      .call("POST", "/subscribers", { email: "not-an-email" })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).fields.email).toEqual([
      "The email must be a valid email address.",
    ]);
  });
});
