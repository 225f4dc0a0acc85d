import { type ChildProcess, spawn } from "node:child_process";
import { pino } from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createCampaign, getCampaignRow } from "../../server/campaigns/campaigns";
import { CampaignWorker, STALE_CLAIM_MS } from "../../server/campaigns/worker";
import { createDb, type Db } from "../../server/db";
import { migrateToLatest } from "../../server/db/migrate";
import { crossTenant } from "../../server/db/tenant-guard";
import { smtpTransport, type Transport } from "../../server/mail/transport";
import { listTenantLists } from "../../server/subscribers/lists";
import type { SubscriptionContext } from "../../server/subscribers/subscribers";
import { seedTenants } from "../../server/tenants/seed";
import { getTenant } from "../../server/tenants/store";
import { createTestDatabase, type TestDatabase, testDialects } from "../support/database";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink";
import { insertSubscriber } from "../support/subscribers";

const SECRET = "campaign-secret-campaign-secret-0123456789";
const silent = pino({ level: "silent" });

/** Subscribers of main: `count` active ones spread over two overlapping lists, plus some who must not get mail. */
async function seedAudience(db: Db, count: number, prefix: string) {
  const lists = await listTenantLists(db, (await getTenant(db, "main")).config);
  const byKey = (key: string) => {
    const list = lists.find((candidate) => candidate.key === key);
    if (!list) throw new Error(`no list ${key}`);
    return list.id;
  };
  const newsletter = byKey("newsletter");
  const industry = byKey("industry-news");
  const updates = byKey("product-updates");
  const add = (
    email: string,
    status: "active" | "unsubscribed" | "unconfirmed",
    listIds: number[],
  ) => insertSubscriber(db, { email, status, listIds });
  const expected: string[] = [];
  for (let index = 0; index < count; index++) {
    const email = `${prefix}-${index}@example.com`;
    // a third on the newsletter only, a third on industry news only, a third on both
    const on =
      index % 3 === 0 ? [newsletter] : index % 3 === 1 ? [industry] : [newsletter, industry];
    await add(email, "active", on);
    expected.push(email);
  }
  await add(`${prefix}-gone@example.com`, "unsubscribed", [newsletter, industry]);
  await add(`${prefix}-unconfirmed@example.com`, "unconfirmed", [newsletter]);
  await add(`${prefix}-other-list@example.com`, "active", [updates]);
  return { expected: expected.sort(), lists: ["newsletter", String(industry)] };
}

async function waitForStatus(db: Db, id: string, statuses: string[], timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const row = await getCampaignRow(db, "main", id);
    if (statuses.includes(row.status)) return row;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`campaign ${id} did not reach ${statuses.join("/")}`);
}

const recipientsOf = (sink: SmtpSink, prefix: string) =>
  sink.messages.flatMap((mail) => mail.to).filter((to) => to.startsWith(`${prefix}-`));

