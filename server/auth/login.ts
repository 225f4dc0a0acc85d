import type { Db } from "../db";
import { createRateLimit } from "../http/rate-limit";
import type { Logger } from "../logger";
import { decoyHash, verifyPassword } from "./password";
import type { StaffUser } from "./permissions";
import { toStaffUser } from "./permissions";
import { createSession } from "./sessions";
import { verifySecondFactor } from "./two-factor";
import { findUserByEmail, getUser, normaliseEmail } from "./users";

export const SIGN_IN_FAILED = "Failed to sign in. Please check your credentials.";
export const SIGN_IN_LIMITED = "Too many sign-in attempts. Please wait 15 minutes and try again.";

/*
 * Failures are throttled where they come from, never on the account alone (OWASP's authentication
 * guidance; issue 14): an account locked after five failures from anywhere let anyone lock the
 * owner out. Per address: 30 failures in 15 minutes, enough for a team behind one NAT. Per account
 * and address: after 5 failures in a row that pair waits 1 minute, then 2, 4, 8, up to 15 — so
 * guessing one password from one place slows to a crawl while the owner signs in from theirs.
 */
const perAddress = createRateLimit({ name: "sign-in-address", points: 30, windowSeconds: 15 * 60 });
/** failures in a row of one account from one address, forgotten on success or after a day */
const pairFailures = createRateLimit({
  name: "sign-in-failures",
  points: 1_000_000,
  windowSeconds: 24 * 60 * 60,
});
const pairBlocked = createRateLimit({ name: "sign-in-wait", points: 1, windowSeconds: 1 });
const FREE_FAILURES = 5;
const MAX_WAIT_SECONDS = 15 * 60;

/** The wait after the `failures`th failure in a row of one account from one address. */
export function waitAfterFailures(failures: number): number {
  if (failures < FREE_FAILURES) return 0;
  return Math.min(MAX_WAIT_SECONDS, 60 * 2 ** (failures - FREE_FAILURES));
}

export type SignInResult =
  | { ok: true; user: StaffUser; token: string; expiresAt: Date }
  /** the password was right; the account asks for its second factor before a session starts */
  | { ok: "second-factor"; userId: string }
  | { ok: false; error: string; limited: boolean };

/** Checks the credentials under both rate limits and starts a session. */
export async function signIn(
  ctx: { db: Db; logger: Logger; clientAddress: string },
  input: { email: string; password: string },
): Promise<SignInResult> {
  const email = normaliseEmail(input.email);
  const pairKey = `${email}|${ctx.clientAddress}`;
  const addressKey = `address:${ctx.clientAddress}`;
  if ((await pairBlocked.isExhausted(pairKey)) || !(await perAddress.take(addressKey))) {
    ctx.logger.warn({ code: "auth/too-many-requests", email }, "sign-in rate-limited");
    return { ok: false, error: SIGN_IN_LIMITED, limited: true };
  }
  const row = await findUserByEmail(ctx.db, email);
  // Unknown users cost the same time as wrong passwords, so timing does not reveal accounts.
  const valid = await verifyPassword(input.password, row?.password_hash ?? (await decoyHash()));
  if (!row || !valid) {
    await pairFailures.take(pairKey);
    const wait = waitAfterFailures(await pairFailures.count(pairKey));
    if (wait > 0) await pairBlocked.blockFor(pairKey, wait);
    ctx.logger.warn(
      { code: row ? "auth/wrong-password" : "auth/user-not-found", email },
      "sign-in failed",
    );
    return { ok: false, error: SIGN_IN_FAILED, limited: false };
  }
  await pairFailures.reset(pairKey);
  // Only failures count against an address: staff behind one office NAT all sign in each morning.
  await perAddress.refund(addressKey);
  if (row.totp_enabled_at) return { ok: "second-factor", userId: row.id };
  const session = await createSession(ctx.db, row.id);
  return { ok: true, user: toStaffUser(row), ...session };
}

export const SECOND_FACTOR_FAILED = "That code is not right. Try the current one from your app.";
export const SECOND_FACTOR_LIMITED = "Too many codes tried. Please wait 5 minutes and try again.";

/** Codes tried per account: 5 in 5 minutes, so six digits cannot be guessed through the form. */
const secondFactorTries = createRateLimit({ name: "two-factor", points: 5, windowSeconds: 5 * 60 });

/** The second step of sign-in: a code (or a recovery code) for the account the challenge names. */
export async function signInSecondStep(
  ctx: { db: Db; logger: Logger },
  input: { userId: string; code: string },
): Promise<SignInResult> {
  if (!(await secondFactorTries.take(input.userId))) {
    ctx.logger.warn({ code: "auth/too-many-codes", userId: input.userId }, "2fa rate-limited");
    return { ok: false, error: SECOND_FACTOR_LIMITED, limited: true };
  }
  if (!(await verifySecondFactor(ctx.db, input.userId, input.code))) {
    ctx.logger.warn({ code: "auth/wrong-code", userId: input.userId }, "2fa code refused");
    return { ok: false, error: SECOND_FACTOR_FAILED, limited: false };
  }
  await secondFactorTries.reset(input.userId);
  const user = await getUser(ctx.db, input.userId);
  if (!user) return { ok: false, error: SIGN_IN_FAILED, limited: false };
  return { ok: true, user, ...(await createSession(ctx.db, input.userId)) };
}
