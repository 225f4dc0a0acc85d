import { createHash, randomBytes } from "node:crypto";
import type { Db } from "../db";
import { preparedQuery } from "../db/prepared";
import type { UserRow } from "../db/schema";
import type { StaffUser } from "./permissions";
import { toStaffUser } from "./permissions";

export const SESSION_COOKIE = "herald_session";
export const SESSION_LIFETIME_MS = 14 * 24 * 60 * 60 * 1000;

const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

/** Starts a session; the cookie carries the random token, the database only its hash. */
export async function createSession(
  db: Db,
  userId: string,
): Promise<{ token: string; expiresAt: Date }> {
  const token = randomBytes(32).toString("base64url");
  const now = new Date();
  const expiresAt = new Date(now.getTime() + SESSION_LIFETIME_MS);
  await db
    .insertInto("sessions")
    .values({
      token_hash: hashToken(token),
      user_id: userId,
      created_at: now.toISOString(),
      expires_at: expiresAt.toISOString(),
    })
    .execute();
  return { token, expiresAt };
}

type SessionUserRow = UserRow & { expires_at: string };

// Every signed-in request runs it.
const sessionUserByHash = preparedQuery<"hash", SessionUserRow>((db, value) =>
  db
    .selectFrom("sessions")
    .innerJoin("users", "users.id", "sessions.user_id")
    .selectAll("users")
    .select("sessions.expires_at")
    .where("sessions.token_hash", "=", value("hash")),
);

/** The user a session token belongs to, or null when it is unknown or expired. */
export async function getSessionUser(db: Db, token: string | null): Promise<StaffUser | null> {
  if (!token || token.length > 100) return null;
  const [row] = await sessionUserByHash(db, { hash: hashToken(token) });
  if (!row || row.expires_at <= new Date().toISOString()) return null;
  return toStaffUser(row);
}

export async function deleteSession(db: Db, token: string | null): Promise<void> {
  if (!token) return;
  await db.deleteFrom("sessions").where("token_hash", "=", hashToken(token)).execute();
}

/** Signs a staff member out everywhere (a new password, a removed account). */
export async function endSessionsOf(db: Db, userId: string): Promise<void> {
  await db.deleteFrom("sessions").where("user_id", "=", userId).execute();
}

/** Signs a staff member out everywhere but the session `keepToken` (which may be null: none kept). */
export async function endOtherSessionsOf(
  db: Db,
  userId: string,
  keepToken: string | null,
): Promise<void> {
  let query = db.deleteFrom("sessions").where("user_id", "=", userId);
  if (keepToken) query = query.where("token_hash", "!=", hashToken(keepToken));
  await query.execute();
}

/** Deletes the sessions that expired by `now` (the hourly purge, server/jobs/purge.ts); how many. */
export async function deleteExpiredSessions(db: Db, now = new Date()): Promise<number> {
  const result = await db
    .deleteFrom("sessions")
    .where("expires_at", "<=", now.toISOString())
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

export function readCookieHeader(header: string | null, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(";")) {
    const index = part.indexOf("=");
    if (index > 0 && part.slice(0, index).trim() === name) {
      try {
        return decodeURIComponent(part.slice(index + 1).trim());
      } catch {
        return null;
      }
    }
  }
  return null;
}

/** The Set-Cookie value for a session (or for clearing it, with token null). */
export function sessionCookie(
  token: string | null,
  options: { secure: boolean; expiresAt?: Date },
): string {
  const parts = [`${SESSION_COOKIE}=${token ?? ""}`, "Path=/", "HttpOnly", "SameSite=Lax"];
  if (options.secure) parts.push("Secure");
  if (token && options.expiresAt) parts.push(`Expires=${options.expiresAt.toUTCString()}`);
  if (!token) parts.push("Max-Age=0");
  return parts.join("; ");
}
