import { spawn } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { S3Client } from "@aws-sdk/client-s3";
import { sql } from "kysely";
import { pino } from "pino";
import S3rver from "s3rver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { digestFile, MANIFEST_FILE, verifySnapshot } from "../../server/backups/manifest";
import {
  BACKUP_FAILURE_SETTING,
  BACKUP_SUCCESS_SETTING,
  BACKUP_TURN_SETTING,
} from "../../server/backups/schedule";
import { getCampaignRow } from "../../server/campaigns/campaign-row";
import { createCampaign } from "../../server/campaigns/campaigns";
import { CampaignWorker } from "../../server/campaigns/worker";
import { createDb, type Db, type DialectName } from "../../server/db";
import { migrateToLatest } from "../../server/db/migrate";
import { isPostgres } from "../../server/db/portable";
import { crossTenant } from "../../server/db/tenant-guard";
import {
  databaseBackend,
  diskBackend,
  type FileBackend,
  type S3Settings,
  s3Backend,
  saveFile,
  saveVariant,
} from "../../server/files/store";
import { smtpTransport } from "../../server/mail/transport";
import { saveWebhookSecret } from "../../server/providers/mailerlite-webhook";
import { getSecretBox } from "../../server/secret-box";
import { readSetting } from "../../server/settings";
import { seedTenants } from "../../server/tenants/seed";
import { createStaffUser, signIn } from "../support/auth";
import {
  recipientsOf,
  SECRET,
  seedAudience,
  useSendingEngine,
  waitForStatus,
} from "../support/campaigns";
import { createTestDatabase, type TestDatabase, testDialects } from "../support/database";
import { testPng } from "../support/images";
import { freePort, type RunningServer, startServer } from "../support/server";
import { startSmtpSink } from "../support/smtp-sink";
import { scaled, TIME_SCALE } from "../support/timing";

/*
 * Issue 33, target 1: `herald backup` while a campaign sends, `herald restore` into a fresh
 * database and store (every row and every file back, byte for byte), refusals that change
 * nothing, scheduled snapshots with retention, and their last success on the tenant manager.
 */

const silent = pino({ level: "silent" });
/** the campaign's recipients in the round trip */
const AUDIENCE = 150;
const tempDirs: string[] = [];
const tempDir = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), `herald-backup-${prefix}-`));
  tempDirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

/** `npm run herald -- …` as its own process (node with tsx's loader), on the given environment. */
function herald(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "cli/herald.ts", ...args], {
      env: { ...process.env, LOG_LEVEL: "warn", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
    });
    child.stderr.on("data", (chunk) => {
      output += chunk;
    });
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, output }));
  });
}

/** Where a test keeps its uploads: a directory, the database (PostgreSQL) or an S3 bucket. */
interface StoreSetup {
  env: Record<string, string>;
  backend(db: Db): FileBackend;
}

let s3rver: S3rver | undefined;
let s3Endpoint = "";
let s3Client: S3Client | undefined;
let buckets = 0;

async function s3Bucket(): Promise<StoreSetup> {
  if (!s3rver) {
    const port = await freePort();
    s3rver = new S3rver({
      address: "127.0.0.1",
      port,
      silent: true,
      directory: tempDir("s3"),
      configureBuckets: Array.from({ length: 16 }, (_, index) => ({
        name: `herald-backup-${index}`,
        configs: [],
      })),
    });
    await s3rver.run();
    s3Endpoint = `http://127.0.0.1:${port}`;
    s3Client = new S3Client({
      region: "us-east-1",
      endpoint: s3Endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" },
      requestChecksumCalculation: "WHEN_REQUIRED",
    });
  }
  const settings: S3Settings = {
    bucket: `herald-backup-${buckets++}`,
    region: "us-east-1",
    endpoint: s3Endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" },
  };
  return {
    env: {
      S3_BUCKET: settings.bucket,
      S3_ENDPOINT: s3Endpoint,
      S3_FORCE_PATH_STYLE: "true",
      S3_ACCESS_KEY_ID: "S3RVER",
      S3_SECRET_ACCESS_KEY: "S3RVER",
    },
    backend: () => s3Backend(settings, s3Client),
  };
}
afterAll(async () => {
  s3Client?.destroy();
  await s3rver?.close();
});

