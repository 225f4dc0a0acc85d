import { readdir, rename, rm, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { z } from "zod";
import type { Db } from "../db";
import type { Env } from "../env";
import type { Logger } from "../logger";
import { PeriodicTask } from "../periodic";
import { claimSettingTurn, readSetting, writeSetting } from "../settings";
import { MANIFEST_FILE } from "./manifest";
import { writeSnapshot } from "./snapshot";

/*
 * Scheduled snapshots (BACKUP_DIR, BACKUP_EVERY, BACKUP_KEEP; docs/decisions/029-backups.md), run
 * beside the sending worker. Time is cut into turns of BACKUP_EVERY from the Unix epoch; each turn
 * is claimed in `settings` by one statement, so of several instances on one database exactly one
 * takes it. One snapshot at a time per process; the last success and failure are kept in
 * `settings` for the tenant manager's page.
 */

export const BACKUP_TURN_SETTING = "backup.turn";
export const BACKUP_SUCCESS_SETTING = "backup.last_success";
export const BACKUP_FAILURE_SETTING = "backup.last_failure";

/** A scheduled snapshot's directory name: its UTC start time, so that names sort in time order. */
const SNAPSHOT_NAME = /^herald-\d{8}T\d{6}Z$/;

export function snapshotName(at: Date): string {
  return `herald-${at
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "")}`;
}

const successSchema = z.object({
  at: z.string(),
  dir: z.string(),
  bytes: z.number(),
});
const failureSchema = z.object({ at: z.string(), error: z.string() });

export interface BackupStatus {
  lastSuccess: z.infer<typeof successSchema> | null;
  lastFailure: z.infer<typeof failureSchema> | null;
}

/** The last scheduled snapshot that was written and the last that failed (either may be null). */
export async function readBackupStatus(db: Db): Promise<BackupStatus> {
  const read = async <T>(key: string, schema: z.ZodType<T>): Promise<T | null> => {
    const text = await readSetting(db, key);
    if (!text) return null;
    try {
      const parsed = schema.safeParse(JSON.parse(text));
      return parsed.success ? parsed.data : null;
    } catch {
      return null;
    }
  };
  return {
    lastSuccess: await read(BACKUP_SUCCESS_SETTING, successSchema),
    lastFailure: await read(BACKUP_FAILURE_SETTING, failureSchema),
  };
}

/** Deletes the finished snapshots in `dir` beyond the newest `keep`; answers the names deleted. */
export async function pruneSnapshots(dir: string, keep: number): Promise<string[]> {
  const finished: string[] = [];
  for (const name of (await readdir(dir)).filter((each) => SNAPSHOT_NAME.test(each))) {
    const complete = await stat(join(dir, name, MANIFEST_FILE)).then(
      () => true,
      () => false,
    );
    if (complete) finished.push(name);
  }
  const old = finished.sort().slice(0, Math.max(0, finished.length - keep));
  for (const name of old) await rm(join(dir, name), { recursive: true, force: true });
  return old;
}

export interface BackupSchedulerOptions {
  db: Db;
  logger: Logger;
  env: Pick<Env, "DATABASE_URL" | "BACKUP_DIR" | "BACKUP_EVERY" | "BACKUP_KEEP">;
}

export class BackupScheduler {
  private readonly abort = new AbortController();
  private readonly periodic: PeriodicTask;

  constructor(private readonly options: BackupSchedulerOptions & { env: { BACKUP_DIR: string } }) {
    const every = () => this.options.env.BACKUP_EVERY;
    // One at a time: a snapshot longer than a turn makes this process skip the turns it covers.
    this.periodic = new PeriodicTask({
      run: () => this.takeTurn(new Date(Math.floor(Date.now() / every()) * every())),
      nextDelay: () => (Math.floor(Date.now() / every()) + 1) * every() - Date.now(),
      onError: (error) => this.options.logger.error({ err: error }, "scheduled backup failed"),
    });
  }

  /** Looks at once (a turn nobody took yet is taken now), then at every turn's start. */
  start(): this {
    this.periodic.start();
    return this;
  }

  /** No new snapshot; one being written is abandoned (its partial directory removed). */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.periodic.stop();
  }

  /** Claims `turn`; if this process got it, writes a snapshot and keeps the newest BACKUP_KEEP. */
  async takeTurn(turn: Date): Promise<boolean> {
    const { db, logger, env } = this.options;
    if (!(await claimSettingTurn(db, BACKUP_TURN_SETTING, turn.toISOString()))) return false;
    const root = resolve(env.BACKUP_DIR);
    const started = new Date();
    const name = snapshotName(started);
    const partial = join(root, `${name}.partial`);
    try {
      const snapshot = await writeSnapshot({
        databaseUrl: env.DATABASE_URL,
        db,
        dir: partial,
        signal: this.abort.signal,
      });
      await rename(partial, join(root, name));
      const pruned = await pruneSnapshots(root, env.BACKUP_KEEP);
      const success = { at: started.toISOString(), dir: join(root, name), bytes: snapshot.bytes };
      await writeSetting(db, BACKUP_SUCCESS_SETTING, JSON.stringify(success));
      logger.info(
        { ...success, turn: turn.toISOString(), ms: Date.now() - started.getTime(), pruned },
        "backup written",
      );
    } catch (error) {
      await rm(partial, { recursive: true, force: true });
      // Stopped on purpose (the process is shutting down): not a failure to report.
      if (this.abort.signal.aborted) return false;
      const message = error instanceof Error ? error.message : String(error);
      await writeSetting(
        db,
        BACKUP_FAILURE_SETTING,
        JSON.stringify({ at: started.toISOString(), error: message.slice(0, 2000) }),
      );
      throw error;
    }
    return true;
  }
}

/** The scheduler for this process when BACKUP_DIR is set (beside the sending worker), else null. */
export function backupSchedulerFor(
  env: Env,
  options: { db: Db; logger: Logger },
): BackupScheduler | null {
  const dir = env.BACKUP_DIR;
  if (!dir) return null;
  return new BackupScheduler({ ...options, env: { ...env, BACKUP_DIR: dir } }).start();
}
