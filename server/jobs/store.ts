import { sql } from "kysely";
import type { Db } from "../db";
import type { JobRow } from "../db/schema";
import { crossTenant, tenantDb } from "../db/tenant-guard";
import { type AnyJobDefinition, backoffMs, type JobDefinition } from "./definition";

/*
 * The writer of `jobs` (decision 056): jobs queued, claimed under a lease, renewed, finished,
 * retried, handed back, purged. The runner (runner.ts) works for every tenant, so it reads and
 * claims across tenants (crossTenant); a job for a tenant is queued on that tenant's database.
 */

/** A claimed job, as its runner holds it. */
export interface ClaimedJob {
  id: number;
  tenantId: string | null;
  kind: string;
  payload: string;
  /** this try's number, from 1 */
  attempt: number;
  maxAttempts: number;
  startedAt: Date;
}

const listeners = new Set<() => void>();

/** Calls `wake` when a job is queued in this process (a runner looks at once); undoes it. */
export function onJobQueued(wake: () => void): () => void {
  listeners.add(wake);
  return () => listeners.delete(wake);
}

/** What queuing a job needs of its kind (server/jobs/kinds.ts for the kinds other modules queue). */
export type QueuedKind<P> = Pick<JobDefinition<P>, "kind" | "payload" | "retry">;

export interface QueueOptions {
  tenantId?: string | null;
  runAt?: Date;
  /** one row per key: queuing a job whose key is taken does nothing */
  uniqueKey?: string;
}

/** Queues a job of `definition` (its payload checked by the job's schema); its id, or null if its unique key was taken. */
export async function queueJob<P>(
  db: Db,
  definition: QueuedKind<P>,
  payload: P,
  options: QueueOptions = {},
  now = new Date(),
): Promise<number | null> {
  const checked = definition.payload.parse(payload);
  const tenantId = options.tenantId ?? null;
  // A tenant's job goes in through its own database; the install's own work belongs to none.
  const on = tenantId === null ? crossTenant(db) : tenantDb(db, tenantId);
  const row = await on
    .insertInto("jobs")
    .values({
      tenant_id: tenantId,
      kind: definition.kind,
      payload: JSON.stringify(checked ?? {}),
      status: "waiting",
      unique_key: options.uniqueKey ?? null,
      run_at: (options.runAt ?? now).toISOString(),
      max_attempts: definition.retry.attempts,
      created_at: now.toISOString(),
    })
    .onConflict((conflict) => conflict.column("unique_key").doNothing())
    .returning("id")
    .executeTakeFirst();
  if (row) for (const wake of listeners) wake();
  return row ? Number(row.id) : null;
}

/**
 * A recurring job's one row (keyed by its kind): queued due now when it did not exist, and due
 * now when it was waiting or failed (a start looks at once, as a restart after a long stop should).
 */
export async function ensureRecurring(
  db: Db,
  definition: AnyJobDefinition,
  now = new Date(),
): Promise<void> {
  const at = now.toISOString();
  // The install's own job: it belongs to no tenant.
  await crossTenant(db)
    .insertInto("jobs")
    .values({
      tenant_id: null,
      kind: definition.kind,
      payload: "{}",
      status: "waiting",
      unique_key: `recurring:${definition.kind}`,
      run_at: at,
      max_attempts: definition.retry.attempts,
      created_at: at,
    })
    .onConflict((conflict) =>
      conflict
        .column("unique_key")
        .doUpdateSet({ run_at: at, status: "waiting", finished_at: null })
        .where((eb) =>
          eb.or([
            eb.and([eb("jobs.status", "=", "waiting"), eb("jobs.run_at", ">", at)]),
            // failed by hand or by an older version: a recurring job runs again
            eb("jobs.status", "=", "failed"),
          ]),
        ),
    )
    .execute();
}

type Candidate = Pick<
  JobRow,
  "id" | "tenant_id" | "kind" | "payload" | "status" | "lease_until" | "attempts" | "max_attempts"
