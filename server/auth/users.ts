import { randomUUID } from "node:crypto";
import type { Db } from "../db";
import type { UserRow } from "../db/schema";
import { getSecretBox, type Reseal, resealAll, type SealedAt } from "../secret-box";
import { COMMON_PASSWORD_MESSAGE, hashPassword, isCommonPassword } from "./password";
import { type Products, type StaffUser, toStaffUser } from "./permissions";

export { MIN_PASSWORD_LENGTH } from "../../shared/schemas/staff";

import { MIN_PASSWORD_LENGTH } from "../../shared/schemas/staff";
import { revokeApiTokensOf } from "./api-tokens";
import { endSessionsOf } from "./sessions";

export class UserError extends Error {
  constructor(
    message: string,
    readonly field?: "email" | "password" | "role",
  ) {
    super(message);
  }
}

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

async function checkPassword(password: string) {
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw new UserError(`Password must be at least ${MIN_PASSWORD_LENGTH} characters.`, "password");
  }
  if (password.length > 200)
    throw new UserError("Password must be at most 200 characters.", "password");
  if (await isCommonPassword(password)) throw new UserError(COMMON_PASSWORD_MESSAGE, "password");
}

export async function countUsers(db: Db): Promise<number> {
  const row = await db
    .selectFrom("users")
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

export async function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  return db
    .selectFrom("users")
    .selectAll()
    .where("email", "=", normaliseEmail(email))
    .executeTakeFirst();
}

export async function getUser(db: Db, id: string): Promise<StaffUser | null> {
  const row = await db.selectFrom("users").selectAll().where("id", "=", id).executeTakeFirst();
  return row ? toStaffUser(row) : null;
}

export async function listUsers(db: Db): Promise<StaffUser[]> {
  const rows = await db.selectFrom("users").selectAll().orderBy("email").execute();
  return rows.map(toStaffUser);
}

export async function createUser(
  db: Db,
  input: {
    email: string;
    password: string;
    role: string;
    products?: Products;
    displayName?: string;
  },
): Promise<StaffUser> {
  const email = normaliseEmail(input.email);
  const role = input.role.trim();
  if (!role) throw new UserError("Role is required.", "role");
  await checkPassword(input.password);
  if (await findUserByEmail(db, email))
    throw new UserError("A user with this email already exists.", "email");
  const now = new Date().toISOString();
  const row: UserRow = {
    id: randomUUID(),
    email,
    password_hash: await hashPassword(input.password),
    role,
    products: JSON.stringify(input.products ?? {}),
    created_at: now,
    updated_at: now,
    totp_secret: null,
    totp_enabled_at: null,
    totp_last_step: null,
    recovery_codes: null,
    display_name: input.displayName?.trim() || null,
  };
  try {
    await db.insertInto("users").values(row).execute();
  } catch (error) {
    // Two creations raced past the check above: the unique index decides.
    if (await findUserByEmail(db, email))
      throw new UserError("A user with this email already exists.", "email");
    throw error;
  }
  return toStaffUser(row);
}

/**
 * A new password (a reset by emailed link, by a super admin or on the command line), which signs
 * the user out everywhere and revokes their API tokens. `alongside` runs in the same transaction
 * (spending the reset link that allowed it).
 */
export async function setUserPassword(
  db: Db,
  userId: string,
  password: string,
  alongside?: (trx: Db) => Promise<void>,
): Promise<void> {
  await checkPassword(password);
  const hash = await hashPassword(password);
  await db.transaction().execute(async (trx) => {
    await alongside?.(trx);
    const result = await trx
      .updateTable("users")
      .set({ password_hash: hash, updated_at: new Date().toISOString() })
      .where("id", "=", userId)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) throw new UserError("User not found.");
    // A new password signs the user out everywhere, scripts included (issue 32, finding 13).
    await endSessionsOf(trx, userId);
    await revokeApiTokensOf(trx, userId);
  });
}

export async function updateUserAccess(
  db: Db,
  userId: string,
  input: { role: string; products: Products },
): Promise<void> {
  const role = input.role.trim();
  if (!role) throw new UserError("Role is required.", "role");
  const result = await db
    .updateTable("users")
    .set({ role, products: JSON.stringify(input.products), updated_at: new Date().toISOString() })
    .where("id", "=", userId)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) throw new UserError("User not found.");
}

export async function deleteUser(db: Db, userId: string): Promise<void> {
  await db.deleteFrom("users").where("id", "=", userId).execute();
}

