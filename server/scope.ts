import type { Db } from "./db";
import { tenantDb } from "./db/tenant-guard";
import type { Env } from "./env";
import type { Logger } from "./logger";
import type { Transport } from "./mail/transport";
import type { TenantConfig } from "./tenants/config";

/**
 * The one scope Herald's operations run in: a tenant and the services that act for it. The host
 * builds it per request (server/http/app.ts); the sender and the CLI build the parts they need.
 *
 * A function names the slice it uses with `Pick<Scope, …>` (or `TenantScope`), so a request's
 * scope can be passed to anything and a worker can pass a smaller object. Its `db` is bound to
 * `tenantId` (server/db/tenant-guard.ts, `tenantDb`): queries on it need not name the tenant, and
 * one naming another tenant is refused. The request's scope is built bound; a worker or the CLI
 * acting for one tenant binds its scope with `tenantScope`.
 */
export interface Scope {
  /** bound to `tenantId` */
  db: Db;
  /** the tenant this work is for (the request's host decides; never the request body) */
  tenantId: string;
  tenant: TenantConfig;
  env: Env;
  logger: Logger;
  /** hands mail to SMTP or keeps it in the outbox */
  transport: Transport;
  /** the tenant's public origin (its domain, else APP_URL): canonical, Open Graph and mail links */
  origin: string;
  /** signs tokens and links */
  sessionSecret: string;
  /** the client's address, for rate limits */
  clientAddress: string;
  /** this process's campaign sender, when it runs one (SEND_WORKER) */
  worker: PokeableWorker | null;
  /** this process's job runner (server/jobs/: imports among its jobs), beside the sender */
  importer: PokeableWorker | null;
}

/**
 * What a request needs of a worker running in this process: a poke, so it looks at its queue now
 * rather than at its next poll. The campaign sender (server/campaigns/worker.ts) and the import
 * runner (server/subscribers/imports.ts) have it; Scope names only this, so its types import none
 * of the modules that take a Scope (the runtime, which starts and stops them, holds the classes).
 */
export interface PokeableWorker {
  poke(): void;
}

/** What a tenant-owned read or write needs: the database and the tenant. */
export type TenantScope = Pick<Scope, "db" | "tenantId">;

/**
 * The scope with its database bound to its tenant: for a worker or the CLI acting for one tenant,
 * and for a function that takes a scope and a worker may call with the root database. A scope
 * already bound is returned as it is; one bound to another tenant is refused (TenantGuardError).
 */
export function tenantScope<S extends TenantScope>(scope: S): S {
  const db = tenantDb(scope.db, scope.tenantId);
  return db === scope.db ? scope : { ...scope, db };
}