describe.each(testDialects())("the sending engine on %s", (dialect) => {
  let database: TestDatabase;
  let sink: SmtpSink;
  let transport: Transport;
  let ctx: SubscriptionContext;
  const workers: CampaignWorker[] = [];
  const children: ChildProcess[] = [];

  const worker = (env: { SEND_RATE: number; SEND_CONCURRENCY: number }, db = database.db) => {
    const started = new CampaignWorker({
      db,
      transport,
      logger: silent,
      env: { APP_URL: "http://localhost:3000", ...env },
      sessionSecret: SECRET,
    }).start();
    workers.push(started);
    return started;
  };

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    await migrateToLatest(database.db);
    await seedTenants(database.db);
    sink = await startSmtpSink();
    transport = smtpTransport(sink.url, 8);
    ctx = {
      db: database.db,
      logger: silent,
      transport,
      tenant: (await getTenant(database.db, "main")).config,
      origin: "http://localhost:3000",
      sessionSecret: SECRET,
    };
  });

  afterEach(async () => {
    await Promise.all(workers.splice(0).map((each) => each.stop()));
    for (const child of children.splice(0)) child.kill("SIGKILL");
    sink.answer = () => undefined;
  });

  afterAll(async () => {
    transport?.close();
    await sink?.stop();
    await database?.drop();
  });

  it("mails every active subscriber of two overlapping lists exactly once, and nobody else", async () => {
    const { expected, lists } = await seedAudience(database.db, 500, "a");
    const campaign = await createCampaign(
      ctx,
      {
        subject: "Issue 1",
        content: '<p>Read <a href="https://example.com/article">the article</a>.</p>',
        groups: lists,
      },
      null,
    );
    expect(campaign.status).toBe("sending");
    expect(Number(campaign.total)).toBe(500);
    worker({ SEND_RATE: 0, SEND_CONCURRENCY: 4 });
    const done = await waitForStatus(database.db, campaign.id, ["sent", "failed"]);
    expect(done.status).toBe("sent");
    const received = recipientsOf(sink, "a").sort();
    expect(received).toEqual(expected);
    const sample = sink.messages.find((mail) => mail.to.includes("a-0@example.com"));
    expect(sample?.headers.get("list-unsubscribe-post")).toBe("List-Unsubscribe=One-Click");
    expect(sample?.headers.get("list-unsubscribe")).toMatch(
      /<http:\/\/localhost:3000\/subscription\/one-click\/[^>]+>,\s*<mailto:/,
    );
    expect(sample?.html).toMatch(/href="http:\/\/localhost:3000\/t\/c\/\d+\.0\.[\w-]+"/);
    expect(sample?.html).toMatch(/src="http:\/\/localhost:3000\/t\/o\/\d+\.0\.[\w-]+\.gif"/);
    expect(sample?.text).toContain("/t/c/");
    expect(sample?.messageId).toMatch(new RegExp(`^<d\\d+\\.${campaign.id}@keydiscovery\\.com>$`));
    expect(sample?.headers.get("list-id")).toMatch(/^"[^"]+" <[a-z0-9-]+\.main\.localhost>$/);
    const ids = new Set(
      sink.messages.filter((m) => m.to[0]?.startsWith("a-")).map((m) => m.messageId),
    );
    expect(ids.size).toBe(500);
  });

  it("retries 4xx answers until everyone has it, and turns 5xx into failed deliveries with a bounce", async () => {
    const { expected, lists } = await seedAudience(database.db, 60, "b");
    const tries = new Map<string, number>();
    sink.answer = (to) => {
      if (!to.startsWith("b-")) return undefined;
      const n = (tries.get(to) ?? 0) + 1;
      tries.set(to, n);
      if (to === "b-7@example.com" || to === "b-8@example.com") return 550;
      // one in ten addresses is turned away with a 451 on its first try
      return Number(to.match(/b-(\d+)@/)?.[1]) % 10 === 3 && n === 1 ? 451 : undefined;
    };
    const campaign = await createCampaign(
      ctx,
      { subject: "Issue 2", content: "<p>Hi</p>", groups: lists },
      null,
    );
    worker({ SEND_RATE: 0, SEND_CONCURRENCY: 4 });
    const done = await waitForStatus(database.db, campaign.id, ["sent", "failed"]);
    expect(done.status).toBe("sent");
    const received = recipientsOf(sink, "b").sort();
    expect(received).toEqual(
      expected.filter((email) => !["b-7@example.com", "b-8@example.com"].includes(email)),
    );
    const failed = await crossTenant(database.db)
      .selectFrom("deliveries")
      .select(["email", "status", "attempts", "error"])
      .where("campaign_id", "=", campaign.id)
      .where("status", "=", "failed")
      .orderBy("email")
      .execute();
    expect(failed.map((row) => row.email)).toEqual(["b-7@example.com", "b-8@example.com"]);
    expect(failed[0]?.error).toMatch(/Mailbox unavailable/);
    const retried = await crossTenant(database.db)
      .selectFrom("deliveries")
      .select("email")
      .where("campaign_id", "=", campaign.id)
      .where("attempts", "=", 2)
      .execute();
    expect(retried).toHaveLength(6);
    const bounces = await crossTenant(database.db)
      .selectFrom("campaign_events")
      .select("delivery_id")
      .where("campaign_id", "=", campaign.id)
      .where("kind", "=", "bounce")
      .execute();
    expect(bounces).toHaveLength(2);
  });

  it("pauses, resumes and cancels", async () => {
    const { lists } = await seedAudience(database.db, 40, "c");
    const campaign = await createCampaign(
      ctx,
      { subject: "Issue 3", content: "<p>Hi</p>", groups: lists, mode: "draft" },
      null,
    );
    expect(campaign.status).toBe("draft");
    const { changeCampaignState } = await import("../../server/campaigns/campaigns");
    await changeCampaignState(ctx, campaign.id, "send");
    await changeCampaignState(ctx, campaign.id, "pause");
    worker({ SEND_RATE: 0, SEND_CONCURRENCY: 2 });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(recipientsOf(sink, "c")).toHaveLength(0);
    await changeCampaignState(ctx, campaign.id, "resume");
    await waitForStatus(database.db, campaign.id, ["sent"]);
    expect(recipientsOf(sink, "c")).toHaveLength(40);
    await expect(changeCampaignState(ctx, campaign.id, "cancel")).rejects.toThrow(
      /cannot be cancelled/,
    );
  });

  it("stops within a second of Pause or Cancel, mid-batch, and resumes to send each message once", async () => {
    const { changeCampaignState } = await import("../../server/campaigns/campaigns");
    const concurrency = 2;
    const statusesOf = async (id: string) =>
      (
        await crossTenant(database.db)
          .selectFrom("deliveries")
          .select("status")
          .where("campaign_id", "=", id)
          .execute()
      ).map((row) => row.status);
    const mailOf = (id: string) =>
      sink.messages.filter((mail) => mail.messageId.includes(`.${id}@`)).length;
    const waitForSent = async (id: string, count: number) => {
      while (mailOf(id) < count) await new Promise((resolve) => setTimeout(resolve, 20));
    };

    // 100 messages a second: a batch holds 200 rows (two seconds' worth); the lists also hold the
    // earlier tests' subscribers, so the campaign has several batches.
    const { expected, lists } = await seedAudience(database.db, 150, "p");
    const campaign = await createCampaign(
      ctx,
      { subject: "Issue 5", content: "<p>Hi</p>", groups: lists },
      null,
    );
    worker({ SEND_RATE: 100, SEND_CONCURRENCY: concurrency });
    await waitForSent(campaign.id, 10);
    await changeCampaignState(ctx, campaign.id, "pause");
    const atPause = mailOf(campaign.id);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    // Only what was already handed to SMTP when Pause answered went out after it.
    expect(mailOf(campaign.id) - atPause).toBeLessThanOrEqual(concurrency);
    const paused = await statusesOf(campaign.id);
    expect(paused).not.toContain("sending"); // the batch in hand went back to pending
    expect(paused.filter((status) => status === "pending").length).toBeGreaterThan(100);

    await changeCampaignState(ctx, campaign.id, "resume");
    await waitForStatus(database.db, campaign.id, ["sent"]);
    expect(recipientsOf(sink, "p").sort()).toEqual(expected);

    const second = await seedAudience(database.db, 150, "q");
    const doomed = await createCampaign(
      ctx,
      { subject: "Issue 6", content: "<p>Hi</p>", groups: second.lists },
      null,
    );
    await waitForSent(doomed.id, 10);
    await changeCampaignState(ctx, doomed.id, "cancel");
    const atCancel = mailOf(doomed.id);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(mailOf(doomed.id) - atCancel).toBeLessThanOrEqual(concurrency);
    const cancelled = await statusesOf(doomed.id);
    // Every row is sent or cancelled: none waits, none is held.
    expect(cancelled.filter((status) => status !== "sent" && status !== "cancelled")).toEqual([]);
    expect(cancelled.filter((status) => status === "sent")).toHaveLength(mailOf(doomed.id));
  });

  it("starts a scheduled campaign when its time comes, not before", async () => {
    const { lists } = await seedAudience(database.db, 10, "s");
    const at = new Date(Date.now() + 2_000).toISOString();
    const campaign = await createCampaign(
      ctx,
      { subject: "Later", content: "<p>Hi</p>", groups: lists, mode: "schedule", scheduledAt: at },
      null,
    );
    expect(campaign).toMatchObject({ status: "scheduled", scheduled_at: at });
    worker({ SEND_RATE: 0, SEND_CONCURRENCY: 2 });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect((await getCampaignRow(database.db, "main", campaign.id)).status).toBe("scheduled");
    expect(recipientsOf(sink, "s")).toHaveLength(0);
    const done = await waitForStatus(database.db, campaign.id, ["sent"]);
    expect(Date.parse(done.started_at ?? "")).toBeGreaterThanOrEqual(Date.parse(at));
    expect(recipientsOf(sink, "s")).toHaveLength(10);
    await expect(
      createCampaign(
        ctx,
        {
          subject: "Past",
          content: "<p>Hi</p>",
          mode: "schedule",
          scheduledAt: "2020-01-01T00:00:00Z",
        },
        null,
      ),
    ).rejects.toThrow("The send time must be in the future");
  });

  it("finishes exactly once after the worker process is killed with SIGKILL and started again", async () => {
    const { expected, lists } = await seedAudience(database.db, 300, "d");
    const campaign = await createCampaign(
      ctx,
      { subject: "Issue 4", content: "<p>Hi</p>", groups: lists },
      null,
    );
    const env = {
      ...process.env,
      DATABASE_URL: database.url,
      SMTP_URL: sink.url,
      SEND_RATE: "150",
      SEND_CONCURRENCY: "4",
      SESSION_SECRET: SECRET,
      LOG_LEVEL: "warn",
    };
    const startWorker = () => {
      // node itself with tsx's loader, not the tsx wrapper: SIGKILL must hit the sending process
      // (the wrapper would die and leave its node child sending on, orphaned).
      const child = spawn(process.execPath, ["--import", "tsx", "cli/herald.ts", "worker"], {
        env,
        stdio: "ignore",
      });
      children.push(child);
      return child;
    };
    const first = startWorker();
    const deadline = Date.now() + 30_000;
    while (recipientsOf(sink, "d").length < 100 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    first.kill("SIGKILL");
    await new Promise((resolve) => first.once("exit", resolve));
    const atKill = recipientsOf(sink, "d").length;
    expect(atKill).toBeGreaterThanOrEqual(100);
    expect(atKill).toBeLessThan(300);
    startWorker();
    const done = await waitForStatus(database.db, campaign.id, ["sent"], 90_000);
    expect(done.status).toBe("sent");
    const received = recipientsOf(sink, "d");
    expect([...new Set(received)].sort()).toEqual(expected);
    // Only messages in flight at the kill may repeat, and they carry the same Message-ID.
    const repeats = received.length - expected.length;
    expect(repeats).toBeLessThanOrEqual(4);
    const messageIds = sink.messages
      .filter((m) => m.to[0]?.startsWith("d-"))
      .map((m) => m.messageId);
    expect(new Set(messageIds).size).toBe(expected.length);
  }, 120_000);

  it.runIf(dialect === "sqlite")(
    "takes back a row its own worker claimed but no longer holds, once the claim is stale",
    async () => {
      const { expected, lists } = await seedAudience(database.db, 3, "f");
      const campaign = await createCampaign(
        ctx,
        { subject: "Issue 6", content: "<p>Hi</p>", groups: lists },
        null,
      );
      const running = worker({ SEND_RATE: 0, SEND_CONCURRENCY: 2 });
      // A claim in this worker's name that no runner holds (as after a failure mid-batch): the
      // heartbeat must not keep it alive, or the campaign never ends.
      const [lost] = await crossTenant(database.db)
        .selectFrom("deliveries")
        .select("id")
        .where("campaign_id", "=", campaign.id)
        .orderBy("id", "desc")
        .limit(1)
        .execute();
      await crossTenant(database.db)
        .updateTable("deliveries")
        .set({ status: "sending", claimed_by: running.id, claimed_at: new Date().toISOString() })
        .where("id", "=", lost?.id ?? 0)
        .execute();
      const done = await waitForStatus(database.db, campaign.id, ["sent"], STALE_CLAIM_MS + 15_000);
      expect(done.status).toBe("sent");
      expect(recipientsOf(sink, "f").sort()).toEqual(expected);
    },
    STALE_CLAIM_MS + 20_000,
  );

  it.runIf(dialect === "postgres")("never lets two workers send the same delivery", async () => {
    const { expected, lists } = await seedAudience(database.db, 400, "e");
    const other = createDb(database.url);
    try {
      const campaign = await createCampaign(
        ctx,
        { subject: "Issue 5", content: "<p>Hi</p>", groups: lists },
        null,
      );
      worker({ SEND_RATE: 0, SEND_CONCURRENCY: 4 });
      worker({ SEND_RATE: 0, SEND_CONCURRENCY: 4 }, other);
      await waitForStatus(database.db, campaign.id, ["sent"]);
      expect(recipientsOf(sink, "e").sort()).toEqual(expected);
      const byWorker = await crossTenant(database.db)
        .selectFrom("deliveries")
        .select(["claimed_by", (eb) => eb.fn.countAll<number>().as("count")])
        .where("campaign_id", "=", campaign.id)
        .groupBy("claimed_by")
        .execute();
      // Every delivery of the campaign (earlier tests' subscribers are on these lists too) went out once.
      const ofCampaign = sink.messages.filter((m) => m.messageId.includes(`.${campaign.id}@`));
      expect(ofCampaign.length).toBe(
        Number((await getCampaignRow(database.db, "main", campaign.id)).total),
      );
      expect(new Set(ofCampaign.map((m) => m.messageId)).size).toBe(ofCampaign.length);
      // Both took a share, and no delivery was sent twice (checked above against the sink).
      expect(byWorker.length).toBeGreaterThanOrEqual(2);
    } finally {
      await Promise.all(workers.splice(0).map((each) => each.stop()));
      await other.destroy();
    }
  });
});
