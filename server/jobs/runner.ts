import { hostname } from "node:os";
import type { Db } from "../db";
import type { Logger } from "../logger";
import { countJobFailure } from "../metrics";
import { type AnyJobDefinition, RunLater } from "./definition";
import {
  type ClaimedJob,
  claimJobs,
  ensureRecurring,
  failJob,
  finishJob,
  handBack,
  onJobQueued,
  renewLease,
} from "./store";

const IDLE_POLL_MS = 1_000;

export interface JobRunnerOptions {
  db: Db;
  logger: Logger;
  definitions: readonly AnyJobDefinition[];
  /** jobs this runner runs at once, of every kind */
  slots?: number;
  /** how often an idle runner looks for due jobs */
  pollMs?: number;
}

/**
 * The one job runner (decision 056): in the web process on the embedded setup, in `herald worker`
 * when one is configured (SEND_WORKER=off in the web processes). It claims due jobs across
 * tenants within its slots and each kind's limits, runs each under a lease it renews while the
 * handler works, and records the outcome. `stop()` aborts the handlers' signals, waits for them
 * and hands the jobs they did not finish back to the queue.
 */
export class JobRunner {
  readonly id = `${hostname()}:${process.pid}:jobs:${Math.random().toString(36).slice(2, 8)}`;
  private readonly definitions: Map<string, AnyJobDefinition>;
  private readonly active = new Map<number, Promise<void>>();
  private running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private readonly stopping = new AbortController();
  private unlisten: (() => void) | null = null;

  constructor(private readonly options: JobRunnerOptions) {
    this.definitions = new Map(options.definitions.map((each) => [each.kind, each]));
  }

  get slots(): number {
    return this.options.slots ?? 2;
  }

  start(): this {
    if (this.running) return this;
    this.running = true;
    this.unlisten = onJobQueued(() => this.poke());
    this.loop = this.run();
    return this;
  }

  /** Look now instead of at the next poll. */
  poke(): void {
    this.wake?.();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.unlisten?.();
    this.stopping.abort();
    this.wake?.();
    await this.loop;
    await Promise.all(this.active.values());
  }

  /** Claims what it has room for and starts it; how many jobs were started. */
  async tick(now = new Date()): Promise<number> {
    const claimed = await claimJobs(
      this.options.db,
      this.id,
      this.definitions,
      this.slots - this.active.size,
      now,
    );
    for (const job of claimed) {
      const done = this.execute(job).finally(() => {
        this.active.delete(job.id);
        this.poke();
      });
      this.active.set(job.id, done);
    }
    return claimed.length;
  }

  /** Resolves once no job of this runner is running (tests). */
  async idle(): Promise<void> {
    while (this.active.size > 0) await Promise.all(this.active.values());
  }

  private async run(): Promise<void> {
    const { db, logger } = this.options;
    for (const definition of this.definitions.values()) {
      if (!definition.every) continue;
      await ensureRecurring(db, definition).catch((error: unknown) =>
        logger.error({ err: error, kind: definition.kind }, "recurring job not queued"),
      );
    }
    while (this.running) {
      let started = 0;
      try {
        if (this.active.size < this.slots) started = await this.tick();
      } catch (error) {
        logger.error({ err: error }, "job runner tick failed");
      }
      if (started === 0 && this.running) {
        await new Promise<void>((resolve) => {
          this.wake = resolve;
          setTimeout(resolve, this.options.pollMs ?? IDLE_POLL_MS).unref();
        });
        this.wake = null;
      }
    }
  }

  private async execute(job: ClaimedJob): Promise<void> {
    const { db, logger } = this.options;
    const definition = this.definitions.get(job.kind) as AnyJobDefinition;
    const controller = new AbortController();
    const onStop = () => controller.abort(new Error("the runner is stopping"));
    this.stopping.signal.addEventListener("abort", onStop, { once: true });
    let lost = false;
    const keep = async (progress?: Record<string, unknown>) => {
      if (lost) return;
      if (!(await renewLease(db, job, this.id, definition.leaseMs, progress))) {
        lost = true;
        controller.abort(new Error("the job's lease was taken over"));
      }
    };
    const renewal = setInterval(() => {
      keep().catch((error: unknown) => logger.warn({ err: error }, "job lease not renewed"));
    }, definition.leaseMs / 3);
    renewal.unref();
    const started = Date.now();
    const log = { jobId: job.id, kind: job.kind, tenantId: job.tenantId, attempt: job.attempt };
    try {
      const payload = definition.payload.safeParse(JSON.parse(job.payload));
      if (!payload.success) {
        // A payload its own schema refuses will not get better: failed at once, not retried.
        await failJob(
          db,
          { ...job, attempt: job.maxAttempts },
          this.id,
          definition,
          `payload: ${payload.error.message}`,
        );
        countJobFailure(job.kind);
        return;
      }
      await definition.run(payload.data, {
        db,
        logger: logger.child(log),
        tenantId: job.tenantId,
        jobId: job.id,
        attempt: job.attempt,
        signal: controller.signal,
        progress: (value) => keep(value),
      });
      // A handler that stops early for a shutdown throws (signal.throwIfAborted()): one that
      // returns has done its work.
      if (lost) return;
      await finishJob(db, job, this.id, definition);
      logger.info({ ...log, ms: Date.now() - started }, "job done");
    } catch (error) {
      if (lost) return;
      if (this.stopping.signal.aborted) {
        await handBack(db, job, this.id).catch(() => undefined);
        return;
      }
      if (error instanceof RunLater) {
        await handBack(db, job, this.id, new Date(Date.now() + error.delayMs));
        logger.info({ ...log, reason: error.message }, "job put off");
        return;
      }
      const message = error instanceof Error ? error.message : String(error);
      countJobFailure(job.kind);
      const outcome = await failJob(db, job, this.id, definition, message);
      logger[outcome === "retry" ? "warn" : "error"](
        { ...log, err: error, ms: Date.now() - started },
        outcome === "retry" ? "job failed, to be retried" : "job failed",
      );
    } finally {
      clearInterval(renewal);
      this.stopping.signal.removeEventListener("abort", onStop);
    }
  }
}