>;

/**
 * Claims up to `max` due jobs of the kinds in `definitions` for `runnerId`: waiting ones whose
 * time came, and running ones whose lease ran out (their runner died). Each claim is one UPDATE
 * that names the state it saw (so of two runners only one gets a job) and counts the jobs of the
 * kind already running, over the install and for the job's tenant, against the kind's limits.
 */
export async function claimJobs(
  db: Db,
  runnerId: string,
  definitions: ReadonlyMap<string, AnyJobDefinition>,
  max: number,
  now = new Date(),
): Promise<ClaimedJob[]> {
  if (max <= 0 || definitions.size === 0) return [];
  const at = now.toISOString();
  // The runner serves every tenant: it finds due work across them.
  const jobs = crossTenant(db);
  const candidates: Candidate[] = await jobs
    .selectFrom("jobs")
    .select(["id", "tenant_id", "kind", "payload", "status", "lease_until"])
    .select(["attempts", "max_attempts"])
    .where("kind", "in", [...definitions.keys()])
    .where((eb) =>
      eb.or([
        eb.and([eb("status", "=", "waiting"), eb("run_at", "<=", at)]),
        eb.and([eb("status", "=", "running"), eb("lease_until", "<", at)]),
      ]),
    )
    .orderBy("run_at")
    .orderBy("id")
    .limit(max * 8 + 8)
    .execute();
  const claimed: ClaimedJob[] = [];
  for (const job of candidates) {
    if (claimed.length >= max) break;
    const definition = definitions.get(job.kind);
    if (!definition) continue;
    // A recurring job is never given up: its next turn is its retry.
    const lastTry = Number(job.attempts) >= Number(job.max_attempts) && !definition.every;
    if (job.status === "running" && lastTry) {
      // Its runner died on its last try: no runner is given it again.
      await jobs
        .updateTable("jobs")
        .set({ status: "failed", finished_at: at, claimed_by: null, lease_until: null })
        .set({ last_error: "its runner stopped answering on the last try (lease expired)" })
        .where("id", "=", job.id)
        .where("status", "=", "running")
        .where("lease_until", "=", job.lease_until)
        .execute();
      continue;
    }
    const running = (tenant: boolean) =>
      jobs
        .selectFrom("jobs as other")
        .select((eb) => eb.fn.countAll().as("n"))
        .where("other.kind", "=", job.kind)
        .where("other.status", "=", "running")
        .where("other.lease_until", ">=", at)
        .$if(tenant, (qb) =>
          qb.where("other.tenant_id", job.tenant_id === null ? "is" : "=", job.tenant_id),
        );
    const result = await jobs
      .updateTable("jobs")
      .set({
        status: "running",
        claimed_by: runnerId,
        lease_until: new Date(now.getTime() + definition.leaseMs).toISOString(),
        attempts: sql<number>`attempts + 1`,
        started_at: at,
      })
      .where("id", "=", job.id)
      .where("status", "=", job.status)
      .where((eb) =>
        job.lease_until === null
          ? eb("lease_until", "is", null)
          : eb("lease_until", "=", job.lease_until),
      )
      .where((eb) => eb(running(false), "<", definition.concurrency))
      .where((eb) => eb(running(true), "<", definition.perTenant))
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) continue;
    claimed.push({
      id: Number(job.id),
      tenantId: job.tenant_id,
      kind: job.kind,
      payload: job.payload,
      attempt: Number(job.attempts) + 1,
      maxAttempts: Number(job.max_attempts),
      startedAt: now,
    });
  }
  return claimed;
}

/** An update of a job this runner still holds (running, claimed by it): changes nothing otherwise. */
function ownJob(db: Db, job: ClaimedJob, runnerId: string) {
  // Every tenant's jobs are the runner's to update (it claimed them across tenants).
  return crossTenant(db)
    .updateTable("jobs")
    .where("id", "=", job.id)
    .where("claimed_by", "=", runnerId)
    .where("status", "=", "running");
}

