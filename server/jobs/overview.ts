import type { Db } from "../db";
import type { JobRow } from "../db/schema";
import { crossTenant } from "../db/tenant-guard";

/*
 * What the job table says, for /admin/jobs and /metrics (decision 056). Both are the install's
 * view of every tenant's jobs.
 */

export const JOB_STATES = ["waiting", "running", "done", "failed"] as const;
export type JobState = (typeof JOB_STATES)[number];

export interface JobCount {
  kind: string;
  tenantId: string | null;
  state: JobState;
  count: number;
}

/** How many jobs of each kind, tenant and state. */
export async function countJobs(db: Db): Promise<JobCount[]> {
  // Every tenant's jobs: the super admin's page and /metrics.
  const rows = await crossTenant(db)
    .selectFrom("jobs")
    .select(["kind", "tenant_id", "status", (eb) => eb.fn.countAll<number | string>().as("n")])
    .groupBy(["kind", "tenant_id", "status"])
    .orderBy("kind")
    .orderBy("tenant_id")
    .execute();
  return rows.map((row) => ({
    kind: row.kind,
    tenantId: row.tenant_id,
    state: row.status,
    count: Number(row.n),
  }));
}

/** How long the oldest due waiting job has waited past its time, in seconds; 0 when none is due. */
export async function oldestWaitingAgeSeconds(db: Db, now = new Date()): Promise<number> {
  const row = await crossTenant(db)
    .selectFrom("jobs")
    .select((eb) => eb.fn.min("run_at").as("oldest"))
    .where("status", "=", "waiting")
    .where("run_at", "<=", now.toISOString())
    .executeTakeFirst();
  const oldest = row?.oldest ? Date.parse(String(row.oldest)) : Number.NaN;
  return Number.isNaN(oldest) ? 0 : Math.max(0, (now.getTime() - oldest) / 1000);
}

export type JobListing = Pick<
  JobRow,
  | "id"
  | "tenant_id"
  | "kind"
  | "status"
  | "run_at"
  | "attempts"
  | "max_attempts"
  | "progress"
  | "last_error"
  | "started_at"
  | "finished_at"
>;

/** The jobs waiting, running and failed (newest first, at most `limit` of each state), with their last errors. */
export async function listOpenJobs(db: Db, limit = 50): Promise<Record<JobState, JobListing[]>> {
  const read = (state: JobState) =>
    crossTenant(db)
      .selectFrom("jobs")
      .select(["id", "tenant_id", "kind", "status", "run_at", "attempts", "max_attempts"])
      .select(["progress", "last_error", "started_at", "finished_at"])
      .where("status", "=", state)
      .orderBy("id", "desc")
      .limit(limit)
      .execute();
  const [waiting, running, failed] = await Promise.all([
    read("waiting"),
    read("running"),
    read("failed"),
  ]);
  return { waiting, running, failed, done: [] };
}
