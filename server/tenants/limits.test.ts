import { pino } from "pino";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  countRows,
  createTestDatabase,
  type TestDatabase,
  testDialects,
} from "../../tests/support/database";
import { testPng } from "../../tests/support/images";
import { insertSubscriber } from "../../tests/support/subscribers";
import { changeCampaignState, createCampaign } from "../campaigns/campaigns";
import { CampaignError } from "../campaigns/errors";
import { reviewCampaign } from "../campaigns/review";
import { sendCampaignTests, TestSendLimitError } from "../campaigns/test-sends";
import type { Db } from "../db";
import { migrateToLatest } from "../db/migrate";
import { crossTenant } from "../db/tenant-guard";
import { parseEnv } from "../env";
import { type LimitsEnv, limitsEnv } from "../env-limits";
import { ImageUploadError, saveImageUpload } from "../files/images";
import { TEST_SEND_KIND } from "../mail/send";
import { outboxTransport } from "../mail/transport";
import { queueArchiveImport } from "../newsletters/archive-imports";
import { ArchiveFileError } from "../newsletters/archive-posts";
import { SubscriptionError } from "../subscribers/errors";
import { ImportFileError } from "../subscribers/import-rows";
import { runImport } from "../subscribers/import-run";
import { claimImport, queueImport } from "../subscribers/imports";
import { signUp } from "../subscribers/signup";
import type { SubscriptionContext } from "../subscribers/subscribers";
import { createTenant } from "./admin";
import type { TenantConfig } from "./config";
import { ownLimits, saveTenantLimits, tenantLimits } from "./limits";
import { seedTenants } from "./seed";
import { getTenant } from "./store";
import { limitRefusal, takeApiRequest, tenantUsage, usageOf } from "./usage";

/*
 * Decision 057 on a real database (SQLite, and PostgreSQL with TEST_DATABASE_URL): each of a
 * tenant's limits refuses the action that would pass it, with a message naming the limit, and
 * nothing is written; what counts against each is counted the same on both databases.
 */

/** The defaults as an install without LIMIT_* variables has them. */
const DEFAULTS = Object.fromEntries(
  Object.entries(limitsEnv).map(([name, schema]) => [name, schema.parse(undefined)]),
) as LimitsEnv;

const csv = (...lines: string[]) => lines.join("\r\n");

describe("the install's default limits (LIMIT_*)", () => {
  it("take a whole number or unlimited, and refuse anything else by name", () => {
    const parsed = parseEnv({ LIMIT_SUBSCRIBERS: "5000", LIMIT_STORAGE_BYTES: "unlimited" });
    expect(parsed.ok && parsed.env.LIMIT_SUBSCRIBERS).toBe(5000);
    expect(parsed.ok && parsed.env.LIMIT_STORAGE_BYTES).toBe("unlimited");
    expect(parsed.ok && parsed.env.LIMIT_TEST_SENDS_PER_DAY).toBe(100);
    expect(parsed.ok && parsed.env.LIMIT_IMPORTS_AT_ONCE).toBe("unlimited");
    for (const bad of ["-1", "ten", "1.5", "1e16"]) {
      const refused = parseEnv({ LIMIT_TEST_SENDS_PER_DAY: bad });
      expect(refused.ok).toBe(false);
      expect(refused.ok ? [] : refused.problems.join()).toContain("LIMIT_TEST_SENDS_PER_DAY");
    }
  });
});

