import { ensureFirstAdmin } from "./auth/bootstrap";
import { createDb, type Db } from "./db";
import { migrateToLatest } from "./db/migrate";
import { type Env, getEnv } from "./env";
import { getLogger, type Logger } from "./logger";
import { loadSessionSecret } from "./secrets";
import { seedTenants } from "./tenants/seed";

export interface Runtime {
  env: Env;
  db: Db;
  logger: Logger;
  /** signs tokens and links */
  sessionSecret: string;
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
  const applied = await migrateToLatest(db);
  if (applied.length > 0) logger.info({ applied }, "database migrated");
  await seedTenants(db);
  await ensureFirstAdmin(db, env, logger);
  return { env, db, logger, sessionSecret: loadSessionSecret(env, logger) };
}
