import { execFile } from "node:child_process";
import { createHash, createHmac, generateKeyPairSync } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { promisify } from "node:util";
import SQLite from "better-sqlite3";
import { Secret, TOTP } from "otpauth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { confirmEnrolment, startEnrolment, verifySecondFactor } from "../../server/auth/two-factor";
import { migrateToLatest } from "../../server/db/migrate";
import { crossTenant } from "../../server/db/tenant-guard";
import { dkimSigningKey } from "../../server/mail/dkim";
import { saveWebhookSecret } from "../../server/providers/mailerlite-webhook";
import { SecretBox } from "../../server/secret-box";
import { generateDkimKey } from "../../server/tenants/dkim";
import { seedTenants } from "../../server/tenants/seed";
import { createStaffUser, signIn, TEST_PASSWORD } from "../support/auth";
import { createTestDatabase, type TestDatabase, testDialects } from "../support/database";
import { postForm } from "../support/forms";
import { type RunningServer, startServer } from "../support/server";
import { insertSubscriber } from "../support/subscribers";
import { scaled } from "../support/timing";

/*
 * Issue 32, findings 11 and 12: a copy of the database (a backup, a replica, a stolen disk) holds
 * no secret in plaintext — TOTP secrets, webhook secrets, DKIM private keys — and no trace of an
 * erased subscriber; the SQLite file is its owner's only. Rows kept in plaintext by an older
 * version are sealed at start, and `herald secrets rotate` re-seals them under a new key.
 */

const KEY = "secrets-at-rest-first-key-0123456789abcdef";
const NEW_KEY = "secrets-at-rest-second-key-0123456789abcdef";
const SESSION_SECRET = "secrets-at-rest-session-0123456789abcdef";
// The writers in this process seal as the server does: with the same key.
process.env.HERALD_SECRET_KEY = KEY;

const LEGACY_TOTP = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";
const LEGACY_RECOVERY = "abcde-12345";
const LEGACY_WEBHOOK = "legacy-webhook-secret-kept-in-plaintext";
const WEBHOOK = "a-webhook-secret-pasted-from-mailerlite";
const ERASED = "erase-me-entirely@forgotten.example";

const run = promisify(execFile);
const codeOf = (secret: string, stepsAhead = 0) =>
  new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30 }).generate({
    timestamp: Date.now() + stepsAhead * 30_000,
  });

