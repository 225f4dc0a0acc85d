import { hostname } from "node:os";
import type { Db } from "../db";
import { tenantDb } from "../db/tenant-guard";
import type { Logger } from "../logger";
import { recordImportJob } from "../metrics";
import { runNextArchiveImport } from "../newsletters/archive-imports";
import { runImport } from "./import-run";
import { claimImport } from "./imports";

const IDLE_POLL_MS = 1_000;

/**
 * Runs queued imports one at a time, beside the campaign sender (in the web process, or in
 * `herald worker` when SEND_WORKER=off).
 */
export class ImportWorker {
  readonly id = `${hostname()}:${process.pid}:imports:${Math.random().toString(36).slice(2, 8)}`;
  private running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;

  constructor(private readonly options: { db: Db; logger: Logger }) {}

  start(): this {
    if (this.running) return this;
    this.running = true;
    this.loop = this.run();
    return this;
  }

  /** Ends the loop after the chunk in hand; a job left running is taken over once stale. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
  }

  /** Look now (a file was just queued) instead of at the next poll. */
  poke(): void {
    this.wake?.();
  }

  /** One job, if one waits; whether there was one. */
  async tick(): Promise<boolean> {
    const job = await claimImport(this.options.db, this.id);
    if (!job) return this.archiveTick();
    const started = Date.now();
    // The job was found across tenants; it is run for its own.
    const db = tenantDb(this.options.db, job.tenantId);
    await runImport(db, job, this.id, () => this.running);
    const ended = await db
      .selectFrom("subscriber_imports")
      .select(["status", "source"])
      .where("id", "=", job.id)
      .executeTakeFirst();
    // A job stopped part way (a shutdown) is neither: another round finishes it.
    if (ended?.status === "done" || ended?.status === "failed") {
      recordImportJob(ended.source, ended.status);
    }
    this.options.logger.info({ importId: job.id, ms: Date.now() - started }, "import finished");
    return true;
  }

  /** Newsletters from Ghost or Substack (server/newsletters/archive-imports.ts) take turns with CSVs. */
  private async archiveTick(): Promise<boolean> {
    const started = Date.now();
    const job = await runNextArchiveImport(this.options.db, this.id, () => this.running);
    if (job)
      this.options.logger.info(
        { archiveImportId: job.id, ms: Date.now() - started },
        "archive import finished",
      );
    return job !== null;
  }

  private async run(): Promise<void> {
    while (this.running) {
      let worked = false;
      try {
        worked = await this.tick();
      } catch (error) {
        this.options.logger.error({ err: error }, "import worker tick failed");
      }
      if (!worked && this.running) {
        await new Promise<void>((resolve) => {
          this.wake = resolve;
          setTimeout(resolve, IDLE_POLL_MS).unref();
        });
        this.wake = null;
      }
    }
  }
}
