import type { Db } from "../db";
import { tenantDb } from "../db/tenant-guard";
import { limitRefusal } from "../tenants/usage";
import { chunks } from "./store";

/*
 * The limits an import meets before it writes anything (decision 057): another import while the
 * tenant's imports at once are running, and more new addresses than its subscriber limit leaves.
 */

/** The refusal of a new import while the tenant's imports at once are queued or running. */
export function importsAtOnceRefusal(db: Db, tenantId: string): Promise<string | null> {
  return limitRefusal(db, tenantId, "importsAtOnce", 1);
}

/**
 * The refusal when the addresses new to the tenant among `emails` would pass its subscriber
 * limit (addresses it has already are only updated, so they do not count).
 */
export async function newSubscribersRefusal(
  root: Db,
  tenantId: string,
  emails: readonly string[],
): Promise<string | null> {
  // Nothing new can pass a limit the tenant has not reached with nothing added; with no limit
  // this answers without counting.
  const reached = await limitRefusal(root, tenantId, "subscribers", 0);
  if (reached !== null) return reached;
  if ((await limitRefusal(root, tenantId, "subscribers", emails.length)) === null) return null;
  const db = tenantDb(root, tenantId);
  const unique = [...new Set(emails)];
  let known = 0;
  for (const part of chunks(unique)) {
    const row = await db
      .selectFrom("subscribers")
      .select((eb) => eb.fn.countAll<number | string>().as("n"))
      .where("email", "in", part)
      .executeTakeFirst();
    known += Number(row?.n ?? 0);
  }
  return limitRefusal(root, tenantId, "subscribers", unique.length - known);
}
