import type { Env } from "../env";
import type { TenantConfig } from "../tenants/config";

/**
 * The origin used in canonical, Open Graph and mail links: the tenant's domain, else APP_URL. It
 * never comes from the Host header, so a forged Host cannot reach a page that is cached for others.
 */
export function publicOrigin(tenant: TenantConfig, env: Env): string {
  if (tenant.domain) return `https://${tenant.domain}`;
  return env.APP_URL.replace(/\/$/, "");
}
