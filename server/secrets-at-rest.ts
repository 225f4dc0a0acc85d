import { accountsWithOldRecoveryCodes } from "./auth/two-factor";
import { resealTotpSecrets } from "./auth/users";
import type { Db } from "./db";
import { resealWebhookSecrets } from "./providers/mailerlite-webhook";
import type { Reseal } from "./secret-box";
import { resealDkimKeys } from "./tenants/dkim";

/** How many values each table had sealed anew. */
export interface Resealed {
  totpSecrets: number;
  webhookSecrets: number;
  dkimKeys: number;
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
  };
}

export { accountsWithOldRecoveryCodes };
