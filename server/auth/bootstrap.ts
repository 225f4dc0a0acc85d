import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Db } from "../db";
import type { Env } from "../env";
import type { Logger } from "../logger";
import { deleteSetting, readSetting, writeSetting } from "../settings";
import { SUPER_ADMIN_ROLE } from "./permissions";
import { countUsers, createUser, UserError } from "./users";

const SETUP_TOKEN_KEY = "setup_token_hash";
const sha256 = (text: string) => createHash("sha256").update(text).digest();

/**
 * First run: with ADMIN_EMAIL and ADMIN_PASSWORD set, create that super admin. Without them, log a
 * one-time setup link whose page creates the first super admin. Each start without users issues a
 * new link (only its hash is stored, so an old one cannot be shown again); using it retires it.
 */
export async function ensureFirstAdmin(db: Db, env: Env, logger: Logger): Promise<void> {
  if ((await countUsers(db)) > 0) return;
  if (env.ADMIN_EMAIL && env.ADMIN_PASSWORD) {
    const user = await createUser(db, {
      email: env.ADMIN_EMAIL,
      password: env.ADMIN_PASSWORD,
      role: SUPER_ADMIN_ROLE,
    }).catch((error: unknown) => {
      // A weak ADMIN_PASSWORD stops the start with the reason, like any bad setting.
      if (error instanceof UserError)
        throw new Error(`ADMIN_PASSWORD / ADMIN_EMAIL: ${error.message}`);
      throw error;
    });
    logger.info({ email: user.email }, "created the first super admin from ADMIN_EMAIL");
    return;
  }
  const token = randomBytes(24).toString("base64url");
  await writeSetting(db, SETUP_TOKEN_KEY, sha256(token).toString("hex"));
  const link = `${env.APP_URL.replace(/\/$/, "")}/admin/setup?token=${token}`;
  // Printed on its own line too, so it stands out of the JSON log on a first start.
  logger.warn(
    { setupLink: link },
    "no staff user exists: open the setup link to create the first super admin",
  );
  console.log(`\n  First run: create the first super admin at ${link}\n`);
}

export async function isSetupTokenValid(db: Db, token: string | null): Promise<boolean> {
  if (!token) return false;
  const stored = await readSetting(db, SETUP_TOKEN_KEY);
  if (!stored) return false;
  const expected = Buffer.from(stored, "hex");
  const actual = sha256(token);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** Creates the first super admin with a valid setup token, and retires the token, in one transaction. */
export async function completeSetup(
  db: Db,
  input: { token: string; email: string; password: string },
): Promise<{ userId: string } | { error: string }> {
  return db.transaction().execute(async (trx) => {
    if (!(await isSetupTokenValid(trx, input.token)) || (await countUsers(trx)) > 0) {
      return { error: "This setup link is invalid or has already been used." };
    }
    let user: Awaited<ReturnType<typeof createUser>>;
    try {
      user = await createUser(trx, {
        email: input.email,
        password: input.password,
        role: SUPER_ADMIN_ROLE,
      });
    } catch (error) {
      // A common password, say: the form says why; the link stays valid.
      if (error instanceof UserError) return { error: error.message };
      throw error;
    }
    await deleteSetting(trx, SETUP_TOKEN_KEY);
    return { userId: user.id };
  });
}
