import { randomUUID } from "node:crypto";
import pino from "pino";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { Db } from "../../server/db";
import { migrateToLatest, migratorFor } from "../../server/db/migrate";
import { crossTenant } from "../../server/db/tenant-guard";
import { type AnyJobDefinition, backoffMs, defineJob } from "../../server/jobs/definition";
import { purgeExpired } from "../../server/jobs/purge";
import { JobRunner } from "../../server/jobs/runner";
import {
  claimJobs,
  ensureRecurring,
  failJob,
  finishJob,
  queueJob,
  renewLease,
  retryFailedJob,
} from "../../server/jobs/store";
import { renderMetrics, startMetrics } from "../../server/metrics";
import { seedTenants } from "../../server/tenants/seed";
import { createStaffUser } from "../support/auth";
import { createTestDatabase, type TestDatabase, testDialects } from "../support/database";
import { insertListSubscriber } from "../support/subscribers";
import { scaled } from "../support/timing";

const logger = pino({ level: "silent" });
const T0 = new Date("2026-12-01T12:00:00.000Z");
const at = (ms: number) => new Date(T0.getTime() + ms);

/** A job that records what it ran, and fails when its payload says so. */
function recorder(kind: string, options: Partial<AnyJobDefinition> = {}) {
  const ran: number[] = [];
  const definition = defineJob({
    kind,
    payload: z.object({ n: z.number(), fail: z.boolean().optional() }),
    async run(payload, ctx) {
      ran.push(payload.n);
      await ctx.progress({ n: payload.n });
      if (payload.fail) throw new Error(`job ${payload.n} broke`);
    },
    ...options,
  });
  return { definition, ran };
}

const byKind = (...definitions: AnyJobDefinition[]) =>
  new Map(definitions.map((each) => [each.kind, each]));

async function jobRow(db: Db, id: number) {
  return crossTenant(db)
    .selectFrom("jobs")
    .selectAll()
    .where("id", "=", id)
    .executeTakeFirstOrThrow();
}

