/**
 * Host → tenant id (SPEC §1, DESIGN.md §3). Pure, so it is unit-tested without HTTP.
 *
 * 1. A configured tenant whose domain equals the host wins.
 * 2. On localhost, the `subdomain` query parameter (or the cookie that remembers it) names the tenant.
 * 3. Otherwise the first label of the host, when it is a known tenant id (acme.example.com → acme).
 * 4. Otherwise SPEC's rule: 'keydiscovery' if the name contains keydiscovery, else 'main'.
 */
export const DEFAULT_TENANT_ID = "main";

export interface TenantDirectory {
  /** lower-case domain → tenant id */
  byDomain: ReadonlyMap<string, string>;
  ids: ReadonlySet<string>;
}

export interface TenantHint {
  host: string;
  subdomainParam?: string | null;
  subdomainCookie?: string | null;
}

const LOCAL_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

export function hostnameOf(host: string): string {
  const lower = host.trim().toLowerCase();
  if (lower.startsWith("[")) return lower.slice(0, lower.indexOf("]") + 1);
  return lower.replace(/:\d+$/, "");
}

export function isLocalHost(host: string): boolean {
  return LOCAL_HOSTS.has(hostnameOf(host));
}

function byName(name: string, directory: TenantDirectory): string {
  const lower = name.toLowerCase();
  if (directory.ids.has(lower)) return lower;
  return lower.includes("keydiscovery") ? "keydiscovery" : DEFAULT_TENANT_ID;
}

export function resolveTenantId(hint: TenantHint, directory: TenantDirectory): string {
  const hostname = hostnameOf(hint.host);
  const configured = directory.byDomain.get(hostname);
  if (configured) return configured;

  if (LOCAL_HOSTS.has(hostname)) {
    const chosen = hint.subdomainParam?.trim() || hint.subdomainCookie?.trim();
    return chosen ? byName(chosen, directory) : DEFAULT_TENANT_ID;
  }

  const firstLabel = hostname.split(".")[0] ?? "";
  if (directory.ids.has(firstLabel)) return firstLabel;
  return hostname.includes("keydiscovery") ? "keydiscovery" : DEFAULT_TENANT_ID;
}
