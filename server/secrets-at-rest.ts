import { accountsWithOldRecoveryCodes } from "./auth/two-factor";
import { resealTotpSecrets } from "./auth/users";
import type { Db } from "./db";
import { crossTenant } from "./db/tenant-guard";
import { resealLinkedInTokens } from "./linkedin/connections";
import { resealWebhookSecrets } from "./providers/mailerlite-webhook";
import { type Reseal, sealedKeyId } from "./secret-box";
import { resealDkimKeys } from "./tenants/dkim";

/** How many values each table had sealed anew. */
export interface Resealed {
  totpSecrets: number;
  webhookSecrets: number;
  dkimKeys: number;
  linkedInTokens: number;
}

/**
 * Seals kept secrets, one transaction per table, through each table's writer module: at every
 * start ("plaintext", after the migrations: a migration cannot reach the key) rows kept in
 * plaintext by an older version; with "rotate" (`herald secrets rotate`, after an operator set a
 * new HERALD_SECRET_KEY and kept the old one as previous) also those sealed under a previous key.
 * Idempotent.
 */
export async function resealStoredSecrets(db: Db, which: Reseal): Promise<Resealed> {
  return {
    totpSecrets: await resealTotpSecrets(db, which),
    webhookSecrets: await resealWebhookSecrets(db, which),
    dkimKeys: await resealDkimKeys(db, which),
    linkedInTokens: await resealLinkedInTokens(db, which),
  };
}

export { accountsWithOldRecoveryCodes };

/**
 * The ids of the keys that the secrets kept in `db` were sealed (or, recovery codes, digested)
 * under: what a copy of the database needs beside it to be whole (a backup's manifest). The list
 * of kept secrets is the one resealStoredSecrets walks.
 */
export async function keyIdsInUse(db: Db): Promise<string[]> {
  const ids = new Set<string>();
  const add = (stored: string | null) => {
    const id = stored ? sealedKeyId(stored) : null;
    if (id) ids.add(id);
  };
  const users = await db
    .selectFrom("users")
    .select(["totp_secret", "recovery_codes"])
    .where((eb) => eb.or([eb("totp_secret", "is not", null), eb("recovery_codes", "is not", null)]))
    .execute();
  for (const user of users) {
    add(user.totp_secret);
    for (const code of JSON.parse(user.recovery_codes ?? "[]") as string[]) {
      // h1.<keyId>.<mac>: a digest under a key (older plain SHA-256 codes name none)
      const [prefix, keyId] = code.split(".");
      if (prefix === "h1" && keyId) ids.add(keyId);
    }
  }
  for (const row of await crossTenant(db).selectFrom("dkim_keys").select("private_key").execute()) {
    add(row.private_key);
  }
  for (const row of await crossTenant(db)
    .selectFrom("webhook_secrets")
    .select("secret")
    .execute()) {
    add(row.secret);
  }
  for (const row of await crossTenant(db)
    .selectFrom("linkedin_connections")
    .select("tokens")
    .execute()) {
    add(row.tokens);
  }
  return [...ids].sort();
}
