import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
} from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { type Env, getEnv } from "./env";
import { getLogger, type Logger } from "./logger";

/*
 * Secrets at rest (DESIGN.md §9, HERALD_SECRET_KEY; docs/decisions/027-secrets-at-rest.md). Every
 * secret Herald keeps for later use (TOTP secrets, DKIM private keys, webhook secrets, any future
 * third-party token) is sealed here with AES-256-GCM before it is written and opened here when read:
 *
 *   v1.<keyId>.<iv>.<ciphertext+tag>   (base64url parts; a random 96-bit IV per value)
 *
 * The additional authenticated data names where the value lives (table, column, row), so a sealed
 * value copied to another row does not open. The key id (derived from the key, never configured)
 * lets the current key seal while previous keys (HERALD_SECRET_KEY_PREVIOUS) still open.
 */

export const SECRET_KEY_FILE = "data/secret-key";
const VERSION = "v1";
const SEALED = /^v1\.([A-Za-z0-9_-]{8})\.([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]{24,})$/;

/** Where a sealed value lives: it opens only there. */
export interface SealedAt {
  table: string;
  column: string;
  /** the row's identity, e.g. a user id, or tenant id and provider */
  row: string;
}

export class SecretBoxError extends Error {
  override name = "SecretBoxError";
}

interface Key {
  id: string;
  aes: Buffer;
  mac: Buffer;
}

const derive = (material: string, info: string, length: number) =>
  Buffer.from(hkdfSync("sha256", Buffer.from(material, "utf8"), "herald", info, length));

function keyOf(material: string): Key {
  return {
    id: derive(material, "secret-box key id", 6).toString("base64url"),
    aes: derive(material, "secret-box aes-256-gcm", 32),
    mac: derive(material, "secret-box hmac-sha256", 32),
  };
}

const aadOf = (at: SealedAt) => Buffer.from(`herald:${at.table}.${at.column}:${at.row}`, "utf8");

export class SecretBox {
  private readonly current: Key;
  private readonly keys = new Map<string, Key>();

  /** `current` seals; it and each of `previous` open. */
  constructor(current: string, previous: readonly string[] = []) {
    this.current = keyOf(current);
    for (const key of [this.current, ...previous.map(keyOf)]) {
      if (!this.keys.has(key.id)) this.keys.set(key.id, key);
    }
  }

  /** The id of the key that seals now. */
  get keyId(): string {
    return this.current.id;
  }

  /** Whether a value sealed (or digested) under `keyId` opens here. */
  knows(keyId: string): boolean {
    return this.keys.has(keyId);
  }

  seal(plain: string, at: SealedAt): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.current.aes, iv);
    cipher.setAAD(aadOf(at));
    const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final(), cipher.getAuthTag()]);
    return [VERSION, this.current.id, iv.toString("base64url"), body.toString("base64url")].join(
      ".",
    );
  }

  /** The plain value of a sealed one; throws SecretBoxError when it cannot be opened here. */
  open(stored: string, at: SealedAt): string {
    const match = SEALED.exec(stored);
    if (!match) throw new SecretBoxError(`${at.table}.${at.column}: not a sealed value`);
    const [, keyId = "", iv = "", body = ""] = match;
    const key = this.keys.get(keyId);
    if (!key) {
      throw new SecretBoxError(
        `${at.table}.${at.column} is sealed under key id ${keyId}, which is neither HERALD_SECRET_KEY (${this.current.id}) nor in HERALD_SECRET_KEY_PREVIOUS`,
      );
    }
    const bytes = Buffer.from(body, "base64url");
    try {
      const decipher = createDecipheriv("aes-256-gcm", key.aes, Buffer.from(iv, "base64url"));
      decipher.setAAD(aadOf(at));
      decipher.setAuthTag(bytes.subarray(-16));
      return Buffer.concat([decipher.update(bytes.subarray(0, -16)), decipher.final()]).toString(
        "utf8",
      );
    } catch {
      throw new SecretBoxError(
        `${at.table}.${at.column}: the sealed value does not open (altered, or moved from another row)`,
      );
    }
  }

  /**
   * A value as stored (sealed, or plaintext written before sealing existed and not yet sealed at
   * start) as its plain value.
   */
  openStored(stored: string, at: SealedAt): string {
    return isSealed(stored) ? this.open(stored, at) : stored;
  }

  /** Whether a stored value should be (re)sealed: plaintext, or sealed under an older key. */
  needsSealing(stored: string): boolean {
    return SEALED.exec(stored)?.[1] !== this.current.id;
  }

  /**
   * A keyed digest of `data` for `purpose` under the current key: `<keyId>.<mac>`. For what is only
   * ever compared (recovery codes): a copy of the database alone cannot test guesses against it.
   */
  digest(purpose: string, data: string): string {
    return `${this.current.id}.${this.macOf(this.current, purpose, data).toString("base64url")}`;
  }

  /** Whether `stored` (from digest) is the digest of `data`, under whichever known key made it. */
  digestMatches(stored: string, purpose: string, data: string): boolean {
    const [keyId = "", mac = ""] = stored.split(".");
    const key = this.keys.get(keyId);
    if (!key) return false;
    const given = Buffer.from(mac);
    const expected = Buffer.from(this.macOf(key, purpose, data).toString("base64url"));
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /** The key id a digest was made under. */
  static digestKeyId(stored: string): string {
    return stored.split(".")[0] ?? "";
  }

  private macOf(key: Key, purpose: string, data: string): Buffer {
    return createHmac("sha256", key.mac).update(`${purpose}\n${data}`).digest();
  }
}

