import { createHash, createHmac, randomInt, randomUUID, timingSafeEqual } from "node:crypto";
import type { TOTP } from "otpauth";
import type { Db } from "../db";
import { lazy } from "../lazy";
import { getSecretBox } from "../secret-box";
import { signatureMatches } from "../secrets";
import { readSetting, writeSetting } from "../settings";
import { verifyPassword } from "./password";
import { endOtherSessionsOf, endSessionsOf } from "./sessions";
import {
  acceptTotpStep,
  disableTotp,
  enableTotp,
  findUserById,
  savePendingTotpSecret,
  spendRecoveryCode,
  totpSecretOf,
} from "./users";

/*
 * Two-factor sign-in with an authenticator app (TOTP, RFC 6238: SHA-1, 6 digits, 30 s — what every
 * app reads from a QR code), plus ten single-use recovery codes. A code is accepted one step either
 * side of now and only once (the last step used is kept). Issue 14, part 4.
 */

export const RECOVERY_CODE_COUNT = 10;
const PERIOD_SECONDS = 30;
const REQUIRE_KEY = "require_two_factor";

/*
 * Recovery codes: 20 characters of Crockford's base32 (100 bits), shown in groups of five. Only a
 * keyed digest is kept (HMAC under HERALD_SECRET_KEY, bound to the account): a copy of the database
 * alone cannot test guesses. Codes made before (10 hex characters, unsalted SHA-256) still work
 * until spent or replaced by a new enrolment.
 */
const CODE_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";
const CODE_LENGTH = 20;
const CODE_PURPOSE = "recovery-code";
const DIGEST_PREFIX = "h1.";

/** What was typed, as the code it stands for: case, spaces and hyphens ignored; i l → 1, o → 0. */
const normaliseCode = (code: string) =>
  code.replace(/[\s-]/g, "").toLowerCase().replace(/[il]/g, "1").replace(/o/g, "0");

const isCode = (code: string) =>
  code.length === CODE_LENGTH && [...code].every((c) => CODE_ALPHABET.includes(c));
const isLegacyCode = (code: string) => /^[0-9a-f]{10}$/.test(code);

function newRecoveryCode(): string {
  const chars = Array.from({ length: CODE_LENGTH }, () => CODE_ALPHABET[randomInt(32)]).join("");
  return chars.match(/.{5}/g)?.join("-") ?? chars;
}

const digestOf = (userId: string, code: string) =>
  `${DIGEST_PREFIX}${getSecretBox().digest(CODE_PURPOSE, `${userId}\n${code}`)}`;

/** Whether a stored digest (new, or a legacy unsalted SHA-256) is that of `code`. */
function codeMatches(userId: string, code: string, stored: string): boolean {
  if (stored.startsWith(DIGEST_PREFIX)) {
    return (
      isCode(code) &&
      getSecretBox().digestMatches(
        stored.slice(DIGEST_PREFIX.length),
        CODE_PURPOSE,
        `${userId}\n${code}`,
      )
    );
  }
  if (!isLegacyCode(code) || stored.length !== 64) return false;
  const legacy = createHash("sha256").update(code).digest("hex");
  return timingSafeEqual(Buffer.from(legacy), Buffer.from(stored));
}

// Loaded by the first two-factor page or action: most requests never need them.
const loadOtpauth = lazy(() => import("otpauth"));
const loadQrCode = lazy(() => import("qrcode").then((module) => module.default));

async function totpFor(secret: string, label = "", issuer = "Herald"): Promise<TOTP> {
  const { Secret, TOTP } = await loadOtpauth();
  return new TOTP({
    issuer,
    label,
    algorithm: "SHA1",
    digits: 6,
    period: PERIOD_SECONDS,
    secret: Secret.fromBase32(secret),
  });
}

/** The time step a 6-digit code is valid for (now, or one step either side), or null. */
async function stepOf(secret: string, code: string, now = Date.now()): Promise<number | null> {
  const token = code.replace(/\s/g, "");
  if (!/^\d{6}$/.test(token)) return null;
  const delta = (await totpFor(secret)).validate({ token, timestamp: now, window: 1 });
  return delta === null ? null : Math.floor(now / 1000 / PERIOD_SECONDS) + delta;
}

export interface Enrolment {
  /** base32, for typing into an app that cannot scan */
  secret: string;
  uri: string;
  /** the QR code of `uri`, as SVG markup */
  qrSvg: string;
}