/** A new, empty store of the kind a setup uses. */
async function newStore(kind: "disk" | "database" | "s3"): Promise<StoreSetup> {
  if (kind === "s3") return s3Bucket();
  const dir = join(tempDir("uploads"), "uploads");
  return {
    env: { UPLOADS_DIR: dir },
    backend: (db) => (kind === "database" ? databaseBackend(db) : diskBackend(dir)),
  };
}

/** Every file of a store: key → bytes. */
async function filesOf(store: FileBackend): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for await (const key of store.keys()) {
    files.set(key, (await store.read(key))?.toString("base64") ?? "(gone)");
  }
  return files;
}

/** The tables of the database (its migrations' own included). */
async function tablesOf(db: Db): Promise<string[]> {
  const { rows } = isPostgres(db)
    ? await sql<{ name: string }>`SELECT table_name AS name FROM information_schema.tables
        WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`.execute(db)
    : await sql<{ name: string }>`SELECT name FROM sqlite_master
        WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`.execute(db);
  return rows.map((row) => row.name).sort();
}

/** Every row of `table`, each as exact text (bytes as hex), sorted. */
async function rowsOf(db: Db, table: string): Promise<string[]> {
  const { rows } = await sql<Record<string, unknown>>`SELECT * FROM ${sql.table(table)}`.execute(
    crossTenant(db),
  );
  return rows
    .map((row) =>
      JSON.stringify(row, (_key, value) =>
        value && typeof value === "object" && value.type === "Buffer"
          ? Buffer.from(value.data).toString("hex")
          : value,
      ),
    )
    .sort();
}

/** Whether the database at `url` has no table at all (nothing was restored into it). */
async function isEmptyDatabase(database: TestDatabase): Promise<boolean> {
  if (database.dialect === "sqlite") {
    const path = database.url.replace(/^file:/, "");
    if (!existsSync(path)) return true;
  }
  return (await tablesOf(database.db)).length === 0;
}

const SETUPS: { dialect: DialectName; store: "disk" | "database" | "s3" }[] = [
  { dialect: "sqlite", store: "disk" },
  { dialect: "sqlite", store: "s3" },
  { dialect: "postgres", store: "database" },
];

