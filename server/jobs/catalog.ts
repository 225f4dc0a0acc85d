import { hostname } from "node:os";
import { z } from "zod";
import { backupTurnOf, takeBackupTurn } from "../backups/schedule";
import type { Db } from "../db";
import type { Env } from "../env";
import { runLinkedInPosts } from "../linkedin/publisher";
import type { Logger } from "../logger";
import { retryFailedMail } from "../mail/send";
import type { Transport } from "../mail/transport";
import { DOMAIN_CHECK_POLL_MS, runDueDomainChecks } from "../tenants/domain-checks";
import { type AnyJobDefinition, defineJob, everyMs } from "./definition";
import { archiveImportJob, audienceImportJob } from "./imports";
import { purgeExpired } from "./purge";

/*
 * Every kind of background job this install runs (decision 056), built for one runner with what
 * its handlers need. The recurring ones keep one row each and run again at their next turn.
 */

export interface JobDeps {
  db: Db;
  logger: Logger;
  env: Env;
  /** transactional mail (not the campaigns' pool): the retry queue's */
  transport: Transport;
}

const HOUR_MS = 3_600_000;
/** The lease of the every-second jobs (renewed every third of it while one runs). */
const SHORT_LEASE_MS = 5_000;
const noPayload = z.object({}).strict();
/** A recurring job's tries: one per turn, the next turn is its retry. */
const ONCE = { attempts: 1, delayMs: 0, factor: 1, maxDelayMs: 0 };

/** Expired sessions, staff and preference links, old finished jobs: hourly. */
export const purgeJob = (deps: Pick<JobDeps, "db" | "logger">) =>
  defineJob({
    kind: "purge",
    payload: noPayload,
    every: everyMs(HOUR_MS),
    retry: { attempts: 3, delayMs: 60_000, factor: 2, maxDelayMs: 600_000 },
    async run() {
      const purged = await purgeExpired(deps.db);
      deps.logger.info(purged, "expired rows purged");
    },
  });

/** Transactional mail that failed, tried again once its wait is over (server/mail/send.ts). */
export const mailRetryJob = (deps: JobDeps) =>
  defineJob({
    kind: "mail-retry",
    payload: noPayload,
    leaseMs: SHORT_LEASE_MS,
    // As often as the shortest wait asks, 1 s to 30 s.
    every: everyMs(Math.min(30_000, Math.max(1_000, Math.min(...deps.env.MAIL_RETRY_DELAYS)))),
    retry: ONCE,
    async run() {
      await retryFailedMail({
        db: deps.db,
        transport: deps.transport,
        logger: deps.logger,
        retryDelaysMs: deps.env.MAIL_RETRY_DELAYS,
      });
    },
  });

/** Due LinkedIn posts (server/linkedin/publisher.ts; each post keeps its own claim and state). */
export const linkedInPostsJob = (deps: JobDeps) =>
  defineJob({
    kind: "linkedin-posts",
    payload: noPayload,
    every: everyMs(1_000),
    retry: ONCE,
    // A round is short: a dead process's turn is retaken within seconds.
    leaseMs: SHORT_LEASE_MS,
    async run() {
      await runLinkedInPosts({
        db: deps.db,
        logger: deps.logger,
        worker: `${hostname()}:${process.pid}:linkedin`,
        env: deps.env,
      });
    },
  });

/** Every tenant's sender domain checked daily (unless DOMAIN_CHECK_EVERY=off). */
export const domainChecksJob = (deps: JobDeps, every: number) =>
  defineJob({
    kind: "domain-checks",
    payload: noPayload,
    every: everyMs(Math.min(DOMAIN_CHECK_POLL_MS, every)),
    retry: ONCE,
    async run(_payload, ctx) {
      await runDueDomainChecks({ ...deps, every, signal: ctx.signal });
    },
  });

/** A snapshot at each BACKUP_EVERY turn, when BACKUP_DIR is set. */
export const backupJob = (deps: JobDeps, dir: string) =>
  defineJob({
    kind: "backup",
    payload: noPayload,
    every: everyMs(deps.env.BACKUP_EVERY),
    retry: ONCE,
    async run(_payload, ctx) {
      const env = { ...deps.env, BACKUP_DIR: dir };
      const turn = backupTurnOf(env.BACKUP_EVERY);
      await takeBackupTurn({ ...deps, env, signal: ctx.signal }, turn);
    },
  });

/** The jobs a runner with these dependencies runs. */
export function jobDefinitions(deps: JobDeps): AnyJobDefinition[] {
  const { env } = deps;
  return [
    audienceImportJob,
    archiveImportJob,
    purgeJob(deps),
    mailRetryJob(deps),
    linkedInPostsJob(deps),
    ...(env.DOMAIN_CHECK_EVERY === null ? [] : [domainChecksJob(deps, env.DOMAIN_CHECK_EVERY)]),
    ...(env.BACKUP_DIR ? [backupJob(deps, env.BACKUP_DIR)] : []),
  ];
}