/** Starts enrolment: a new secret waits, unused, until confirmEnrolment sees a code from it. */
export async function startEnrolment(
  db: Db,
  user: { id: string; email: string },
  issuer: string,
): Promise<Enrolment> {
  const { Secret } = await loadOtpauth();
  const secret = new Secret({ size: 20 }).base32;
  await savePendingTotpSecret(db, user.id, secret);
  return enrolmentOf(secret, user.email, issuer);
}

/** The QR code and URI of a pending secret (the page shows them again after a wrong code). */
export async function pendingEnrolment(
  db: Db,
  user: { id: string; email: string },
  issuer: string,
): Promise<Enrolment | null> {
  const row = await findUserById(db, user.id);
  const secret = row && !row.totp_enabled_at ? totpSecretOf(row) : null;
  return secret ? enrolmentOf(secret, user.email, issuer) : null;
}

async function enrolmentOf(secret: string, email: string, issuer: string): Promise<Enrolment> {
  const uri = (await totpFor(secret, email, issuer)).toString();
  const qrSvg = await (await loadQrCode()).toString(uri, {
    type: "svg",
    margin: 1,
    errorCorrectionLevel: "M",
  });
  return { secret, uri, qrSvg };
}

/**
 * Turns two-factor sign-in on when `code` comes from the pending secret. Answers the recovery
 * codes, shown once (only their hashes are kept), or null for a wrong code.
 */
export async function confirmEnrolment(
  db: Db,
  userId: string,
  code: string,
): Promise<string[] | null> {
  const row = await findUserById(db, userId);
  const secret = row && !row.totp_enabled_at ? totpSecretOf(row) : null;
  if (!secret) return null;
  const step = await stepOf(secret, code);
  if (step === null) return null;
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  await enableTotp(db, userId, {
    step,
    recoveryHashes: codes.map((code) => digestOf(userId, normaliseCode(code))),
  });
  return codes;
}

export type TurnOnResult =
  | { ok: true; codes: string[] }
  | { ok: false; wrong: "password" | "code" };

/**
 * Turns two-factor sign-in on from the account page (issue 32, finding 9): the account's password
 * as well as a code from the pending secret, as turning it off asks for. The account's other
 * sessions end with it, in one transaction: they began on the password alone. `keepToken` is the
 * session that asked.
 */
export async function turnOnTwoFactor(
  db: Db,
  userId: string,
  input: { code: string; password: string; keepToken: string | null },
): Promise<TurnOnResult> {
  const row = await findUserById(db, userId);
  if (!row) return { ok: false, wrong: "password" };
  // The code first: it costs nothing, where the password check costs a hash.
  const secret = row.totp_enabled_at ? null : totpSecretOf(row);
  if (!secret || (await stepOf(secret, input.code)) === null) {
    return { ok: false, wrong: "code" };
  }
  if (!(await verifyPassword(input.password, row.password_hash))) {
    return { ok: false, wrong: "password" };
  }
  const codes = await db.transaction().execute(async (trx) => {
    const made = await confirmEnrolment(trx, userId, input.code);
    if (made) await endOtherSessionsOf(trx, userId, input.keepToken);
    return made;
  });
  return codes ? { ok: true, codes } : { ok: false, wrong: "code" };
}

/**
 * A super admin (or `herald user reset-2fa`) clears a staff member's second factor when they have
 * lost their phone and recovery codes: secret and codes gone, every session of theirs ended.
 * False when the account had none.
 */
export async function clearSecondFactor(db: Db, userId: string): Promise<boolean> {
  const row = await findUserById(db, userId);
  if (!row?.totp_secret) return false;
  await db.transaction().execute(async (trx) => {
    await disableTotp(trx, userId);
    await endSessionsOf(trx, userId);
  });
  return true;
}

/** The second step of sign-in: a current code from the app, or an unused recovery code. */
export async function verifySecondFactor(db: Db, userId: string, code: string): Promise<boolean> {
  const row = await findUserById(db, userId);
  const secret = row?.totp_enabled_at ? totpSecretOf(row) : null;
  if (!secret) return false;
  const step = await stepOf(secret, code);
  if (step !== null) return acceptTotpStep(db, userId, step);
  const typed = normaliseCode(code);
  if (!isCode(typed) && !isLegacyCode(typed)) return false;
  return spendRecoveryCode(db, userId, (stored) => codeMatches(userId, typed, stored));
}

