import type { Db } from "../db";
import { createRateLimit } from "../http/rate-limit";
import type { Logger } from "../logger";
import { decoyHash, verifyPassword } from "./password";
import type { StaffUser } from "./permissions";
import { toStaffUser } from "./permissions";
import { createSession } from "./sessions";
import { findUserByEmail, normaliseEmail } from "./users";

export const SIGN_IN_FAILED = "Failed to sign in. Please check your credentials.";
export const SIGN_IN_LIMITED = "Too many sign-in attempts. Please wait 15 minutes and try again.";

// Per address: enough for a team behind one NAT; per account: stops guessing one password.
const perAddress = createRateLimit({ points: 30, windowSeconds: 15 * 60 });
const perAccount = createRateLimit({ points: 5, windowSeconds: 15 * 60 });

export type SignInResult =
  | { ok: true; user: StaffUser; token: string; expiresAt: Date }
  | { ok: false; error: string; limited: boolean };

/** Checks the credentials under both rate limits and starts a session. */
export async function signIn(
  ctx: { db: Db; logger: Logger; clientAddress: string },
  input: { email: string; password: string },
): Promise<SignInResult> {
  const email = normaliseEmail(input.email);
  const accountKey = `account:${email}`;
  const addressKey = `address:${ctx.clientAddress}`;
  if (!(await perAddress.take(addressKey)) || (await perAccount.isExhausted(accountKey))) {
    ctx.logger.warn({ code: "auth/too-many-requests", email }, "sign-in rate-limited");
    return { ok: false, error: SIGN_IN_LIMITED, limited: true };
  }
  const row = await findUserByEmail(ctx.db, email);
  // Unknown users cost the same time as wrong passwords, so timing does not reveal accounts.
  const valid = await verifyPassword(input.password, row?.password_hash ?? (await decoyHash()));
  if (!row || !valid) {
    await perAccount.take(accountKey);
    ctx.logger.warn(
      { code: row ? "auth/wrong-password" : "auth/user-not-found", email },
      "sign-in failed",
    );
    return { ok: false, error: SIGN_IN_FAILED, limited: false };
  }
  await perAccount.reset(accountKey);
  // Only failures count against an address: staff behind one office NAT all sign in each morning.
  await perAddress.refund(addressKey);
  const session = await createSession(ctx.db, row.id);
  return { ok: true, user: toStaffUser(row), ...session };
}
