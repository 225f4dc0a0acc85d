import type { Db } from "../db";
import { createRateLimit } from "../http/rate-limit";
import type { Logger } from "../logger";
import { decoyHash, verifyPassword } from "./password";
import type { StaffUser } from "./permissions";
import { toStaffUser } from "./permissions";
import { createSession } from "./sessions";
import { CHALLENGE_LIFETIME_MS, type Challenge, verifySecondFactor } from "./two-factor";
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
export const SECOND_FACTOR_LIMITED = "Too many codes tried. Please wait 15 minutes and try again.";

/*
 * Guessing the second step is limited where it comes from, never on the account alone (issue 32,
 * finding 10: five wrong codes per account from anywhere let anyone who knew the password lock
 * the owner out). A challenge dies after 5 wrong codes, so guessing on needs the password step
 * again, itself throttled per address; codes are limited per account and address (10 in 15
 * minutes) and per address (30 in 15 minutes). The owner, elsewhere, is never held by either.
 * Decision 024.
 */
const CHALLENGE_TRIES = 5;
const challengeFailures = createRateLimit({
  name: "two-factor-challenge",
  points: CHALLENGE_TRIES,
  windowSeconds: CHALLENGE_LIFETIME_MS / 1000,
});
/** A challenge that started a session (issue 32, finding 16): single use, within its lifetime. */
const challengeSpent = createRateLimit({
  name: "two-factor-challenge-spent",
  points: 1,
  windowSeconds: CHALLENGE_LIFETIME_MS / 1000,
});
const codesPerPair = createRateLimit({
  name: "two-factor-pair",
  points: 10,
  windowSeconds: 15 * 60,
});
const codesPerAddress = createRateLimit({
  name: "two-factor-address",
  points: 30,
  windowSeconds: 15 * 60,
});

export type SecondStepResult =
  | SignInResult
  /** the challenge was used up (spent, or too many wrong codes): back to the password step */
  | { ok: "challenge-dead" };

/** The second step of sign-in: a code (or a recovery code) for the account the challenge names. */
export async function signInSecondStep(
  ctx: { db: Db; logger: Logger; clientAddress: string },
  input: { challenge: Challenge; code: string },
): Promise<SecondStepResult> {
  const { userId, id } = input.challenge;
  if ((await challengeSpent.isExhausted(id)) || (await challengeFailures.isExhausted(id))) {
    return { ok: "challenge-dead" };
  }
  const pairKey = `${userId}|${ctx.clientAddress}`;
  const addressKey = `address:${ctx.clientAddress}`;
  if (!(await codesPerPair.take(pairKey)) || !(await codesPerAddress.take(addressKey))) {
    ctx.logger.warn({ code: "auth/too-many-codes", userId }, "2fa rate-limited");
    return { ok: false, error: SECOND_FACTOR_LIMITED, limited: true };
  }
  if (!(await verifySecondFactor(ctx.db, userId, input.code))) {
    await challengeFailures.take(id);
    ctx.logger.warn({ code: "auth/wrong-code", userId }, "2fa code refused");
    return { ok: false, error: SECOND_FACTOR_FAILED, limited: false };
  }
  // Only failures count; and the challenge is spent, so a copy of the cookie starts nothing.
  await codesPerPair.reset(pairKey);
  await codesPerAddress.refund(addressKey);
  if (!(await challengeSpent.take(id))) return { ok: "challenge-dead" };
  const user = await getUser(ctx.db, userId);
  if (!user) return { ok: false, error: SIGN_IN_FAILED, limited: false };
  return { ok: true, user, ...(await createSession(ctx.db, userId)) };
}
