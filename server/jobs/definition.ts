import type { z } from "zod";
import type { Db } from "../db";
import type { Logger } from "../logger";

/*
 * One background job's definition (decision 056): its name, the zod schema of its payload, its
 * handler, how it is retried, how many may run at once (over the install, and per tenant so one
 * tenant's pile of work cannot hold every slot), and, for a recurring job, when it runs next.
 */

/** What a handler gets besides its payload. */
export interface JobContext {
  /** the root database: a job for a tenant binds it (tenantDb) to `tenantId` */
  db: Db;
  logger: Logger;
  /** the job's tenant; null for the install's own work */
  tenantId: string | null;
  jobId: number;
  /** which try this is, from 1 */
  attempt: number;
  /** aborted when the runner stops or loses the job's lease: end at the next safe point */
  signal: AbortSignal;
  /** stores what the job has done so far (shown on /admin/jobs) and renews its lease */
  progress(value: Record<string, unknown>): Promise<void>;
}

/**
 * Thrown by a handler that cannot go on yet for a reason that is no failure (the work is held
 * elsewhere): the job waits `delayMs` and runs again, the try not counted.
 */
export class RunLater extends Error {
  constructor(
    readonly delayMs: number,
    reason: string,
  ) {
    super(reason);
  }
}

export interface RetryPolicy {
  /** tries in all, the first included */
  attempts: number;
  /** wait before the second try; each further try waits `factor` times longer, up to `maxDelayMs` */
  delayMs: number;
  factor: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  attempts: 5,
  delayMs: 10_000,
  factor: 4,
  maxDelayMs: 3_600_000,
};

export interface JobDefinition<P = unknown> {
  kind: string;
  payload: z.ZodType<P>;
  run(payload: P, ctx: JobContext): Promise<void>;
  retry: RetryPolicy;
  /** running at once over the install (all runners together) */
  concurrency: number;
  /** running at once for one tenant (the install's own jobs count as one tenant) */
  perTenant: number;
  /** how long a claim holds without a word from its runner before another runner retakes it */
  leaseMs: number;
  /** a recurring job: when it runs next after a run that started at `now` */
  every?: (now: Date) => Date;
}

/** A definition with the defaults filled in. */
export function defineJob<P>(
  definition: Pick<JobDefinition<P>, "kind" | "payload" | "run"> &
    Partial<Omit<JobDefinition<P>, "kind" | "payload" | "run">>,
): JobDefinition<P> {
  return {
    retry: DEFAULT_RETRY,
    concurrency: 2,
    perTenant: 1,
    leaseMs: 60_000,
    ...definition,
  };
}

/** The wait before try `attempt + 1` after try `attempt` failed (attempt counts from 1). */
export function backoffMs(policy: RetryPolicy, attempt: number): number {
  const delay = policy.delayMs * policy.factor ** Math.max(0, attempt - 1);
  return Math.min(policy.maxDelayMs, delay);
}

/** A recurring job every `ms`, aligned to the Unix epoch (turns of the same length everywhere). */
export function everyMs(ms: number): (now: Date) => Date {
  return (now) => new Date((Math.floor(now.getTime() / ms) + 1) * ms);
}

/** A definition of any payload, as the runner holds them. */
// biome-ignore lint/suspicious/noExplicitAny: the runner checks each payload with its own schema
export type AnyJobDefinition = JobDefinition<any>;