export const isSealed = (stored: string): boolean => SEALED.test(stored);

/** The id of the key a sealed value was sealed under; null for plaintext. */
export const sealedKeyId = (stored: string): string | null => SEALED.exec(stored)?.[1] ?? null;

/**
 * HERALD_SECRET_KEY, else one generated on first start and kept in ./data (0600), like
 * SESSION_SECRET (server/secrets.ts): instances that share a database must share it.
 */
export function loadSecretKey(env: Env, logger: Logger, file = SECRET_KEY_FILE): string {
  if (env.HERALD_SECRET_KEY) return env.HERALD_SECRET_KEY;
  const path = resolve(file);
  const stored = () => (existsSync(path) ? readFileSync(path, "utf8").trim() : "");
  if (stored().length >= 32) return stored();
  mkdirSync(dirname(path), { recursive: true });
  try {
    // "wx": two processes starting at once (the site and `herald worker`) keep the first one's key.
    writeFileSync(path, `${randomBytes(32).toString("base64url")}\n`, { mode: 0o600, flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    if (stored().length < 32) writeFileSync(path, `${randomBytes(32).toString("base64url")}\n`);
  }
  chmodSync(path, 0o600);
  if (env.NODE_ENV === "production") {
    logger.warn(
      { file: path },
      "HERALD_SECRET_KEY is not set: generated one in ./data. Instances that share a database must share this key, and it must be kept with every backup: without it sealed secrets (two-factor, DKIM keys, webhook secrets) cannot be read.",
    );
  }
  return stored();
}

/**
 * The secret box of the key this install has (HERALD_SECRET_KEY, else data/secret-key), without
 * making one when there is none (a restore checks the key it will need): null then.
 */
export function existingSecretBox(env: Env, file = SECRET_KEY_FILE): SecretBox | null {
  const path = resolve(file);
  const key = env.HERALD_SECRET_KEY ?? (existsSync(path) ? readFileSync(path, "utf8").trim() : "");
  return key.length >= 32 ? new SecretBox(key, env.HERALD_SECRET_KEY_PREVIOUS) : null;
}

let box: SecretBox | undefined;

/** The process's secret box: HERALD_SECRET_KEY seals, HERALD_SECRET_KEY_PREVIOUS still open. */
export function getSecretBox(): SecretBox {
  if (box) return box;
  const env = getEnv();
  box = new SecretBox(loadSecretKey(env, getLogger()), env.HERALD_SECRET_KEY_PREVIOUS);
  return box;
}

/** What to seal: plaintext only (every start), or also values sealed under an older key (rotate). */
export type Reseal = "plaintext" | "rotate";

/**
 * Seals, inside the caller's transaction, each stored value that needs it (plaintext from before
 * sealing; with "rotate" also values sealed under an older key): opened with whichever key sealed
 * it, sealed under the current one. `write` must change the row only while it still holds the
 * value read. Answers how many were sealed. Used by the writer module of each secret's table.
 */
export async function resealAll<Row>(
  which: Reseal,
  rows: readonly Row[],
  stored: (row: Row) => string,
  at: (row: Row) => SealedAt,
  write: (row: Row, sealed: string) => Promise<void>,
): Promise<number> {
  const secretBox = getSecretBox();
  let sealed = 0;
  for (const row of rows) {
    const value = stored(row);
    if (which === "rotate" ? !secretBox.needsSealing(value) : isSealed(value)) continue;
    await write(row, secretBox.seal(secretBox.openStored(value, at(row)), at(row)));
    sealed++;
  }
  return sealed;
}
