import { readdir, rename, rm, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { z } from "zod";
import type { Db } from "../db";
import type { Env } from "../env";
import type { Logger } from "../logger";
import { claimSettingTurn, readSetting, writeSetting } from "../settings";
import { MANIFEST_FILE } from "./manifest";
import { writeSnapshot } from "./snapshot";

/*
 * Scheduled snapshots (BACKUP_DIR, BACKUP_EVERY, BACKUP_KEEP; docs/decisions/029-backups.md), run
 * by the job runner (server/jobs/, decision 056). Time is cut into turns of BACKUP_EVERY from the
 * Unix epoch; each turn is claimed in `settings` by one statement, so of several instances on one
 * database exactly one takes it. The last success and failure are kept in `settings` for the
 * tenant manager's page.
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

export interface BackupTurnOptions {
  db: Db;
  logger: Logger;
  env: Pick<Env, "DATABASE_URL" | "BACKUP_EVERY" | "BACKUP_KEEP"> & { BACKUP_DIR: string };
  /** aborted when the process stops: the snapshot being written is abandoned */
  signal?: AbortSignal;
}

/** The turn `now` falls in: turns of BACKUP_EVERY from the Unix epoch. */
export function backupTurnOf(every: number, now = new Date()): Date {
  return new Date(Math.floor(now.getTime() / every) * every);
}

/**
 * Claims `turn`; if this process got it, writes a snapshot and keeps the newest BACKUP_KEEP.
 * Run by the recurring job "backup" (server/jobs/catalog.ts) at each turn's start; whether it
 * wrote one.
 */
export async function takeBackupTurn(options: BackupTurnOptions, turn: Date): Promise<boolean> {
  const { db, logger, env, signal } = options;
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
      signal,
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
    if (signal?.aborted) throw error;
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