/**
 * Turns two-factor sign-in off when `proof` is the account's password, a current code from the
 * app or an unused recovery code (which it spends); false, changing nothing, otherwise.
 */
export async function turnOffTwoFactor(db: Db, userId: string, proof: string): Promise<boolean> {
  const row = await findUserById(db, userId);
  if (!row?.totp_enabled_at) return false;
  const proven =
    (await verifyPassword(proof, row.password_hash)) ||
    (await verifySecondFactor(db, userId, proof));
  if (proven) await disableTotp(db, userId);
  return proven;
}

/** The unused recovery codes left (how many). */
export async function recoveryCodesLeft(db: Db, userId: string): Promise<number> {
  const row = await findUserById(db, userId);
  return (JSON.parse(row?.recovery_codes ?? "[]") as string[]).length;
}

export async function twoFactorRequired(db: Db): Promise<boolean> {
  return (await readSetting(db, REQUIRE_KEY)) === "1";
}

/**
 * True when `user` may hold only an enrolment-only session: two-factor sign-in is required and
 * they have not set it up (decision 024). Checked at use, so turning the requirement on holds
 * sessions that began before it.
 */
export async function heldForEnrolment(db: Db, user: { twoFactor: boolean }): Promise<boolean> {
  return !user.twoFactor && (await twoFactorRequired(db));
}

export async function setTwoFactorRequired(db: Db, required: boolean): Promise<void> {
  await writeSetting(db, REQUIRE_KEY, required ? "1" : "0");
}

/*
 * Between the password and the code, the browser holds a short-lived signed challenge (a cookie),
 * not a session: nothing of the admin opens until the code is right.
 */
export const CHALLENGE_COOKIE = "herald_2fa";
export const CHALLENGE_LIFETIME_MS = 5 * 60 * 1000;

/** A challenge: the account whose password was right, and the challenge's own id (single use). */
export interface Challenge {
  userId: string;
  id: string;
}

export function signChallenge(secret: string, userId: string, now = Date.now()): string {
  const body = Buffer.from(
    JSON.stringify({ userId, id: randomUUID(), expiresAt: now + CHALLENGE_LIFETIME_MS }),
  );
  const mac = createHmac("sha256", secret)
    .update(`2fa.${body.toString("base64url")}`)
    .digest();
  return `${body.toString("base64url")}.${mac.toString("base64url")}`;
}

/** The challenge a cookie carries, while it is valid (whether it is spent, login.ts knows). */
export function readChallenge(
  secret: string,
  value: string | null,
  now = Date.now(),
): Challenge | null {
  const [body = "", signature = ""] = (value ?? "").split(".");
  if (!body || !signature || body.length > 500) return null;
  const expected = createHmac("sha256", secret).update(`2fa.${body}`).digest();
  if (!signatureMatches(signature, expected)) return null;
  try {
    const payload = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as {
      userId: unknown;
      id: unknown;
      expiresAt: number;
    };
    const { userId, id } = payload;
    return payload.expiresAt > now && typeof userId === "string" && typeof id === "string"
      ? { userId, id }
      : null;
  } catch {
    return null;
  }
}

export function challengeCookie(value: string | null, secure: boolean): string {
  const parts = [`${CHALLENGE_COOKIE}=${value ?? ""}`, "Path=/admin", "HttpOnly", "SameSite=Lax"];
  if (secure) parts.push("Secure");
  parts.push(value ? `Max-Age=${CHALLENGE_LIFETIME_MS / 1000}` : "Max-Age=0");
  return parts.join("; ");
}

/**
 * How many accounts keep recovery codes that the current key did not digest (a previous key's, or
 * the unsalted SHA-256 of before): a digest cannot be redone without the code, so those codes work
 * only while that key stays in HERALD_SECRET_KEY_PREVIOUS, until spent or replaced.
 */
export async function accountsWithOldRecoveryCodes(db: Db): Promise<number> {
  const current = `${DIGEST_PREFIX}${getSecretBox().keyId}.`;
  const rows = await db
    .selectFrom("users")
    .select("recovery_codes")
    .where("recovery_codes", "is not", null)
    .execute();
  return rows.filter((row) =>
    (JSON.parse(row.recovery_codes ?? "[]") as string[]).some((code) => !code.startsWith(current)),
  ).length;
}