describe.each(SETUPS.filter(({ dialect }) => testDialects().includes(dialect)))(
  "backup and restore on $dialect with files in $store",
  ({ dialect, store: storeKind }) => {
    const engine = useSendingEngine(dialect);
    let source: StoreSetup;
    /** the snapshot taken while the campaign was sending, and the one after it finished */
    let during = "";
    let after = "";
    let campaignId = "";
    const restoredDatabases: TestDatabase[] = [];
    const freshDatabase = async () => {
      const database = await createTestDatabase(dialect);
      restoredDatabases.push(database);
      return database;
    };
    afterAll(async () => {
      for (const database of restoredDatabases) await database.drop();
    });
    const envOf = (database: { url: string }, store: StoreSetup, extra = {}) => ({
      DATABASE_URL: database.url,
      ...store.env,
      ...extra,
    });

    beforeAll(async () => {
      source = await newStore(storeKind);
      const files = source.backend(engine.database.db);
      for (const [tenantId, width] of [
        ["main", 40],
        ["main", 64],
        ["keydiscovery", 32],
      ] as const) {
        const saved = await saveFile(files, {
          tenantId,
          bytes: testPng(width, 20),
          contentType: "image/png",
          extension: "png",
        });
        await saveVariant(files, saved.key, {
          bytes: testPng(width / 2, 10),
          contentType: "image/png",
          extension: "png",
          width: width / 2,
        });
      }
      // A sealed secret: the snapshot names its key's id, never the key.
      await saveWebhookSecret(engine.database.db, "main", "whsec-backup-test-0123456789", "test");
    }, scaled(60_000));

    it(
      "writes a snapshot while a campaign sends, and another once it is sent",
      async () => {
        const { lists } = await seedAudience(engine.database.db, AUDIENCE, "bk");
        const campaign = await createCampaign(
          engine.ctx,
          { subject: "Backed up", content: "<p>Hi</p>", groups: lists },
          null,
        );
        campaignId = campaign.id;
        // Slow enough that the backup (a process of its own) ends well before the last message,
        // on a busy machine too: the slower this machine, the slower the campaign.
        engine.worker({
          SEND_RATE: Math.max(4, Math.round(20 / TIME_SCALE)),
          SEND_CONCURRENCY: 2,
        });
        const deadline = Date.now() + scaled(30_000);
        while (recipientsOf(engine.sink, "bk").length < 20 && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        expect(recipientsOf(engine.sink, "bk").length).toBeGreaterThanOrEqual(20);

        during = join(tempDir("snapshot"), "during");
        const taken = await herald(["backup", "--to", during], envOf(engine.database, source));
        expect(taken.output).toContain("Snapshot written to");
        expect(taken.code).toBe(0);

        await waitForStatus(engine.database.db, campaign.id, ["sent"], 60_000);
        await engine.stopWorkers();
        after = join(tempDir("snapshot"), "after");
        const again = await herald(["backup", "--to", after], envOf(engine.database, source));
        expect(again.code).toBe(0);

        const manifest = await verifySnapshot(after);
        expect(manifest.dialect).toBe(dialect);
        expect(manifest.fileStore).toBe(storeKind);
        expect(manifest.secretKeyIds).toEqual([getSecretBox().keyId]);
        expect(manifest.files.map((file) => file.path)).toEqual(
          [
            dialect === "sqlite" ? "database.sqlite" : "database.pgdump",
            ...[...(await filesOf(source.backend(engine.database.db))).keys()].map(
              (key) => `files/${key}`,
            ),
          ].sort(),
        );
        expect(manifest.files).toHaveLength(7);
        // The key itself is in no file of the snapshot.
        const keyFile =
          process.env.HERALD_SECRET_KEY ?? readFileSync("data/secret-key", "utf8").trim();
        for (const file of manifest.files) {
          expect(readFileSync(join(after, file.path)).includes(keyFile)).toBe(false);
        }

        // Refused: a directory that holds something.
        const refused = await herald(["backup", "--to", after], envOf(engine.database, source));
        expect(refused.code).toBe(1);
        expect(refused.output).toContain("exists and is not empty");
      },
      scaled(120_000),
    );

    it(
      "restores every row and every file, byte for byte, into a fresh database and store",
      async () => {
        const target = await freshDatabase();
        const store = await newStore(storeKind);
        const restored = await herald(["restore", "--from", after], envOf(target, store));
        expect(restored.output).toContain("Restored the snapshot");
        expect(restored.output).not.toContain("Warning: The snapshot");
        expect(restored.code).toBe(0);

        const tables = await tablesOf(engine.database.db);
        expect(tables.length).toBeGreaterThan(30);
        expect(await tablesOf(target.db)).toEqual(tables);
        for (const table of tables) {
          // stored_files is the PostgreSQL store itself: compared as files below.
          if (table === "stored_files") continue;
          expect({ table, rows: await rowsOf(target.db, table) }).toEqual({
            table,
            rows: await rowsOf(engine.database.db, table),
          });
        }
        expect((await rowsOf(target.db, "deliveries")).length).toBe(AUDIENCE);
        const files = await filesOf(store.backend(target.db));
        expect(files.size).toBe(6);
        expect(files).toEqual(await filesOf(source.backend(engine.database.db)));

        // The restored install starts: nothing to migrate, the secret opens.
        expect(await migrateToLatest(target.db)).toEqual([]);
        const restoredDb = createDb(target.url);
        try {
          const [row] = await crossTenant(restoredDb)
            .selectFrom("webhook_secrets")
            .select("secret")
            .execute();
          expect(
            getSecretBox().open(row?.secret ?? "", {
              table: "webhook_secrets",
              column: "secret",
              row: "main/mailerlite",
            }),
          ).toBe("whsec-backup-test-0123456789");
        } finally {
          await restoredDb.destroy();
        }
      },
      scaled(90_000),
    );

    it(
      "restores the snapshot taken mid-send as it was then, and the restored install finishes the campaign",
      async () => {
        const target = await freshDatabase();
        const store = await newStore(storeKind);
        const restored = await herald(["restore", "--from", during], envOf(target, store));
        expect(restored.code).toBe(0);
        // Caught mid-send: some deliveries sent, not all.
        const campaign = await getCampaignRow(target.db, "main", campaignId);
        expect(campaign.status).toBe("sending");
        const states = await crossTenant(target.db)
          .selectFrom("deliveries")
          .select(["status", (eb) => eb.fn.countAll<number>().as("count")])
          .where("campaign_id", "=", campaignId)
          .groupBy("status")
          .execute();
        const count = (status: string) =>
          Number(states.find((row) => row.status === status)?.count ?? 0);
        expect(count("sent")).toBeGreaterThan(0);
        expect(count("sent")).toBeLessThan(AUDIENCE);
        // What never changes while sending came back whole.
        for (const table of [
          "subscribers",
          "subscriptions",
          "lists",
          "tenants",
          "users",
          "webhook_secrets",
          "images",
        ]) {
          expect({ table, rows: await rowsOf(target.db, table) }).toEqual({
            table,
            rows: await rowsOf(engine.database.db, table),
          });
        }
        expect(await filesOf(store.backend(target.db))).toEqual(
          await filesOf(source.backend(engine.database.db)),
        );
        // The restored install's sender takes the campaign up where the snapshot left it.
        const sink = await startSmtpSink();
        const transport = smtpTransport(sink.url, 4);
        const worker = new CampaignWorker({
          db: target.db,
          transport,
          logger: silent,
          env: { APP_URL: "http://localhost:3000", SEND_RATE: 0, SEND_CONCURRENCY: 4 },
          sessionSecret: SECRET,
        }).start();
        try {
          await waitForStatus(target.db, campaignId, ["sent"], 60_000);
          const unsent = AUDIENCE - count("sent");
          expect(recipientsOf(sink, "bk").length).toBeGreaterThanOrEqual(unsent);
        } finally {
          await worker.stop();
          transport.close();
          await sink.stop();
        }
      },
      scaled(120_000),
    );

    it(
      "refuses a tampered snapshot (a changed byte, a missing file, an extra file) and changes nothing",
      async () => {
        const manifest = await verifySnapshot(after);
        const image = manifest.files.find((file) => file.path.startsWith("files/"))?.path ?? "";
        const database = manifest.files[0]?.path ?? "";
        const tamperings: [string, (dir: string) => void, string][] = [
          [
            "a changed byte in a file",
            (dir) => {
              const bytes = readFileSync(join(dir, image));
              bytes[bytes.length - 5] = (bytes[bytes.length - 5] ?? 0) ^ 1;
              writeFileSync(join(dir, image), bytes);
            },
            `${image}: its SHA-256 does not match the manifest`,
          ],
          [
            "a changed byte in the database",
            (dir) => {
              const bytes = readFileSync(join(dir, database));
              bytes[200] = (bytes[200] ?? 0) ^ 1;
              writeFileSync(join(dir, database), bytes);
            },
            `${database}: its SHA-256 does not match the manifest`,
          ],
          ["a missing file", (dir) => rmSync(join(dir, image)), `${image}: missing`],
          [
            "an extra file",
            (dir) =>
              writeFileSync(join(dir, "files/main/0123456789abcdef0123456789abcdef.png"), "x"),
            "files/main/0123456789abcdef0123456789abcdef.png: not in the manifest",
          ],
        ];
        for (const [what, tamper, message] of tamperings) {
          const dir = join(tempDir("tampered"), "snapshot");
          cpSync(after, dir, { recursive: true });
          tamper(dir);
          const target = await freshDatabase();
          const store = await newStore(storeKind);
          const refused = await herald(["restore", "--from", dir], envOf(target, store));
          expect({ what, code: refused.code }).toEqual({ what, code: 1 });
          expect(refused.output).toContain("does not match its manifest; nothing was restored");
          expect(refused.output).toContain(message);
          expect(await isEmptyDatabase(target)).toBe(true);
          if (storeKind !== "database") {
            expect((await filesOf(store.backend(target.db))).size).toBe(0);
          }
        }
      },
      scaled(120_000),
    );

    it(
      "refuses a snapshot edited by hand with its checksums recomputed, and an unsigned one unless allowed (issue 44, finding 7)",
      async () => {
        const manifest = await verifySnapshot(after);
        const image = manifest.files.find((file) => file.path.startsWith("files/"))?.path ?? "";
        /** A copy of the snapshot, one file changed and the manifest's checksums made to match. */
        const edited = async (keepSignature: boolean, change: boolean) => {
          const dir = join(tempDir("edited"), "snapshot");
          cpSync(after, dir, { recursive: true });
          const written = JSON.parse(readFileSync(join(dir, MANIFEST_FILE), "utf8"));
          if (change) {
            writeFileSync(join(dir, image), testPng(50, 50));
            const entry = written.files.find((file: { path: string }) => file.path === image);
            Object.assign(entry, await digestFile(join(dir, image)));
          }
          if (!keepSignature) delete written.hmac;
          writeFileSync(join(dir, MANIFEST_FILE), JSON.stringify(written, null, 2));
          return dir;
        };
        const restore = async (dir: string, ...flags: string[]) => {
          const target = await freshDatabase();
          const store = await newStore(storeKind);
          const result = await herald(["restore", "--from", dir, ...flags], envOf(target, store));
          return { ...result, target, store };
        };
        for (const [dir, flags, message] of [
          [await edited(true, true), [], "Its manifest does not match its signature"],
          [await edited(true, true), ["--allow-unsigned"], "does not match its signature"],
          [await edited(false, false), [], "Its manifest is not signed"],
        ] as const) {
          const refused = await restore(dir, ...flags);
          expect(refused.code).toBe(1);
          expect(refused.output).toContain("was not restored");
          expect(refused.output).toContain(message);
          expect(await isEmptyDatabase(refused.target)).toBe(true);
          if (storeKind !== "database") {
            expect((await filesOf(refused.store.backend(refused.target.db))).size).toBe(0);
          }
        }
        // One from before signing, on the operator's word.
        const taken = await restore(await edited(false, false), "--allow-unsigned");
        expect(taken.code).toBe(0);
        expect(taken.output).toContain(
          "Warning: The snapshot's manifest is not signed under a key this install has",
        );
      },
      scaled(120_000),
    );

    it(
      "refuses a database or a store that is not empty, and changes nothing",
      async () => {
        const before = await rowsOf(engine.database.db, "subscribers");
        const intoSource = await herald(
          ["restore", "--from", after],
          envOf(engine.database, await newStore(storeKind)),
        );
        expect(intoSource.code).toBe(1);
        expect(intoSource.output).toContain("is not empty");
        expect(intoSource.output).toContain("Nothing was restored");
        expect(await rowsOf(engine.database.db, "subscribers")).toEqual(before);

        if (storeKind !== "database") {
          const target = await freshDatabase();
          const intoFullStore = await herald(["restore", "--from", after], envOf(target, source));
          expect(intoFullStore.code).toBe(1);
          expect(intoFullStore.output).toContain(`The file store (${storeKind}) is not empty`);
          expect(await isEmptyDatabase(target)).toBe(true);
        }
      },
      scaled(60_000),
    );

    it(
      "refuses a snapshot signed under another key; with --allow-unsigned, warns that its secrets cannot be opened",
      async () => {
        const otherKey = { HERALD_SECRET_KEY: "another-key-another-key-another-key-0123" };
        const refusedTarget = await freshDatabase();
        const refused = await herald(
          ["restore", "--from", after],
          envOf(refusedTarget, await newStore(storeKind), otherKey),
        );
        expect(refused.code).toBe(1);
        expect(refused.output).toContain(
          `Its manifest is signed under key id ${getSecretBox().keyId}, which is neither HERALD_SECRET_KEY here`,
        );
        expect(await isEmptyDatabase(refusedTarget)).toBe(true);
        const target = await freshDatabase();
        const restored = await herald(
          ["restore", "--from", after, "--allow-unsigned"],
          envOf(target, await newStore(storeKind), otherKey),
        );
        expect(restored.code).toBe(0);
        expect(restored.output).toContain(
          `Warning: The snapshot's sealed secrets (two-factor sign-in, DKIM keys, webhook secrets) need the secret key with id ${getSecretBox().keyId}`,
        );
      },
      scaled(60_000),
    );
  },
);

/** Snapshot directories in `dir` that are finished (not `….partial`), oldest first. */
const finishedSnapshots = (dir: string) =>
  existsSync(dir)
    ? readdirSync(dir)
        .filter((name) => /^herald-\d{8}T\d{6}Z$/.test(name))
        .sort()
    : [];

describe.each(testDialects())("scheduled backups on %s", (dialect) => {
  let database: TestDatabase;
  const servers: RunningServer[] = [];
  let backupDir = "";

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    await migrateToLatest(database.db);
    await seedTenants(database.db);
    await createStaffUser(database.db, { email: "chief@example.com", role: "super_admin" });
    await createStaffUser(database.db, { email: "editor@example.com", products: { main: true } });
    backupDir = join(tempDir("scheduled"), "backups");
  }, scaled(60_000));

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await database?.drop();
  });

  /** Waits until `count` successes were recorded (each a new `at`), on a deadline for this machine. */
  async function successes(count: number): Promise<string[]> {
    const seen = new Set<string>();
    const deadline = Date.now() + scaled(60_000);
    while (seen.size < count && Date.now() < deadline) {
      const text = await readSetting(database.db, BACKUP_SUCCESS_SETTING);
      if (text) seen.add(text);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(seen.size).toBeGreaterThanOrEqual(count);
    return [...seen];
  }

  it(
    "writes a snapshot each turn, keeps the newest BACKUP_KEEP, and shows the last to super admins only",
    async () => {
      const uploads = tempDir("uploads");
      const instances = dialect === "postgres" ? 2 : 1;
      for (let index = 0; index < instances; index++) {
        servers.push(
          await startServer({
            databaseUrl: database.url,
            env: {
              SESSION_SECRET: "scheduled-backups-secret-0123456789abcdef",
              UPLOADS_DIR: uploads,
              BACKUP_DIR: backupDir,
              BACKUP_EVERY: "1s",
              BACKUP_KEEP: "2",
              LOG_LEVEL: "info",
            },
          }),
        );
      }
      await successes(4);
      // The last success is on the tenant manager, for a super admin.
      const [server] = servers as [RunningServer];
      const chief = await signIn(server.url, "chief@example.com");
      // A snapshot is taken every second: the page shows the last success at some moment between
      // the two reads of the setting (names sort by time), not necessarily the one read after it.
      const lastDir = async (): Promise<string> =>
        JSON.parse((await readSetting(database.db, BACKUP_SUCCESS_SETTING)) ?? "{}").dir;
      const before = await lastDir();
      const page = await (
        await fetch(`${server.url}/admin/tenants`, { headers: { cookie: chief } })
      ).text();
      const after = await lastDir();
      expect(page).toContain("Last backup:");
      const shown = page.match(/herald-\d{8}T\d{6}Z/)?.[0] ?? "";
      expect(page).toContain(join(backupDir, shown));
      expect(shown >= basename(before) && shown <= basename(after), shown).toBe(true);
      // Tenant staff never see it.
      const editor = await signIn(server.url, "editor@example.com");
      for (const path of ["/admin/tenants", "/admin"]) {
        const response = await fetch(`${server.url}${path}`, { headers: { cookie: editor } });
        const body = await response.text();
        expect(body).not.toContain(backupDir);
        expect(body).not.toContain("Last backup");
      }
      await Promise.all(servers.map((each) => each.stop()));

      // Only the newest two, each whole; the newest is the last success recorded.
      const kept = finishedSnapshots(backupDir);
      expect(kept).toHaveLength(2);
      expect(join(backupDir, kept[1] ?? "")).toBe(
        JSON.parse((await readSetting(database.db, BACKUP_SUCCESS_SETTING)) ?? "{}").dir,
      );
      for (const name of kept) {
        expect((await verifySnapshot(join(backupDir, name))).dialect).toBe(dialect);
      }
      expect(await readSetting(database.db, BACKUP_FAILURE_SETTING)).toBeNull();
      expect(await readSetting(database.db, BACKUP_TURN_SETTING)).toMatch(/^\d{4}-/);
      // Each turn was taken by one instance only.
      const turns = servers.flatMap((each) =>
        each
          .output()
          .split("\n")
          .filter((line) => line.includes('"msg":"backup written"'))
          .map((line) => JSON.parse(line).turn as string),
      );
      expect(turns.length).toBeGreaterThanOrEqual(4);
      expect(new Set(turns).size).toBe(turns.length);
    },
    scaled(120_000),
  );
});