/** Renews the lease (and stores the progress, when given); false once the runner lost the job. */
export async function renewLease(
  db: Db,
  job: ClaimedJob,
  runnerId: string,
  leaseMs: number,
  progress?: Record<string, unknown>,
  now = new Date(),
): Promise<boolean> {
  const result = await ownJob(db, job, runnerId)
    .set({ lease_until: new Date(now.getTime() + leaseMs).toISOString() })
    .$if(progress !== undefined, (qb) => qb.set({ progress: JSON.stringify(progress) }))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** A job that ended well: done, or a recurring one waiting for its next turn. */
export async function finishJob(
  db: Db,
  job: ClaimedJob,
  runnerId: string,
  definition: AnyJobDefinition,
  now = new Date(),
): Promise<void> {
  const ended = { claimed_by: null, lease_until: null, finished_at: now.toISOString() };
  await ownJob(db, job, runnerId)
    .set(
      definition.every
        ? {
            ...ended,
            status: "waiting",
            attempts: 0,
            last_error: null,
            run_at: definition.every(job.startedAt).toISOString(),
          }
        : { ...ended, status: "done" },
    )
    .execute();
}

/**
 * A try that failed: tried again after the policy's backoff, or failed for good once out of
 * tries (a recurring job then waits for its next turn, its error kept). Whether it will be retried.
 */
export async function failJob(
  db: Db,
  job: ClaimedJob,
  runnerId: string,
  definition: AnyJobDefinition,
  error: string,
  now = new Date(),
): Promise<"retry" | "failed"> {
  const base = { claimed_by: null, lease_until: null, last_error: error.slice(0, 2000) };
  const retry = job.attempt < job.maxAttempts;
  const next = retry
    ? new Date(now.getTime() + backoffMs(definition.retry, job.attempt))
    : definition.every?.(job.startedAt);
  await ownJob(db, job, runnerId)
    .set(
      next
        ? {
            ...base,
            status: "waiting",
            run_at: next.toISOString(),
            ...(retry ? {} : { attempts: 0 }),
          }
        : { ...base, status: "failed", finished_at: now.toISOString() },
    )
    .execute();
  return retry ? "retry" : "failed";
}

/**
 * A job stopped part way by a shutdown (or put off by its handler, RunLater): back in the queue,
 * due at `runAt`, the try not counted.
 */
export async function handBack(db: Db, job: ClaimedJob, runnerId: string, runAt = new Date()) {
  await ownJob(db, job, runnerId)
    .set({
      status: "waiting",
      claimed_by: null,
      lease_until: null,
      run_at: runAt.toISOString(),
      attempts: sql<number>`attempts - 1`,
    })
    .execute();
}

/** A failed job queued again with its tries renewed (the super admin's "Retry"); whether it was failed. */
export async function retryFailedJob(db: Db, id: number, now = new Date()): Promise<boolean> {
  // The super admin's page acts on every tenant's jobs.
  const result = await crossTenant(db)
    .updateTable("jobs")
    .set({ status: "waiting", attempts: 0, run_at: now.toISOString(), finished_at: null })
    .where("id", "=", id)
    .where("status", "=", "failed")
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 1) for (const wake of listeners) wake();
  return Number(result.numUpdatedRows) === 1;
}

/** Deletes jobs done before `doneBefore` and failed before `failedBefore`; how many. */
export async function deleteFinishedJobs(
  db: Db,
  doneBefore: Date,
  failedBefore: Date,
): Promise<number> {
  // The purge is the install's: every tenant's finished jobs.
  const result = await crossTenant(db)
    .deleteFrom("jobs")
    .where((eb) =>
      eb.or([
        eb.and([eb("status", "=", "done"), eb("finished_at", "<", doneBefore.toISOString())]),
        eb.and([eb("status", "=", "failed"), eb("finished_at", "<", failedBefore.toISOString())]),
      ]),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
