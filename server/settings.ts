import type { Db } from "./db";
import { preparedQuery } from "./db/prepared";

/*
 * Installation-wide values (the `settings` table): the one-time setup token's hash, whether staff
 * must use two-factor sign-in. This module is the table's one writer.
 */

// Read on every staff page (whether two-factor sign-in is required).
const settingByKey = preparedQuery<"key", { value: string }>((db, value) =>
  db.selectFrom("settings").select("value").where("key", "=", value("key")),
);

export async function readSetting(db: Db, key: string): Promise<string | null> {
  const [row] = await settingByKey(db, { key });
  return row?.value ?? null;
}

export async function writeSetting(db: Db, key: string, value: string): Promise<void> {
  const updated_at = new Date().toISOString();
  await db
    .insertInto("settings")
    .values({ key, value, updated_at })
    .onConflict((oc) => oc.column("key").doUpdateSet({ value, updated_at }))
    .execute();
}

export async function deleteSetting(db: Db, key: string): Promise<void> {
  await db.deleteFrom("settings").where("key", "=", key).execute();
}

/**
 * Takes `turn` for this caller when `key` holds an earlier one (or nothing): one statement, so of
 * several instances on one database exactly one gets each turn. Turns are texts that sort in time
 * order (ISO times). Whether this caller got it.
 */
export async function claimSettingTurn(db: Db, key: string, turn: string): Promise<boolean> {
  const updated_at = new Date().toISOString();
  const row = await db
    .insertInto("settings")
    .values({ key, value: turn, updated_at })
    .onConflict((oc) =>
      oc.column("key").doUpdateSet({ value: turn, updated_at }).where("settings.value", "<", turn),
    )
    .returning("key")
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Records `key` as used until `until` (an ISO time) unless it is already: one statement, so of two
 * requests at once exactly one gets it. Whether this caller did. Keys of `prefix` whose time has
 * passed are dropped first (a LinkedIn OAuth state: issue 44, finding 9).
 */
export async function claimOnce(
  db: Db,
  prefix: string,
  key: string,
  until: string,
): Promise<boolean> {
  const now = new Date().toISOString();
  await db
    .deleteFrom("settings")
    .where("key", "like", `${prefix}%`)
    .where("value", "<", now)
    .execute();
  const row = await db
    .insertInto("settings")
    .values({ key: `${prefix}${key}`, value: until, updated_at: now })
    .onConflict((oc) => oc.column("key").doNothing())
    .returning("key")
    .executeTakeFirst();
  return row !== undefined;
}
