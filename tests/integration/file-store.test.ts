import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HeadObjectCommand, S3Client } from "@aws-sdk/client-s3";
import S3rver from "s3rver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateToLatest } from "../../server/db/migrate";
import { crossTenant } from "../../server/db/tenant-guard";
import {
  databaseBackend,
  diskBackend,
  type FileBackend,
  readFile,
  type S3Settings,
  s3Backend,
  saveFile,
  saveVariant,
} from "../../server/files/store";
import { seedTenants } from "../../server/tenants/seed";
import { createTestDatabase, type TestDatabase, testDialects } from "../support/database";
import { freePort } from "../support/server";

/*
 * Issue 14, part 6: the three places uploads live keep the same promise — the bytes written under
 * a key are the bytes read back, a key never written reads as nothing — each against the real
 * thing: a directory, the database (SQLite and PostgreSQL) and an S3-compatible server (s3rver).
 */

const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 255, 7]);

function keepsItsPromise(name: string, backend: () => FileBackend) {
  describe(`the ${name} file store`, () => {
    it("reads back the bytes and content type written, variants included", async () => {
      const store = backend();
      const saved = await saveFile(store, {
        tenantId: "main",
        bytes: png,
        contentType: "image/png",
        extension: "png",
      });
      const variant = await saveVariant(store, saved.key, {
        bytes: new Uint8Array([1, 2, 3]),
        contentType: "image/webp",
        extension: "webp",
        width: 320,
      });
      expect(variant.key).toBe(saved.key.replace(/\.png$/, "-320.webp"));
      const read = await readFile(store, saved.key);
      expect(read?.contentType).toBe("image/png");
      expect(new Uint8Array(read?.bytes ?? [])).toEqual(png);
      const readVariant = await readFile(store, variant.key);
      expect(readVariant?.contentType).toBe("image/webp");
      expect([...(readVariant?.bytes ?? [])]).toEqual([1, 2, 3]);
    });

    it("reads nothing for a key never written, nor for another tenant's name of it", async () => {
      const store = backend();
      const saved = await saveFile(store, {
        tenantId: "main",
        bytes: png,
        contentType: "image/png",
        extension: "png",
      });
      expect(await readFile(store, "main/0123456789abcdef0123456789abcdef.png")).toBeNull();
      expect(await readFile(store, saved.key.replace(/^main\//, "other/"))).toBeNull();
      // A malformed key never reaches the store.
      expect(await readFile(store, `../${saved.key}`)).toBeNull();
    });

    it("lists every key it holds, once each, for a backup to copy", async () => {
      const store = backend();
      const saved = await saveFile(store, {
        tenantId: "keydiscovery",
        bytes: png,
        contentType: "image/png",
        extension: "png",
      });
      const variant = await saveVariant(store, saved.key, {
        bytes: new Uint8Array([4, 5, 6]),
        contentType: "image/webp",
        extension: "webp",
        width: 640,
      });
      const keys: string[] = [];
      for await (const key of store.keys()) keys.push(key);
      expect(keys).toEqual(expect.arrayContaining([saved.key, variant.key]));
      expect(new Set(keys).size).toBe(keys.length);
      for (const key of keys) expect(await store.read(key)).not.toBeNull();
    });
  });
}

const diskRoot = mkdtempSync(join(tmpdir(), "herald-disk-store-"));
afterAll(() => rmSync(diskRoot, { recursive: true, force: true }));
keepsItsPromise("disk", () => diskBackend(diskRoot));

describe("the disk file store's list", () => {
  it("leaves out what is not a stored file (a stray file, a temporary directory)", async () => {
    const root = mkdtempSync(join(tmpdir(), "herald-disk-list-"));
    try {
      const store = diskBackend(root);
      const saved = await saveFile(store, {
        tenantId: "main",
        bytes: png,
        contentType: "image/png",
        extension: "png",
      });
      writeFileSync(join(root, "main", "notes.txt"), "not an upload");
      mkdirSync(join(root, "Temp"));
      writeFileSync(join(root, "Temp", "0123456789abcdef0123456789abcdef.png"), "x");
      const keys: string[] = [];
      for await (const key of store.keys()) keys.push(key);
      expect(keys).toEqual([saved.key]);
      expect(
        await (async () => {
          for await (const key of diskBackend(join(root, "missing")).keys()) return key;
          return null;
        })(),
      ).toBeNull();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

for (const dialect of testDialects()) {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    await migrateToLatest(database.db);
    await seedTenants(database.db);
  });
  afterAll(async () => {
    await database?.drop();
  });
  keepsItsPromise(`database (${dialect})`, () => databaseBackend(database.db));

  describe(`the database file store (${dialect})`, () => {
    it("files each row under its tenant, and the rows go with the tenant", async () => {
      await crossTenant(database.db)
        .insertInto("tenants")
        .values({ ...(await tenantRow(database, "main")), id: "leaving", domain: "leaving.test" })
        .execute();
      const saved = await saveFile(databaseBackend(database.db), {
        tenantId: "leaving",
        bytes: png,
        contentType: "image/png",
        extension: "png",
      });
      const row = await crossTenant(database.db)
        .selectFrom("stored_files")
        .select(["tenant_id", "content_type"])
        .where("key", "=", saved.key)
        .executeTakeFirst();
      expect(row).toEqual({ tenant_id: "leaving", content_type: "image/png" });
      await crossTenant(database.db).deleteFrom("tenants").where("id", "=", "leaving").execute();
      expect(await readFile(databaseBackend(database.db), saved.key)).toBeNull();
    });
  });
}

/** A copy of a seeded tenant's row, to make another one from. */
async function tenantRow(database: TestDatabase, id: string) {
  return crossTenant(database.db)
    .selectFrom("tenants")
    .selectAll()
    .where("id", "=", id)
    .executeTakeFirstOrThrow();
}

const s3Dir = mkdtempSync(join(tmpdir(), "herald-s3-store-"));
let s3rver: S3rver;
let settings: S3Settings;
let client: S3Client;
beforeAll(async () => {
  const port = await freePort();
  s3rver = new S3rver({
    address: "127.0.0.1",
    port,
    silent: true,
    directory: s3Dir,
    configureBuckets: [{ name: "herald-store-test", configs: [] }],
  });
  await s3rver.run();
  settings = {
    bucket: "herald-store-test",
    region: "us-east-1",
    endpoint: `http://127.0.0.1:${port}`,
    forcePathStyle: true,
    credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" },
  };
  client = new S3Client({ ...settings, requestChecksumCalculation: "WHEN_REQUIRED" });
});
afterAll(async () => {
  client?.destroy();
  await s3rver?.close();
  rmSync(s3Dir, { recursive: true, force: true });
});
keepsItsPromise("S3", () => s3Backend(settings, client));

describe("the S3 file store", () => {
  it("keeps the content type on the object, where a CDN in front of the bucket finds it", async () => {
    const saved = await saveFile(s3Backend(settings, client), {
      tenantId: "main",
      bytes: png,
      contentType: "image/png",
      extension: "png",
    });
    const head = await client.send(
      new HeadObjectCommand({ Bucket: settings.bucket, Key: saved.key }),
    );
    expect(head.ContentType).toBe("image/png");
    expect(head.ContentLength).toBe(png.length);
  });

  it("fails loudly when the bucket is not there, rather than reading nothing", async () => {
    const missing = s3Backend({ ...settings, bucket: "no-such-bucket" }, client);
    await expect(readFile(missing, "main/0123456789abcdef0123456789abcdef.png")).rejects.toThrow();
    expect(readdirSync(s3Dir)).not.toContain("no-such-bucket");
  });
});
