import { createContext } from "react-router";
import type { Db } from "../db";
import type { Env } from "../env";
import type { Logger } from "../logger";
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
  /** scheme + host the visitor used, for canonical and Open Graph URLs */
  origin: string;
}

/** Signed-in staff member; sign-in arrives with the staff accounts issue. */
export interface SessionUser {
  id: string;
  email: string;
  isSuperAdmin: boolean;
}

export const requestContext = createContext<RequestScope>();
export const tenantContext = createContext<TenantConfig>();
export const userContext = createContext<SessionUser | null>(null);
