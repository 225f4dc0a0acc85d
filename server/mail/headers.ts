import { randomUUID } from "node:crypto";

/** The domain of an address: where a Message-ID is made (RFC 5322 §3.6.4). */
export function domainOf(address: string): string {
  const domain = address
    .slice(address.lastIndexOf("@") + 1)
    .trim()
    .toLowerCase();
  return /^[a-z0-9.-]+$/.test(domain) && domain.includes(".") ? domain : "localhost";
}

/** `<{local}@{sender's domain}>`; a random local part unless the caller needs a stable one. */
export function messageIdFor(fromEmail: string, local: string = randomUUID()): string {
  return `<${local}@${domainOf(fromEmail)}>`;
}

/**
 * RFC 2919 List-Id: `"Name" <list.tenant.host>`. The tenant is part of the id because tenants
 * without a domain of their own share APP_URL's host.
 */
export function listIdHeader(
  list: { key: string; name: string },
  tenantId: string,
  origin: string,
): string {
  const label = (value: string) =>
    value
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, "-")
      .replace(/^-+|-+$/g, "") || "list";
  let host = "localhost";
  try {
    host = new URL(origin).hostname || host;
  } catch {}
  const phrase = list.name.replace(/["\\\r\n]/g, "").slice(0, 100);
  return `"${phrase}" <${label(list.key)}.${label(tenantId)}.${host}>`;
}

/** `Reply-To` when there is an address for it (the campaign's, else the tenant's); else nothing. */
export function replyToHeader(address: string | null | undefined): Record<string, string> {
  const value = address?.trim();
  return value ? { "Reply-To": value } : {};
}
