import { createHash, randomBytes, randomUUID } from "node:crypto";
import {
  allowedTokenLifetimes,
  TOKEN_SCOPES,
  type TokenScope,
} from "../../shared/schemas/api-tokens";
import type { Db } from "../db";
import { readSetting, writeSetting } from "../settings";
import type { StaffUser } from "./permissions";
import { toStaffUser } from "./permissions";

const MAX_LIFETIME_KEY = "api_token_max_days";
const DAY_MS = 86_400_000;

/** The longest lifetime a super admin allows API tokens, in days; 0 = no maximum. */
export async function maxTokenLifetimeDays(db: Db): Promise<number> {
  const days = Number(await readSetting(db, MAX_LIFETIME_KEY));
  return Number.isInteger(days) && days > 0 ? days : 0;
}

export async function setMaxTokenLifetimeDays(db: Db, days: number): Promise<void> {
  await writeSetting(db, MAX_LIFETIME_KEY, String(Math.max(days, 0)));
}

/** An asked-for lifetime that the installation's longest lifetime does not allow. */
export class TokenLifetimeError extends Error {}

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
  expiresAt: string | null;
  scopes: TokenScope[];
  ownerEmail: string;
}

/** A stored scopes column as scopes; anything unknown is dropped (never widened). */
function scopesOf(column: string): TokenScope[] {
  try {
    const parsed: unknown = JSON.parse(column);
    return Array.isArray(parsed) ? TOKEN_SCOPES.filter((scope) => parsed.includes(scope)) : [];
  } catch {
    return [];
  }
}

/**
 * Creates a token acting as `user`, with `scopes` (least privilege: `read` unless more are asked
 * for) and an expiry (`lifetimeDays`, 0 = never); the token is returned once, only its hash kept.
 */
export async function createApiToken(
  db: Db,
  user: StaffUser,
  name: string,
  options: { scopes?: readonly TokenScope[]; lifetimeDays?: number } = {},
): Promise<{ token: string; id: string }> {
  const now = new Date();
  const days = options.lifetimeDays ?? 0;
  const maxDays = await maxTokenLifetimeDays(db);
  if (!allowedTokenLifetimes(maxDays).includes(days)) {
    throw new TokenLifetimeError(
      `Tokens may live at most ${maxDays} days here: choose an expiry within that.`,
    );
  }
  const token = `${API_TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
  const id = randomUUID();
  await db
    .insertInto("api_tokens")
    .values({
      id,
      name,
      token_hash: hashToken(token),
      user_id: user.id,
      created_at: now.toISOString(),
      last_used_at: null,
      revoked_at: null,
      scopes: JSON.stringify(options.scopes?.length ? options.scopes : ["read"]),
      expires_at: days > 0 ? new Date(now.getTime() + days * DAY_MS).toISOString() : null,
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
      "api_tokens.expires_at",
      "api_tokens.scopes",
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
    expiresAt: row.expires_at,
    scopes: scopesOf(row.scopes),
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

/**
 * Revokes every live token acting as `userId`: a password reset ends them with the sessions
 * (issue 32, finding 13), in the reset's transaction.
 */
export async function revokeApiTokensOf(db: Db, userId: string): Promise<void> {
  await db
    .updateTable("api_tokens")
    .set({ revoked_at: new Date().toISOString() })
    .where("user_id", "=", userId)
    .where("revoked_at", "is", null)
    .execute();
}

/**
 * When a token stops working: its own expiry, or sooner under the longest lifetime allowed now;
 * under a maximum, a token made to never expire does not work at all (issue 32, finding 13).
 */
function effectiveExpiry(row: { created_at: string; expires_at: string | null }, maxDays: number) {
  if (maxDays > 0 && !row.expires_at) return Number.NEGATIVE_INFINITY;
  const own = row.expires_at ? Date.parse(row.expires_at) : Number.POSITIVE_INFINITY;
  const cap =
    maxDays > 0 ? Date.parse(row.created_at) + maxDays * DAY_MS : Number.POSITIVE_INFINITY;
  return Math.min(own, cap);
}

/** The user a live, unexpired API token acts as (with that user's current role) and its scopes, or null. */
export async function getApiTokenUser(
  db: Db,
  token: string,
): Promise<{ user: StaffUser; tokenName: string; scopes: TokenScope[] } | null> {
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
      "api_tokens.expires_at",
      "api_tokens.created_at as token_created_at",
      "api_tokens.scopes as token_scopes",
    ])
    .where("api_tokens.token_hash", "=", hashToken(token))
    .executeTakeFirst();
  if (!row || row.revoked_at) return null;
  const now = new Date();
  // A maximum set later applies to tokens made before it.
  const maxDays = await maxTokenLifetimeDays(db);
  const expiry = effectiveExpiry(
    { created_at: row.token_created_at, expires_at: row.expires_at },
    maxDays,
  );
  if (expiry <= now.getTime()) return null;
  if (!row.last_used_at || now.getTime() - Date.parse(row.last_used_at) > LAST_USED_RESOLUTION_MS) {
    await db
      .updateTable("api_tokens")
      .set({ last_used_at: now.toISOString() })
      .where("id", "=", row.token_id)
      .execute();
  }
  return { user: toStaffUser(row), tokenName: row.token_name, scopes: scopesOf(row.token_scopes) };
}