async function until(check: () => Promise<boolean>, what: string) {
  const deadline = Date.now() + scaled(15_000);
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.each(testDialects())("the job system on %s", (dialect) => {
  let database: TestDatabase;
  let db: Db;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    db = database.db;
    await migrateToLatest(db);
    await seedTenants(db);
  });

  afterAll(async () => {
    await database?.drop();
  });

  beforeEach(async () => {
    await crossTenant(db).deleteFrom("jobs").execute();
  });

  it("gives each job to one runner only: two runners run 30 jobs once each", async () => {
    const { definition, ran } = recorder("exclusive", { concurrency: 4, perTenant: 4 });
    for (let n = 0; n < 30; n++) await queueJob(db, definition, { n });
    // Two claims at the same moment, as two runners would: no job in both.
    const [a, b] = await Promise.all([
      claimJobs(db, "runner-a", byKind(definition), 3),
      claimJobs(db, "runner-b", byKind(definition), 3),
    ]);
    const ids = [...(a ?? []), ...(b ?? [])].map((job) => job.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBeLessThanOrEqual(4);
    for (const job of [...(a ?? []), ...(b ?? [])]) {
      await finishJob(
        db,
        job,
        job === a?.find((x) => x.id === job.id) ? "runner-a" : "runner-b",
        definition,
      );
    }
    const runners = [1, 2].map(
      () => new JobRunner({ db, logger, definitions: [definition], slots: 3, pollMs: 20 }),
    );
    for (const runner of runners) runner.start();
    await until(async () => ran.length >= 30 - ids.length, "every job ran");
    await Promise.all(runners.map((runner) => runner.stop()));
    expect(ran).toHaveLength(30 - ids.length);
    expect(new Set(ran).size).toBe(ran.length);
    const left = await crossTenant(db).selectFrom("jobs").select("status").execute();
    expect(left.every((row) => row.status === "done")).toBe(true);
  });

  it("retries a failing job with growing waits, then marks it failed with its last error", async () => {
    const retry = { attempts: 3, delayMs: 1_000, factor: 2, maxDelayMs: 60_000 };
    const { definition } = recorder("flaky", { retry });
    const id = (await queueJob(db, definition, { n: 1, fail: true }, {}, T0)) as number;
    const kinds = byKind(definition);

    const [first] = await claimJobs(db, "r", kinds, 1, T0);
    expect(first?.attempt).toBe(1);
    expect(await failJob(db, first as never, "r", definition, "boom 1", T0)).toBe("retry");
    expect((await jobRow(db, id)).run_at).toBe(at(1_000).toISOString());
    // Not before its wait is over.
    expect(await claimJobs(db, "r", kinds, 1, at(999))).toEqual([]);
    const [second] = await claimJobs(db, "r", kinds, 1, at(1_000));
    expect(second?.attempt).toBe(2);
    expect(await failJob(db, second as never, "r", definition, "boom 2", at(1_000))).toBe("retry");
    // The second wait is twice the first.
    expect(backoffMs(retry, 2)).toBe(2_000);
    expect((await jobRow(db, id)).run_at).toBe(at(3_000).toISOString());
    expect(await claimJobs(db, "r", kinds, 1, at(2_999))).toEqual([]);
    const [third] = await claimJobs(db, "r", kinds, 1, at(3_000));
    expect(third?.attempt).toBe(3);
    expect(await failJob(db, third as never, "r", definition, "boom 3", at(3_000))).toBe("failed");
    const failed = await jobRow(db, id);
    expect(failed).toMatchObject({ status: "failed", last_error: "boom 3", claimed_by: null });
    expect(Number(failed.attempts)).toBe(3);
    expect(await claimJobs(db, "r", kinds, 1, at(100_000))).toEqual([]);

    // The super admin's retry queues it again with its tries renewed.
    expect(await retryFailedJob(db, id, at(100_000))).toBe(true);
    expect(await retryFailedJob(db, id, at(100_000))).toBe(false);
    const [again] = await claimJobs(db, "r", kinds, 1, at(100_000));
    expect(again?.attempt).toBe(1);
  });

  it("runs a failing job through the runner until it fails, keeping its progress and error", async () => {
    const retry = { attempts: 2, delayMs: 10, factor: 1, maxDelayMs: 10 };
    const { definition, ran } = recorder("runner-flaky", { retry });
    const id = (await queueJob(db, definition, { n: 7, fail: true })) as number;
    const runner = new JobRunner({ db, logger, definitions: [definition], pollMs: 10 }).start();
    await until(async () => (await jobRow(db, id)).status === "failed", "the job failed");
    await runner.stop();
    expect(ran).toEqual([7, 7]);
    const row = await jobRow(db, id);
    expect(row.last_error).toBe("job 7 broke");
    expect(JSON.parse(row.progress ?? "{}")).toEqual({ n: 7 });
  });

  it("counts jobs by kind and state, the oldest due wait and failed tries in /metrics", async () => {
    await startMetrics(db);
    const { definition } = recorder("metered", {
      retry: { attempts: 1, delayMs: 0, factor: 1, maxDelayMs: 0 },
    });
    const id = (await queueJob(db, definition, { n: 3, fail: true })) as number;
    await queueJob(db, definition, { n: 4 }, { runAt: new Date(Date.now() + 3_600_000) });
    await crossTenant(db)
      .updateTable("jobs")
      .set({ run_at: new Date(Date.now() - 90_000).toISOString() })
      .where("id", "=", id)
      .execute();
    const value = (body: string, series: string) => {
      const line = body.split("\n").find((each) => each.startsWith(`${series} `));
      return line ? Number(line.split(" ")[1]) : 0;
    };
    const before = (await renderMetrics()).body;
    expect(value(before, 'herald_jobs{kind="metered",state="waiting"}')).toBe(2);
    expect(value(before, 'herald_jobs{kind="metered",state="failed"}')).toBe(0);
    expect(value(before, "herald_jobs_oldest_waiting_age_seconds")).toBeGreaterThanOrEqual(90);
    const runner = new JobRunner({ db, logger, definitions: [definition], pollMs: 10 }).start();
    await until(async () => (await jobRow(db, id)).status === "failed", "the job failed");
    await runner.stop();
    const after = (await renderMetrics()).body;
    expect(value(after, 'herald_jobs{kind="metered",state="failed"}')).toBe(1);
    expect(value(after, 'herald_jobs{kind="metered",state="waiting"}')).toBe(1);
    // The counter is this process's (both databases' runs add to it).
    const failures = 'herald_job_failures_total{kind="metered"}';
    expect(value(after, failures) - value(before, failures)).toBe(1);
    // The one left waiting is not due: nothing has waited past its time.
    expect(value(after, "herald_jobs_oldest_waiting_age_seconds")).toBe(0);
  });

  it("retakes a job whose runner stopped renewing its lease, and the old runner can no longer write it", async () => {
    const { definition } = recorder("leased", { leaseMs: 30_000 });
    const id = (await queueJob(db, definition, { n: 1 }, {}, T0)) as number;
    const kinds = byKind(definition);
    const [held] = await claimJobs(db, "crashed", kinds, 1, T0);
    expect(held).toBeDefined();
    // Within the lease nobody else gets it.
    expect(await claimJobs(db, "other", kinds, 1, at(29_999))).toEqual([]);
    const [retaken] = await claimJobs(db, "other", kinds, 1, at(30_001));
    expect(retaken?.id).toBe(id);
    expect(retaken?.attempt).toBe(2);
    // The first runner comes back: its writes change nothing.
    expect(await renewLease(db, held as never, "crashed", 30_000)).toBe(false);
    await finishJob(db, held as never, "crashed", definition);
    expect(await jobRow(db, id)).toMatchObject({ status: "running", claimed_by: "other" });
    await finishJob(db, retaken as never, "other", definition);
    expect((await jobRow(db, id)).status).toBe("done");
  });

  it("retakes a recurring job whose runner died on its one try, and runs it again at its next turn", async () => {
    const { definition } = recorder("recurring", {
      retry: { attempts: 1, delayMs: 0, factor: 1, maxDelayMs: 0 },
      leaseMs: 5_000,
      every: (now) => new Date(now.getTime() + 60_000),
    });
    await ensureRecurring(db, definition, T0);
    const kinds = byKind(definition);
    const [held] = await claimJobs(db, "crashed", kinds, 1, T0);
    expect(held?.attempt).toBe(1);
    // Its runner is killed: after the lease another runner takes it, though it was the last try.
    const [retaken] = await claimJobs(db, "other", kinds, 1, at(5_001));
    expect(retaken?.id).toBe(held?.id);
    await finishJob(db, retaken as never, "other", definition);
    expect(await jobRow(db, held?.id as number)).toMatchObject({
      status: "waiting",
      run_at: at(5_001 + 60_000).toISOString(),
    });
    // A recurring row found failed is queued again when a runner starts.
    await crossTenant(db).updateTable("jobs").set({ status: "failed" }).execute();
    await ensureRecurring(db, definition, at(70_000));
    expect(await jobRow(db, held?.id as number)).toMatchObject({
      status: "waiting",
      run_at: at(70_000).toISOString(),
    });
  });

  it("lets one tenant hold only its share of the slots", async () => {
    const { definition } = recorder("per-tenant", { concurrency: 10, perTenant: 1 });
    for (let n = 0; n < 5; n++) await queueJob(db, definition, { n }, { tenantId: "main" }, T0);
    await queueJob(db, definition, { n: 99 }, { tenantId: "keydiscovery" }, at(1));
    const claimed = await claimJobs(db, "r", byKind(definition), 10, at(10));
    expect(claimed.map((job) => job.tenantId).sort()).toEqual(["keydiscovery", "main"]);
    // Another runner finds main's slot taken too.
    const more = await claimJobs(db, "r2", byKind(definition), 10, at(20));
    expect(more).toEqual([]);
    // The install-wide limit holds as well.
    const { definition: narrow } = recorder("narrow", { concurrency: 1, perTenant: 5 });
    await queueJob(db, narrow, { n: 1 }, { tenantId: "main" }, T0);
    await queueJob(db, narrow, { n: 2 }, { tenantId: "keydiscovery" }, T0);
    expect(await claimJobs(db, "r", byKind(narrow), 10, at(10))).toHaveLength(1);
  });

  it("purges expired sessions, staff links, preference links and old finished jobs, and nothing else", async () => {
    const all = crossTenant(db);
    const now = new Date();
    const iso = (ms: number) => new Date(now.getTime() + ms).toISOString();
    const day = 86_400_000;
    const user = (await createStaffUser(db, { email: `purge-${randomUUID()}@example.com` })).id;
    await all
      .insertInto("sessions")
      .values([
        { token_hash: "expired", user_id: user, created_at: iso(-2 * day), expires_at: iso(-1) },
        { token_hash: "live", user_id: user, created_at: iso(0), expires_at: iso(day) },
      ])
      .execute();
    const link = (id: string, expires: number) => ({
      id,
      purpose: "reset" as const,
      token_hash: id,
      user_id: user,
      email: "purge@example.com",
      role: null,
      products: null,
      created_by: null,
      created_at: iso(-20 * day),
      expires_at: iso(expires),
      used_at: null,
      revoked_at: null,
    });
    await all
      .insertInto("staff_tokens")
      .values([link("long-expired", -8 * day), link("just-expired", -1), link("valid", day)])
      .execute();
    const subscriber = await insertListSubscriber(db, { email: "purge@example.com" });
    const other = await insertListSubscriber(db, {
      email: "purge@example.com",
      tenantId: "keydiscovery",
    });
    const change = (tenant: string, id: number, hash: string, expires: number) => ({
      tenant_id: tenant,
      subscriber_id: id,
      token_hash: hash,
      active_lists: "[]",
      inactive_lists: "[]",
      created_at: iso(-day),
      expires_at: iso(expires),
      used_at: null,
    });
    await all
      .insertInto("preference_changes")
      .values([
        change("main", subscriber, "expired-change", -1),
        change("keydiscovery", other, "live-change", day),
      ])
      .execute();
    const { definition } = recorder("purged");
    const job = async (status: "done" | "failed" | "waiting", finished: number | null) => {
      const id = (await queueJob(db, definition, { n: 0 })) as number;
      await all
        .updateTable("jobs")
        .set({ status, finished_at: finished === null ? null : iso(finished) })
        .where("id", "=", id)
        .execute();
      return id;
    };
    const oldDone = await job("done", -8 * day);
    const newDone = await job("done", -day);
    const oldFailed = await job("failed", -31 * day);
    const newFailed = await job("failed", -8 * day);
    const waiting = await job("waiting", null);

    expect(await purgeExpired(db, now)).toEqual({
      sessions: 1,
      staffLinks: 1,
      preferenceLinks: 1,
      jobs: 2,
    });
    const left = async (
      table: "sessions" | "staff_tokens" | "preference_changes",
      column: string,
    ) =>
      (
        await all
          .selectFrom(table)
          .select(column as never)
          .execute()
      )
        .map((row) => (row as Record<string, string>)[column])
        .sort();
    expect(await left("sessions", "token_hash")).toEqual(["live"]);
    expect(await left("staff_tokens", "id")).toEqual(["just-expired", "valid"]);
    expect(await left("preference_changes", "token_hash")).toEqual(["live-change"]);
    const jobs = (await all.selectFrom("jobs").select("id").execute()).map((row) => Number(row.id));
    expect(jobs.sort((x, y) => x - y)).toEqual([newDone, newFailed, waiting]);
    expect(jobs).not.toContain(oldDone);
    expect(jobs).not.toContain(oldFailed);
  });
});

