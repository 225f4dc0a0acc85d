import { domainOfAddress } from "../../shared/schemas/dkim";
import type { Db } from "../db";
import { tenantDb } from "../db/tenant-guard";
import { getEnv } from "../env";
import { FIXED_SENDER, type TenantConfig } from "./config";

/**
 * The domains a tenant's mail may come from (issue 32, finding 15; docs/decisions/028-sender-domains.md):
 * a From at someone else's domain is refused wherever a From is set, so staff cannot spoof another
 * organisation with the tenant's reputation and DKIM signature. A tenant's own domains are:
 * - the domains a super admin lists under "Sender domains" in the tenant's settings;
 * - the domains of its DKIM keys (active or pending: staff are publishing those);
 * - its site's domain, the host of APP_URL and the fixed sender's domain (SPEC §7's address of last
 *   resort), so a fresh installation without a key can send from what it already is.
 * A subdomain of an own domain is own too (DMARC's relaxed alignment).
 */

export function notOwnDomainMessage(domains: readonly string[]): string {
  return `The sender address must be at one of this tenant's domains: ${domains.join(", ")}. A super admin can add a domain under Sender domains in the tenant's settings.`;
}

function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname.toLowerCase() || null;
  } catch {
    return null;
  }
}

/**
 * The tenant's own domains. `configured` replaces the tenant's stored sender domains (a settings
 * form being saved); `withSenderAddress` adds the domain of the sender address a super admin set
 * in the tenant's settings (checked there when saved), which every campaign defaults to.
 */
export async function ownSenderDomains(
  root: Db,
  tenant: Pick<TenantConfig, "id" | "domain" | "senderDomains" | "email">,
  options: { configured?: readonly string[]; withSenderAddress?: boolean } = {},
): Promise<string[]> {
  const db = tenantDb(root, tenant.id);
  // Read here rather than through dkim.ts, which records its changes through admin.ts (a cycle).
  const dkimKeys = await db
    .selectFrom("dkim_keys")
    .select("domain")
    .where("status", "in", ["active", "pending"])
    .execute();
  const domains = [
    ...(options.configured ?? tenant.senderDomains),
    ...dkimKeys.map((key) => key.domain),
    tenant.domain,
    hostOf(getEnv().APP_URL),
    domainOfAddress(FIXED_SENDER.email),
    options.withSenderAddress && tenant.email.senderEmail
      ? domainOfAddress(tenant.email.senderEmail)
      : null,
  ];
  return [
    ...new Set(
      domains
        .filter((domain): domain is string => Boolean(domain))
        .map((domain) => domain.toLowerCase().replace(/\.$/, "")),
    ),
  ];
}

export function isOwnDomain(address: string, domains: readonly string[]): boolean {
  const domain = domainOfAddress(address.trim()).replace(/\.$/, "");
  return domains.some((own) => domain === own || domain.endsWith(`.${own}`));
}

/** Why a From address may not be used for the tenant's mail (a message for the form), or null. */
export async function foreignSenderProblem(
  db: Db,
  tenant: Pick<TenantConfig, "id" | "domain" | "senderDomains" | "email">,
  address: string,
): Promise<string | null> {
  const domains = await ownSenderDomains(db, tenant, { withSenderAddress: true });
  return isOwnDomain(address, domains) ? null : notOwnDomainMessage(domains);
}
