import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { Db } from "../db";
import type { StaffUser } from "./permissions";
import { toStaffUser } from "./permissions";

/** API tokens start with this, so a token is told apart from a session token at a glance. */
export const API_TOKEN_PREFIX = "hrld_";
/** last_used_at is written at most this often per token, not on every call. */
const LAST_USED_RESOLUTION_MS = 60_000;

const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

export interface ApiTokenView {
  id: string;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  ownerEmail: string;
}

/** Creates a token acting as `user`; the token is returned once and only its hash is kept. */
export async function createApiToken(
  db: Db,
  user: StaffUser,
  name: string,
): Promise<{ token: string; id: string }> {
  const token = `${API_TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
  const id = randomUUID();
  await db
    .insertInto("api_tokens")
    .values({
      id,
      name,
      token_hash: hashToken(token),
      user_id: user.id,
      created_at: new Date().toISOString(),
      last_used_at: null,
      revoked_at: null,
    })
    .execute();
  return { token, id };
}

export async function listApiTokens(db: Db): Promise<ApiTokenView[]> {
  const rows = await db
    .selectFrom("api_tokens")
    .innerJoin("users", "users.id", "api_tokens.user_id")
    .select([
      "api_tokens.id",
      "api_tokens.name",
      "api_tokens.created_at",
      "api_tokens.last_used_at",
      "api_tokens.revoked_at",
      "users.email",
    ])
    .orderBy("api_tokens.created_at", "desc")
    .execute();
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
    ownerEmail: row.email,
  }));
}

/** Revokes a token at once; true when there was a live token with that id. */
export async function revokeApiToken(db: Db, id: string): Promise<boolean> {
  const result = await db
    .updateTable("api_tokens")
    .set({ revoked_at: new Date().toISOString() })
    .where("id", "=", id)
    .where("revoked_at", "is", null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The user a live API token acts as (with that user's current role), or null. */
export async function getApiTokenUser(
  db: Db,
  token: string,
): Promise<{ user: StaffUser; tokenName: string } | null> {
  if (!token.startsWith(API_TOKEN_PREFIX) || token.length > 100) return null;
  const row = await db
    .selectFrom("api_tokens")
    .innerJoin("users", "users.id", "api_tokens.user_id")
    .selectAll("users")
    .select([
      "api_tokens.id as token_id",
      "api_tokens.name as token_name",
      "api_tokens.last_used_at",
      "api_tokens.revoked_at",
    ])
    .where("api_tokens.token_hash", "=", hashToken(token))
    .executeTakeFirst();
  if (!row || row.revoked_at) return null;
  const now = new Date();
  if (!row.last_used_at || now.getTime() - Date.parse(row.last_used_at) > LAST_USED_RESOLUTION_MS) {
    await db
      .updateTable("api_tokens")
      .set({ last_used_at: now.toISOString() })
      .where("id", "=", row.token_id)
      .execute();
  }
  return { user: toStaffUser(row), tokenName: row.token_name };
}
