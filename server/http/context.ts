import { createContext } from "react-router";
import type { StaffUser } from "../auth/permissions";
import type { CampaignWorker } from "../campaigns/worker";
import type { Db } from "../db";
import type { Env } from "../env";
import type { Logger } from "../logger";
import type { Transport } from "../mail/transport";
import type { TenantConfig } from "../tenants/config";

/** What the host knows about a request before React Router sees it. */
export interface RequestScope {
  env: Env;
  db: Db;
  logger: Logger;
  requestId: string;
  /** CSP nonce for this response's inline scripts */
  nonce: string;
  tenantId: string;
  /** the client's address, for rate limits */
  clientAddress: string;
  /** the tenant's public origin (its domain, else APP_URL): canonical, Open Graph and mail links */
  origin: string;
  /** hands mail to SMTP or keeps it in the outbox */
  transport: Transport;
  /** this process's campaign sender, when it runs one (SEND_WORKER) */
  worker: CampaignWorker | null;
  /** signs tokens and links */
  sessionSecret: string;
  /** set when the host already counted this newsletter view (server/newsletters/page-views.ts) */
  countedView?: { views: number };
}

export const requestContext = createContext<RequestScope>();
export const tenantContext = createContext<TenantConfig>();
/** The signed-in staff member, or null (set by the root middleware from the session cookie). */
export const userContext = createContext<StaffUser | null>(null);
