import { createPrivateKey, type KeyObject } from "node:crypto";
import type { Db } from "../db";
import type { DkimKeysTable } from "../db/schema";
import { tenantDb } from "../db/tenant-guard";
import { MiB, memoryCache, stringBytes } from "../memory-cache";
import { getSecretBox, type SealedAt } from "../secret-box";
import type { DkimSigner } from "./dkim-sign";

/** A tenant's signing key as the transport takes it (OutgoingMessage.dkim; server/mail/dkim-sign.ts). */
export type DkimSigningKey = DkimSigner;

/**
 * Where a private key is sealed (server/secret-box.ts): the tenant, selector and domain name the
 * key (not its status, which a rotation changes), so it opens for that key only.
 */
export const dkimPrivateKeyAt = (
  row: Pick<DkimKeysTable, "tenant_id" | "selector" | "domain">,
): SealedAt => ({
  table: "dkim_keys",
  column: "private_key",
  row: `${row.tenant_id}/${row.selector}/${row.domain}`,
});

/**
 * Parsed keys by stored value: opening and parsing a PEM for every message would cost as much as
 * signing it. A key is a few KB in memory; 1 MiB holds some hundreds, the least recently used out.
 */
const parsedKeys = memoryCache<string, KeyObject>({
  maxBytes: MiB,
  bytesOf: (key, cacheKey) =>
    stringBytes(cacheKey) + (key.asymmetricKeyDetails?.modulusLength ?? 2048),
});

/**
 * The key that signs a tenant's mail now; undefined without one (the
 * mail goes out unsigned). Read at send time, so a rotation or removal applies to the next message.
 */
export async function dkimSigningKey(
  root: Db,
  tenantId: string | null,
): Promise<DkimSigningKey | undefined> {
  if (!tenantId) return undefined;
  const row = await tenantDb(root, tenantId)
    .selectFrom("dkim_keys")
    .select(["selector", "domain", "algorithm", "private_key"])
    .where("status", "=", "active")
    .executeTakeFirst();
  if (!row) return undefined;
  // Opened and parsed once per key and place.
  const cacheKey = `${tenantId}\n${row.selector}\n${row.domain}\n${row.private_key}`;
  let privateKey = parsedKeys.get(cacheKey);
  if (!privateKey) {
    const pem = getSecretBox().openStored(
      row.private_key,
      dkimPrivateKeyAt({ tenant_id: tenantId, selector: row.selector, domain: row.domain }),
    );
    privateKey = createPrivateKey(pem);
    parsedKeys.set(cacheKey, privateKey);
  }
  return {
    algorithm: row.algorithm,
    domainName: row.domain,
    keySelector: row.selector,
    privateKey,
  };
}