describe.each(testDialects())("migration 0042 on %s", (dialect) => {
  it("gives each import waiting or running at the upgrade its job, and none to finished ones", async () => {
    const database = await createTestDatabase(dialect);
    try {
      const db = database.db;
      expect((await migratorFor(db).migrateTo("0040_published_order_index")).error).toBeUndefined();
      await seedTenants(db);
      const row = (status: string, name: string) => ({
        tenant_id: "main",
        file_name: name,
        source: "herald",
        csv: "email\n",
        status,
        created_by: "x",
        created_at: "2026-12-01T00:00:00.000Z",
      });
      await crossTenant(db)
        .insertInto("subscriber_imports")
        .values([row("queued", "a.csv"), row("running", "b.csv"), row("done", "c.csv")] as never)
        .execute();
      await migrateToLatest(db);
      const jobs = await crossTenant(db)
        .selectFrom("jobs")
        .select(["kind", "tenant_id", "payload", "status", "max_attempts"])
        .orderBy("id")
        .execute();
      const ids = await crossTenant(db)
        .selectFrom("subscriber_imports")
        .select("id")
        .where("status", "in", ["queued", "running"])
        .orderBy("id")
        .execute();
      expect(jobs.map((job) => JSON.parse(job.payload).importId)).toEqual(
        ids.map((each) => Number(each.id)),
      );
      expect(jobs.every((job) => job.kind === "audience-import" && job.status === "waiting")).toBe(
        true,
      );
      expect(jobs.every((job) => job.tenant_id === "main" && Number(job.max_attempts) === 3)).toBe(
        true,
      );
    } finally {
      await database.drop();
    }
  });
});