describe.each(testDialects())("secrets at rest on %s", (dialect) => {
  let database: TestDatabase;
  let server: RunningServer;
  let legacyUserId = "";
  let legacyPem = "";
  let enrolledSecret = "";
  const serverEnv = (key: string, previous = "") => ({
    SESSION_SECRET,
    HERALD_SECRET_KEY: key,
    HERALD_SECRET_KEY_PREVIOUS: previous,
    SEND_WORKER: "off",
  });
  const all = () => crossTenant(database.db);
  const hook = (tenantId: string, secret: string) => {
    const raw = JSON.stringify({
      type: "subscriber.unsubscribed",
      id: `evt-${Math.random()}`,
      timestamp: Math.floor(Date.now() / 1000),
      data: { subscriber: { email: "nobody@example.com" } },
    });
    return fetch(`${server.url}/api/webhooks/mailerlite/${tenantId}`, {
      method: "POST",
      body: raw,
      headers: {
        "content-type": "application/json",
        signature: createHmac("sha256", secret).update(raw).digest("hex"),
      },
    });
  };
  /** Signs in with the password, then answers the second step with `code`. */
  const secondStep = async (email: string, code: string) => {
    const password = await fetch(`${server.url}/admin/login`, {
      method: "POST",
      body: new URLSearchParams({ email, password: TEST_PASSWORD }),
      redirect: "manual",
    });
    expect(password.headers.get("location")).toBe("/admin/login/two-factor");
    const challenge =
      password.headers
        .getSetCookie()
        .find((cookie) => cookie.startsWith("herald_2fa="))
        ?.split(";")[0] ?? "";
    return postForm(server.url, "/admin/login/two-factor", { code }, challenge);
  };
  /** SQLite: everything in the WAL written to the database file, and the WAL emptied. */
  const checkpoint = () => {
    if (dialect !== "sqlite") return;
    const file = new SQLite(database.url.replace(/^file:/, ""));
    file.pragma("wal_checkpoint(TRUNCATE)");
    file.close();
  };
  const storedSecrets = async () => [
    ...(await all().selectFrom("users").select("totp_secret as value").execute()),
    ...(await all().selectFrom("webhook_secrets").select("secret as value").execute()),
    ...(await all().selectFrom("dkim_keys").select("private_key as value").execute()),
  ];

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    await migrateToLatest(database.db);
    await seedTenants(database.db);
    // What an older Herald kept: a TOTP secret, a recovery code's bare SHA-256, a webhook secret
    // and a DKIM key, all in plaintext.
    const legacy = await createStaffUser(database.db, {
      email: "legacy@example.com",
      role: "super_admin",
    });
    legacyUserId = legacy.id;
    await database.db
      .updateTable("users")
      .set({
        totp_secret: LEGACY_TOTP,
        totp_enabled_at: new Date().toISOString(),
        recovery_codes: JSON.stringify([
          createHash("sha256").update(LEGACY_RECOVERY.replace("-", "")).digest("hex"),
        ]),
      })
      .where("id", "=", legacy.id)
      .execute();
    await all()
      .insertInto("webhook_secrets")
      .values({
        tenant_id: "keydiscovery",
        provider: "mailerlite",
        secret: LEGACY_WEBHOOK,
        created_by: "legacy@example.com",
        created_at: new Date().toISOString(),
      })
      .execute();
    legacyPem = generateKeyPairSync("ed25519")
      .privateKey.export({ type: "pkcs8", format: "pem" })
      .toString();
    await all()
      .insertInto("dkim_keys")
      .values({
        tenant_id: "keydiscovery",
        status: "active",
        selector: "old",
        domain: "keydiscovery.com",
        algorithm: "ed25519",
        public_key: "unused",
        private_key: legacyPem,
        created_by: "legacy@example.com",
        created_at: new Date().toISOString(),
      })
      .execute();
    server = await startServer({ databaseUrl: database.url, env: serverEnv(KEY) });
  });

  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  it("seals what an older version kept in plaintext at start, and it all still works", async () => {
    const stored = await storedSecrets();
    expect(stored).toHaveLength(3);
    for (const { value } of stored) expect(value).toMatch(/^v1\.[\w-]{8}\.[\w-]{16}\.[\w-]+$/);
    expect(JSON.stringify(stored)).not.toContain(LEGACY_TOTP);
    expect(JSON.stringify(stored)).not.toContain(LEGACY_WEBHOOK);
    expect(JSON.stringify(stored)).not.toContain("PRIVATE KEY");
    // The sealed webhook secret verifies MailerLite's signature; the DKIM key opens for signing.
    expect((await hook("keydiscovery", LEGACY_WEBHOOK)).status).toBe(200);
    expect((await hook("keydiscovery", "a wrong secret")).status).toBe(401);
    expect((await dkimSigningKey(database.db, "keydiscovery"))?.keySelector).toBe("old");
    // The TOTP secret opens, and a recovery code of before works once.
    expect(await verifySecondFactor(database.db, legacyUserId, codeOf(LEGACY_TOTP))).toBe(true);
    expect(await verifySecondFactor(database.db, legacyUserId, LEGACY_RECOVERY)).toBe(true);
    expect(await verifySecondFactor(database.db, legacyUserId, LEGACY_RECOVERY)).toBe(false);
  });

  it("a copy of the database holds no secret and no erased address", async () => {
    // A TOTP enrolment, with recovery codes long enough not to be guessed offline.
    const staff = await createStaffUser(database.db, {
      email: "enrolled@example.com",
      role: "super_admin",
    });
    enrolledSecret = (await startEnrolment(database.db, staff, "Herald")).secret;
    const codes = (await confirmEnrolment(database.db, staff.id, codeOf(enrolledSecret))) ?? [];
    expect(codes).toHaveLength(10);
    for (const code of codes)
      expect(code).toMatch(/^[0-9a-hjkmnp-tv-z]{5}(-[0-9a-hjkmnp-tv-z]{5}){3}$/);
    expect(await verifySecondFactor(database.db, staff.id, codes[0]?.toUpperCase() ?? "")).toBe(
      true,
    );
    expect(await verifySecondFactor(database.db, staff.id, codes[0] ?? "")).toBe(false);
    const [user] = await all()
      .selectFrom("users")
      .select("recovery_codes")
      .where("id", "=", staff.id)
      .execute();
    for (const code of codes.slice(1)) {
      const bare = code.replace(/-/g, "");
      expect(user?.recovery_codes).not.toContain(createHash("sha256").update(bare).digest("hex"));
    }
    // A recovery code as staff type it, through the sign-in page: the second step takes it once.
    const first = await secondStep("enrolled@example.com", codes[1] ?? "");
    expect(first.headers.get("location")).toBe("/admin/dashboard");
    expect((await secondStep("enrolled@example.com", codes[1] ?? "")).status).toBe(401);
    // A webhook secret, and a DKIM key the server signs with.
    await saveWebhookSecret(database.db, "main", WEBHOOK, "enrolled@example.com");
    expect((await hook("main", WEBHOOK)).status).toBe(200);
    await generateDkimKey(database.db, "enrolled@example.com", "main", {
      selector: "s1",
      domain: "example.com",
      algorithm: "rsa",
    });
    expect((await dkimSigningKey(database.db, "main"))?.privateKey.type).toBe("private");
    // A subscriber, added and then erased by staff through the page.
    const id = await insertSubscriber(database.db, { email: ERASED });
    // Others after it, so its row is not the last on its page (where the next write would cover
    // it anyway); then the row reaches the database file itself, not only the WAL.
    for (const n of [1, 2, 3, 4, 5])
      await insertSubscriber(database.db, { email: `kept${n}@example.com` });
    checkpoint();
    await createStaffUser(database.db, { email: "editor@example.com", products: { main: true } });
    const editor = await signIn(server.url, "editor@example.com");
    const erased = await postForm(
      server.url,
      `/admin/subscribers/${id}`,
      { intent: "erase", confirmed: "yes" },
      editor,
    );
    expect(erased.status).toBe(303);

    const plaintexts = [enrolledSecret, LEGACY_TOTP, WEBHOOK, LEGACY_WEBHOOK, ERASED, "erase-me"];
    if (dialect === "sqlite") {
      checkpoint();
      const path = database.url.replace(/^file:/, "");
      const files = [path, `${path}-wal`, `${path}-shm`].filter((file) => existsSync(file));
      for (const file of files) {
        expect((statSync(file).mode & 0o777).toString(8), file).toBe("600");
        const bytes = readFileSync(file).toString("latin1");
        for (const text of plaintexts)
          expect(bytes.includes(text), `${text} in ${file}`).toBe(false);
        expect(bytes).not.toContain("PRIVATE KEY");
      }
    } else {
      const stored = JSON.stringify(await storedSecrets());
      for (const text of plaintexts) expect(stored).not.toContain(text);
      expect(stored).not.toContain("PRIVATE KEY");
      const left = await all()
        .selectFrom("subscribers")
        .select("email")
        .where("email", "like", "%erase-me%")
        .execute();
      expect(left).toEqual([]);
    }
  });

  it(
    "herald secrets rotate re-seals everything under a new key, the old one kept as previous",
    async () => {
      await server.stop();
      const cli = (key: string, previous: string) =>
        run(process.execPath, ["build/cli/herald.mjs", "secrets", "rotate"], {
          env: {
            ...process.env,
            DATABASE_URL: database.url,
            HERALD_SECRET_KEY: key,
            HERALD_SECRET_KEY_PREVIOUS: previous,
            LOG_LEVEL: "warn",
          },
          timeout: scaled(60_000),
        });
      const first = await cli(NEW_KEY, KEY);
      expect(first.stdout).toMatch(
        /Sealed under key [\w-]{8}: 2 two-factor secrets, 2 webhook secrets, 2 DKIM keys\./,
      );
      expect(first.stdout).toMatch(/1 accounts keep recovery codes made under an older key/);
      const newKeyId = new SecretBox(NEW_KEY).keyId;
      for (const { value } of await storedSecrets()) {
        if (value !== null) expect(value.startsWith(`v1.${newKeyId}.`)).toBe(true);
      }
      expect((await cli(NEW_KEY, KEY)).stdout).toMatch(
        /: 0 two-factor secrets, 0 webhook secrets, 0 DKIM keys\./,
      );
      // The new key alone opens everything: the webhook verifies, the second step takes a code.
      server = await startServer({ databaseUrl: database.url, env: serverEnv(NEW_KEY) });
      expect((await hook("main", WEBHOOK)).status).toBe(200);
      expect((await hook("keydiscovery", LEGACY_WEBHOOK)).status).toBe(200);
      const second = await secondStep("enrolled@example.com", codeOf(enrolledSecret, 1));
      expect(second.headers.get("location")).toBe("/admin/dashboard");
    },
    scaled(120_000),
  ); // two CLI runs and a server start
});
