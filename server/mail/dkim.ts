import { createPrivateKey, type KeyObject } from "node:crypto";
import type { Db } from "../db";
import type { DkimKeysTable } from "../db/schema";
import { tenantDb } from "../db/tenant-guard";
import { MiB, memoryCache, stringBytes } from "../memory-cache";
import { getSecretBox, type SealedAt } from "../secret-box";
import type { DkimSigner } from "./dkim-sign";

/**
 * A tenant's signing keys as the transport takes them (OutgoingMessage.dkim;
 * server/mail/dkim-sign.ts): its active RSA key, then its active Ed25519 key, either alone or both
 * (docs/decisions/049-dkim-both-ways.md). The message carries one DKIM-Signature per key, the RSA
 * one on top.
 */
export type DkimSigningKey = readonly DkimSigner[];

/** RSA before Ed25519: the order of the signatures in the message, topmost first. */
const SIGNING_ORDER = { rsa: 0, ed25519: 1 } as const;

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
 * The keys that sign a tenant's mail now (one per algorithm); undefined without any (the mail goes
 * out unsigned). Read at send time, so a rotation or removal applies to the next message.
 */
export async function dkimSigningKey(
  root: Db,
  tenantId: string | null,
): Promise<DkimSigningKey | undefined> {
  if (!tenantId) return undefined;
  const rows = await tenantDb(root, tenantId)
    .selectFrom("dkim_keys")
    .select(["selector", "domain", "algorithm", "private_key"])
    .where("status", "=", "active")
    .execute();
  if (rows.length === 0) return undefined;
  return rows
    .sort((a, b) => SIGNING_ORDER[a.algorithm] - SIGNING_ORDER[b.algorithm])
    .map((row) => ({
      algorithm: row.algorithm,
      domainName: row.domain,
      keySelector: row.selector,
      privateKey: parsedKey(tenantId, row),
    }));
}

/** The key as a KeyObject: opened and parsed once per key and place. */
function parsedKey(
  tenantId: string,
  row: Pick<DkimKeysTable, "selector" | "domain" | "private_key">,
): KeyObject {
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
  return privateKey;
}
