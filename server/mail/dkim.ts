import { createPrivateKey, type KeyObject } from "node:crypto";
import type { Db } from "../db";
import type { DkimSigner } from "./dkim-sign";

/** A tenant's signing key as the transport takes it (OutgoingMessage.dkim; server/mail/dkim-sign.ts). */
export type DkimSigningKey = DkimSigner;

/** Parsed keys by PEM: parsing a PEM for every message would cost as much as signing it. */
const parsedKeys = new Map<string, KeyObject>();

/**
 * The key that signs a tenant's mail now; undefined without one (the
 * mail goes out unsigned). Read at send time, so a rotation or removal applies to the next message.
 */
export async function dkimSigningKey(
  db: Db,
  tenantId: string | null,
): Promise<DkimSigningKey | undefined> {
  if (!tenantId) return undefined;
  const row = await db
    .selectFrom("dkim_keys")
    .select(["selector", "domain", "algorithm", "private_key"])
    .where("tenant_id", "=", tenantId)
    .where("status", "=", "active")
    .executeTakeFirst();
  if (!row) return undefined;
  let privateKey = parsedKeys.get(row.private_key);
  if (!privateKey) {
    if (parsedKeys.size >= 100) parsedKeys.clear();
    privateKey = createPrivateKey(row.private_key);
    parsedKeys.set(row.private_key, privateKey);
  }
  return {
    algorithm: row.algorithm,
    domainName: row.domain,
    keySelector: row.selector,
    privateKey,
  };
}