/* Two-factor sign-in (server/auth/two-factor.ts decides; these write the users row). */

/** Where a user's TOTP secret is sealed (server/secret-box.ts): it opens on that user's row only. */
export const totpSecretAt = (userId: string): SealedAt => ({
  table: "users",
  column: "totp_secret",
  row: userId,
});

/** A user's TOTP secret (base32), opened; null without one. */
export function totpSecretOf(row: Pick<UserRow, "id" | "totp_secret">): string | null {
  return row.totp_secret ? getSecretBox().openStored(row.totp_secret, totpSecretAt(row.id)) : null;
}

/** Starts (or restarts) enrolment: the secret waits, unused, until a code confirms it. */
export async function savePendingTotpSecret(db: Db, userId: string, secret: string): Promise<void> {
  const sealed = getSecretBox().seal(secret, totpSecretAt(userId));
  await db
    .updateTable("users")
    .set({ totp_secret: sealed, totp_enabled_at: null, totp_last_step: null, recovery_codes: null })
    .where("id", "=", userId)
    .execute();
}

/** Seals every TOTP secret not sealed under the current key (at start, `herald secrets rotate`). */
export async function resealTotpSecrets(db: Db, which: Reseal): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const rows = await trx
      .selectFrom("users")
      .select(["id", "totp_secret"])
      .where("totp_secret", "is not", null)
      .execute();
    return resealAll(
      which,
      rows,
      (row) => row.totp_secret ?? "",
      (row) => totpSecretAt(row.id),
      async (row, sealed) => {
        await trx
          .updateTable("users")
          .set({ totp_secret: sealed })
          .where("id", "=", row.id)
          .where("totp_secret", "=", row.totp_secret)
          .execute();
      },
    );
  });
}

export async function enableTotp(
  db: Db,
  userId: string,
  input: { step: number; recoveryHashes: string[] },
): Promise<void> {
  const now = new Date().toISOString();
  await db
    .updateTable("users")
    .set({
      totp_enabled_at: now,
      totp_last_step: input.step,
      recovery_codes: JSON.stringify(input.recoveryHashes),
      updated_at: now,
    })
    .where("id", "=", userId)
    .execute();
}

/** Records a code's time step; false when that step (or a later one) was used already. */
export async function acceptTotpStep(db: Db, userId: string, step: number): Promise<boolean> {
  const result = await db
    .updateTable("users")
    .set({ totp_last_step: step })
    .where("id", "=", userId)
    .where((eb) => eb.or([eb("totp_last_step", "is", null), eb("totp_last_step", "<", step)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Spends one recovery code: the first stored digest `matches` accepts; false when none does.
 * Every stored digest is tried (the comparisons are constant-time), so timing tells nothing.
 */
export async function spendRecoveryCode(
  db: Db,
  userId: string,
  matches: (stored: string) => boolean,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom("users")
      .select("recovery_codes")
      .where("id", "=", userId)
      .executeTakeFirst();
    const codes = JSON.parse(row?.recovery_codes ?? "[]") as string[];
    const found = codes.map(matches).indexOf(true);
    if (found < 0) return false;
    const left = JSON.stringify(codes.filter((_, index) => index !== found));
    const result = await trx
      .updateTable("users")
      .set({ recovery_codes: left })
      .where("id", "=", userId)
      .where("recovery_codes", "=", row?.recovery_codes ?? "")
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  });
}

export async function disableTotp(db: Db, userId: string): Promise<void> {
  await db
    .updateTable("users")
    .set({
      totp_secret: null,
      totp_enabled_at: null,
      totp_last_step: null,
      recovery_codes: null,
      updated_at: new Date().toISOString(),
    })
    .where("id", "=", userId)
    .execute();
}

export async function findUserById(db: Db, id: string): Promise<UserRow | undefined> {
  return db.selectFrom("users").selectAll().where("id", "=", id).executeTakeFirst();
}

/** The byline: the name a staff member signs what they write with (blank: none). */
export async function setDisplayName(db: Db, userId: string, name: string): Promise<void> {
  await db
    .updateTable("users")
    .set({ display_name: name.trim() || null, updated_at: new Date().toISOString() })
    .where("id", "=", userId)
    .execute();
}

export async function displayNameOf(db: Db, userId: string): Promise<string | null> {
  return (await findUserById(db, userId))?.display_name ?? null;
}