describe.each(testDialects())("tenant limits on %s", (dialect) => {
  let database: TestDatabase;
  let tenant: TenantConfig;
  const ctx = (): SubscriptionContext => ({
    db: database.db,
    logger: pino({ level: "silent" }),
    transport: outboxTransport(),
    tenant,
    origin: "http://localhost:3000",
    sessionSecret: "test-secret-test-secret-test-secret-0123",
  });
  const setLimits = (input: unknown) =>
    saveTenantLimits(database.db, "owner@example.com", "main", input);
  const count = (table: Parameters<typeof countRows>[1]) => countRows(database.db, table);
  const mainRows = async (db: Db, table: "subscribers" | "campaigns" | "mail_log") =>
    Number(
      (
        await crossTenant(db)
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .where("tenant_id", "=", "main")
          .executeTakeFirstOrThrow()
      ).n,
    );

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    await migrateToLatest(database.db);
    await seedTenants(database.db);
    tenant = (await getTenant(database.db, "main")).config;
  });

  afterAll(async () => {
    await database?.drop();
  });

  beforeEach(async () => {
    // Every test starts from the defaults, with no campaign, import or test send of main's.
    await setLimits({
      subscribers: null,
      campaignMailsPerMonth: null,
      testSendsPerDay: null,
      storageBytes: null,
      importsAtOnce: null,
      apiRequestsPerMinute: null,
    });
    await crossTenant(database.db)
      .deleteFrom("deliveries")
      .where("tenant_id", "=", "main")
      .execute();
    await crossTenant(database.db)
      .deleteFrom("campaigns")
      .where("tenant_id", "=", "main")
      .execute();
    await crossTenant(database.db)
      .deleteFrom("subscriber_imports")
      .where("tenant_id", "=", "main")
      .execute();
    await crossTenant(database.db)
      .deleteFrom("archive_imports")
      .where("tenant_id", "=", "main")
      .execute();
  });

  it("keeps a tenant's own limits over the defaults; null goes back to the default", async () => {
    const before = await tenantLimits(database.db, "main", DEFAULTS);
    expect(before.effective.testSendsPerDay).toBe(100);
    expect(before.effective.subscribers).toBe("unlimited");
    await setLimits({ subscribers: 1000, testSendsPerDay: "unlimited", storageBytes: 5e9 });
    const own = await tenantLimits(database.db, "main", DEFAULTS);
    expect(own.effective).toMatchObject({
      subscribers: 1000,
      testSendsPerDay: "unlimited",
      storageBytes: 5e9,
      importsAtOnce: "unlimited",
    });
    // Another tenant keeps the defaults.
    expect((await tenantLimits(database.db, "keydiscovery", DEFAULTS)).own.subscribers).toBeNull();
    await setLimits({ testSendsPerDay: null });
    expect((await ownLimits(database.db, "main")).testSendsPerDay).toBeNull();
    // Each change is in the tenant's history.
    const history = await crossTenant(database.db)
      .selectFrom("tenant_changes")
      .select("changes")
      .where("tenant_id", "=", "main")
      .orderBy("id", "desc")
      .executeTakeFirstOrThrow();
    expect(JSON.parse(history.changes)).toEqual([
      { field: "limits.testSendsPerDay", before: "unlimited", after: null },
    ]);
  });

  it("refuses bad limits whole: negative, text, fractions, huge, unknown names", async () => {
    await setLimits({ subscribers: 10 });
    for (const bad of [
      { subscribers: -1 },
      { subscribers: "ten" },
      { subscribers: "10" },
      { subscribers: 1.5 },
      { subscribers: 1e16 },
      { subscribers: 5, storage: 1 },
      { subscribers: 5, importsAtOnce: -3 },
      "unlimited",
      [],
    ]) {
      await expect(setLimits(bad)).rejects.toThrow();
    }
    expect((await ownLimits(database.db, "main")).subscribers).toBe(10);
  });

  it("refuses a sign-up and an added subscriber past the subscriber limit, naming it", async () => {
    const existing = await mainRows(database.db, "subscribers");
    await setLimits({ subscribers: existing + 1 });
    await signUp(ctx(), { email: "first-of-limit@example.com" });
    const refused = signUp(ctx(), { email: "second-of-limit@example.com" });
    await expect(refused).rejects.toThrow(SubscriptionError);
    await expect(signUp(ctx(), { email: "second-of-limit@example.com" })).rejects.toThrow(
      `This tenant's limit of ${(existing + 1).toLocaleString("en-US")} subscribers is reached.`,
    );
    expect(await mainRows(database.db, "subscribers")).toBe(existing + 1);
    // Someone already there signs up again: nothing new, nothing refused.
    await expect(signUp(ctx(), { email: "first-of-limit@example.com" })).resolves.toBeDefined();
    // 0 is a limit too: nobody new.
    await setLimits({ subscribers: 0 });
    await expect(signUp(ctx(), { email: "third-of-limit@example.com" })).rejects.toThrow(
      "This tenant's limit of 0 subscribers is reached.",
    );
  });

  it("refuses an import whose new addresses pass the subscriber limit, queueing nothing", async () => {
    const existing = await mainRows(database.db, "subscribers");
    await insertSubscriber(database.db, { email: "known-import@example.com" });
    await setLimits({ subscribers: existing + 3 });
    const file = csv(
      "email",
      "known-import@example.com",
      "new-import-1@example.com",
      "new-import-2@example.com",
      "new-import-3@example.com",
    );
    const staff = { db: database.db, tenant };
    await expect(queueImport(staff, "owner@example.com", "a.csv", file)).rejects.toThrow(
      new ImportFileError(
        `This would pass this tenant's limit of ${(existing + 3).toLocaleString("en-US")} subscribers: ${(existing + 1).toLocaleString("en-US")} used, 3 more asked.`,
      ),
    );
    expect(await count("subscriber_imports")).toBe(0);
    // The known address only updates: two new ones fit.
    const fits = csv(
      "email",
      "known-import@example.com",
      "new-import-1@example.com",
      "new-import-2@example.com",
    );
    const id = await queueImport(staff, "owner@example.com", "b.csv", fits);
    // Someone signs up before the job runs: it is refused whole before its first row.
    await insertSubscriber(database.db, { email: "meanwhile@example.com" });
    const job = { id, tenantId: "main" };
    expect(await claimImport(database.db, "limits-worker", new Date(), job)).not.toBeNull();
    const subscribers = await mainRows(database.db, "subscribers");
    await runImport(database.db, job, "limits-worker");
    const ran = await crossTenant(database.db)
      .selectFrom("subscriber_imports")
      .select(["status", "error", "created"])
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    expect(ran).toEqual({
      status: "failed",
      error: `This would pass this tenant's limit of ${(existing + 3).toLocaleString("en-US")} subscribers: ${(existing + 2).toLocaleString("en-US")} used, 2 more asked.`,
      created: 0,
    });
    expect(await mainRows(database.db, "subscribers")).toBe(subscribers);
  });

  it("refuses a new import while the tenant's imports at once are queued or running", async () => {
    await setLimits({ importsAtOnce: 1 });
    const staff = { db: database.db, tenant };
    await queueImport(staff, "owner@example.com", "a.csv", csv("email", "a-once@example.com"));
    await expect(
      queueImport(staff, "owner@example.com", "b.csv", csv("email", "b-once@example.com")),
    ).rejects.toThrow("This tenant's limit of 1 imports at once is reached.");
    await expect(
      queueArchiveImport(staff, "owner@example.com", {
        source: "ghost",
        fileName: "ghost.json",
        bytes: new Uint8Array([1]),
      }),
    ).rejects.toThrow(new ArchiveFileError("This tenant's limit of 1 imports at once is reached."));
    expect(await count("subscriber_imports")).toBe(1);
    expect(await count("archive_imports")).toBe(0);
    // Another tenant is not held by main's imports.
    expect(await limitRefusal(database.db, "keydiscovery", "importsAtOnce", 1)).toBeNull();
  });

  it("refuses a campaign past the month's mails at review, at sending and at scheduling", async () => {
    const lists = ["newsletter"];
    for (let i = 0; i < 3; i++) {
      await insertSubscriber(database.db, {
        email: `mail-limit-${i}@example.com`,
        listIds: [await listId(database.db, "newsletter")],
      });
    }
    const input = { subject: "Limits", content: "<p>Hi</p>", groups: lists };
    const { recipients } = await reviewCampaign(ctx(), input);
    expect(recipients).toBeGreaterThanOrEqual(3);
    await setLimits({ campaignMailsPerMonth: recipients - 1 });
    const message = `This would pass this tenant's limit of ${(recipients - 1).toLocaleString("en-US")} campaign emails a month: 0 used, ${recipients.toLocaleString("en-US")} more asked.`;
    await expect(reviewCampaign(ctx(), input)).rejects.toThrow(new CampaignError(message, 429));
    await expect(createCampaign(ctx(), { ...input, mode: "now" }, null)).rejects.toThrow(message);
    const soon = new Date(Date.now() + 3_600_000).toISOString();
    await expect(
      createCampaign(ctx(), { ...input, mode: "schedule", scheduledAt: soon }, null),
    ).rejects.toThrow(message);
    expect(await mainRows(database.db, "campaigns")).toBe(0);
    expect(await count("deliveries")).toBe(0);
    // A draft is not counted; sending it is.
    const draft = await createCampaign(ctx(), { ...input, mode: "draft" }, null);
    await expect(changeCampaignState(ctx(), draft.id, "send")).rejects.toThrow(message);
    expect(
      (
        await crossTenant(database.db)
          .selectFrom("campaigns")
          .select("status")
          .where("id", "=", draft.id)
          .executeTakeFirstOrThrow()
      ).status,
    ).toBe("draft");
    // Within the limit it goes, and counts against the month.
    await setLimits({ campaignMailsPerMonth: recipients });
    await changeCampaignState(ctx(), draft.id, "send");
    expect(await usageOf(database.db, "main", "campaignMailsPerMonth")).toBe(recipients);
    await expect(reviewCampaign(ctx(), input)).rejects.toThrow(
      `This tenant's limit of ${recipients.toLocaleString("en-US")} campaign emails a month is reached.`,
    );
  });

  it("refuses test sends past the day's, sending none, and counts today's only", async () => {
    const input = { subject: "Limits", content: "<p>Hi</p>" };
    const test = { staffId: "staff-1", to: ["a@example.com", "b@example.com", "c@example.com"] };
    // The default of issue 44, finding 10.
    expect((await tenantLimits(database.db, "main", DEFAULTS)).effective.testSendsPerDay).toBe(100);
    const before = await mainRows(database.db, "mail_log");
    await setLimits({ testSendsPerDay: 2 });
    await expect(sendCampaignTests(ctx(), input, test)).rejects.toThrow(
      new TestSendLimitError(
        "This would pass this tenant's limit of 2 test emails a day: 0 used, 3 more asked.",
      ),
    );
    expect(await mainRows(database.db, "mail_log")).toBe(before);
    const logged = (created_at: string) => ({
      tenant_id: "main",
      kind: TEST_SEND_KIND,
      to_address: "x@example.com",
      from_address: "y@example.com",
      subject: "[Test] x",
      html: "",
      text: "",
      headers: "{}",
      status: "sent" as const,
      error: null,
      message_id: null,
      created_at,
      sent_at: created_at,
      next_attempt_at: null,
    });
    const yesterday = new Date(Date.now() - 86_400_000 * 2).toISOString();
    await database.db
      .insertInto("mail_log")
      .values([
        logged(new Date().toISOString()),
        logged(new Date().toISOString()),
        logged(yesterday),
      ])
      .execute();
    expect(await usageOf(database.db, "main", "testSendsPerDay")).toBe(2);
    await expect(
      sendCampaignTests(ctx(), input, { ...test, to: ["a@example.com"] }),
    ).rejects.toThrow("This tenant's limit of 2 test emails a day is reached.");
  });

  it("refuses an upload past the storage limit, storing nothing", async () => {
    const now = new Date().toISOString();
    await database.db
      .insertInto("images")
      .values({
        key: "main/0123456789abcdef0123456789abcdef.jpg",
        tenant_id: "main",
        content_type: "image/jpeg",
        width: 1,
        height: 1,
        bytes: 2_000_000_000,
        variants: "[]",
        created_at: now,
      })
      .execute();
    // Summed as a number on both databases (PostgreSQL answers sums as text).
    expect(await usageOf(database.db, "main", "storageBytes")).toBe(2_000_000_000);
    await setLimits({ storageBytes: 2_000_000_000 });
    const images = await count("images");
    const upload = saveImageUpload({ db: database.db, tenantId: "main" }, testPng(40, 30));
    await expect(upload).rejects.toThrow(ImageUploadError);
    await expect(
      saveImageUpload({ db: database.db, tenantId: "main" }, testPng(40, 30)),
    ).rejects.toThrow("This tenant's limit of 2 GB of uploaded images is reached.");
    expect(await count("images")).toBe(images);
    expect(await count("stored_files")).toBe(0);
  });

  it("counts API requests per tenant and minute, refusing past the limit", async () => {
    // The count lives in the store of this process, for both databases' runs: tenants of each run.
    const [tenantId, other] = [`api-a-${dialect}`, `api-b-${dialect}`];
    for (const id of [tenantId, other]) {
      await createTenant(database.db, "owner@example.com", {
        id,
        name: id,
        domain: `${id}.example.com`,
      });
    }
    await saveTenantLimits(database.db, "owner@example.com", tenantId, { apiRequestsPerMinute: 2 });
    expect(await takeApiRequest(database.db, tenantId, DEFAULTS)).toBeNull();
    expect(await takeApiRequest(database.db, tenantId, DEFAULTS)).toBeNull();
    expect(await takeApiRequest(database.db, tenantId, DEFAULTS)).toBe(
      "This tenant's limit of 2 API requests a minute is reached.",
    );
    expect(await usageOf(database.db, tenantId, "apiRequestsPerMinute")).toBe(3);
    // Another tenant's requests are its own.
    expect(await takeApiRequest(database.db, other, DEFAULTS)).toBeNull();
    expect(await usageOf(database.db, other, "apiRequestsPerMinute")).toBe(1);
  });

  it("reports every limit with its use", async () => {
    await setLimits({ subscribers: 500 });
    const lines = await tenantUsage(database.db, "main", DEFAULTS);
    expect(lines.map((line) => line.key)).toEqual([
      "subscribers",
      "campaignMailsPerMonth",
      "testSendsPerDay",
      "storageBytes",
      "importsAtOnce",
      "apiRequestsPerMinute",
    ]);
    expect(lines[0]).toMatchObject({ limit: 500, own: true });
    expect(lines[0]?.used).toBe(await mainRows(database.db, "subscribers"));
    expect(lines[2]).toMatchObject({ limit: 100, own: false });
  });
});

async function listId(db: Db, key: string): Promise<number> {
  const row = await crossTenant(db)
    .selectFrom("lists")
    .select("id")
    .where("tenant_id", "=", "main")
    .where("key", "=", key)
    .executeTakeFirstOrThrow();
  return Number(row.id);
}
