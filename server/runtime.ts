import { ensureFirstAdmin } from "./auth/bootstrap";
import { type BounceListener, bounceListenerFor } from "./campaigns/bounce-listener";
import { CampaignWorker } from "./campaigns/worker";
import { closeCpuPool } from "./cpu/pool";
import { createDb, type Db } from "./db";
import { migrateToLatest } from "./db/migrate";
import { type Env, getEnv } from "./env";
import { closeFileStore } from "./files/store";
import { closeRateLimitStores } from "./http/rate-limit";
import { jobDefinitions } from "./jobs/catalog";
import { JobRunner } from "./jobs/runner";
import { getLogger, type Logger } from "./logger";
import { mailTransports, type Transport } from "./mail/transport";
import { startMetrics } from "./metrics";
import { flushViewSources } from "./newsletters/view-sources";
import { getSecretBox } from "./secret-box";
import { loadSessionSecret } from "./secrets";
import { resealStoredSecrets } from "./secrets-at-rest";
import { seedTenants } from "./tenants/seed";

export interface Runtime {
  env: Env;
  db: Db;
  logger: Logger;
  /** SMTP when SMTP_URL is set, else the outbox: all mail but campaigns' (they have their own pool) */
  transport: Transport;
  /** signs tokens and links */
  sessionSecret: string;
  /** the campaign sender in this process, unless SEND_WORKER=off */
  worker: CampaignWorker | null;
  /** the inbound bounce/complaint listener beside the worker, when BOUNCE_SMTP_PORT is set */
  bounceListener: BounceListener | null;
  /**
   * the job runner (server/jobs/, decision 056) beside the sender: imports, the purge, mail
   * retries, the daily domain checks, scheduled backups
   */
  jobs: JobRunner | null;
}

// Kept on globalThis so the dev server's module reloads reuse one database connection.
const globalStore = globalThis as typeof globalThis & { __heraldRuntime?: Promise<Runtime> };

/** Validates the environment, opens the database, migrates and seeds it: once per process. */
export function getRuntime(): Promise<Runtime> {
  globalStore.__heraldRuntime ??= boot();
  return globalStore.__heraldRuntime;
}

async function boot(): Promise<Runtime> {
  const env = getEnv();
  const logger = getLogger();
  const db = createDb(env.DATABASE_URL);
  // Counting only where /metrics answers: without the token nobody could read the counts.
  if (env.METRICS_TOKEN) await startMetrics(db);
  const applied = await migrateToLatest(db);
  if (applied.length > 0) logger.info({ applied }, "database migrated");
  // Before anything reads them: secrets kept in plaintext by an older version are sealed now.
  getSecretBox();
  const sealed = await resealStoredSecrets(db, "plaintext");
  if (Object.values(sealed).some((count) => count > 0)) logger.info({ sealed }, "secrets sealed");
  await seedTenants(db);
  await ensureFirstAdmin(db, env, logger);
  // Transactional mail never waits for a connection a campaign holds (mail/transport.ts).
  const { transactional: transport, campaign: campaignTransport } = mailTransports(
    env.SMTP_URL,
    env.SEND_CONCURRENCY,
  );
  const sessionSecret = loadSessionSecret(env, logger);
  const worker =
    env.SEND_WORKER === "on"
      ? new CampaignWorker({ db, transport: campaignTransport, logger, env, sessionSecret }).start()
      : null;
  // Beside the sending worker: in the web process, or in `herald worker` when SEND_WORKER=off.
  const bounceListener = worker
    ? await bounceListenerFor(env, { db, logger, sessionSecret })
    : null;
  // Background jobs (mail retries among them) run where the sender runs.
  const jobs = worker
    ? new JobRunner({
        db,
        logger,
        definitions: jobDefinitions({ db, logger, env, transport }),
      }).start()
    : null;
  return {
    env,
    db,
    logger,
    transport,
    sessionSecret,
    worker,
    bounceListener,
    jobs,
  };
}

/**
 * A graceful stop (SIGTERM, SIGINT) ends the process within this long: server.js and `herald
 * worker` exit then whatever is still running (README, "Watching it run").
 */
export const STOP_WITHIN_MS = 10_000;
/** How long the sender lets messages in flight finish before it hands their claims back. */
export const SEND_DRAIN_MS = 6_000;

/**
 * On shutdown: stop accepting bounce reports, let messages in flight finish, hand claims back;
 * then, once `requestsDone` (the HTTP server's requests in flight answered), close what requests
 * use — the shared rate-limit stores and the file store. Closed earlier, a request still in flight
 * (a sign-in whose body was slow to come) failed on an ended pool.
 */
export async function stopRuntime(
  requestsDone: Promise<unknown> = Promise.resolve(),
): Promise<void> {
  const runtime = await globalStore.__heraldRuntime?.catch(() => undefined);
  if (!runtime) return;
  await Promise.all([
    runtime.bounceListener?.close(),
    runtime.worker?.stop(SEND_DRAIN_MS),
    runtime.jobs?.stop(),
  ]);
  await requestsDone;
  // The views counted since the last batch (decision 047).
  await flushViewSources();
  await closeRateLimitStores();
  closeFileStore();
  await closeCpuPool();
}
