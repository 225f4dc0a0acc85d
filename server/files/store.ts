import { randomBytes } from "node:crypto";
import { mkdir, readdir, readFile as readFromDisk, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import type { S3Client } from "@aws-sdk/client-s3";
import type { Db } from "../db";
import { isPostgres } from "../db/portable";
import { crossTenant, tenantDb } from "../db/tenant-guard";
import { getEnv } from "../env";
import { lazy } from "../lazy";

/**
 * The file store (DESIGN.md §5): logos, favicons and newsletter images as {tenantId}/{32 hex}.{ext}
 * (and their variants). Every instance must see every file (issue 14, part 6), so they live in
 * S3-compatible storage when S3_BUCKET is set, else in the database when it is PostgreSQL (table
 * `stored_files`), else on this machine's disk under UPLOADS_DIR (one instance: SQLite).
 */
export const CONTENT_TYPES = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  avif: "image/avif",
} as const;

export type StoredExtension = keyof typeof CONTENT_TYPES;

/**
 * The only keys the store reads or writes: no dots, slashes or anything else a path could abuse.
 * `-{width}` names a variant of the same image (issue 12: WebP and AVIF for the web page).
 */
const KEY_PATTERN = /^[a-z0-9-]+\/[a-f0-9]{32}(?:-[1-9][0-9]{0,3})?\.(png|jpe?g|gif|webp|avif)$/;
const TENANT_PATTERN = /^[a-z0-9-]+$/;

export function isValidFileKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

export function fileUrl(key: string): string {
  return `/uploads/${key}`;
}

/** Where bytes go: one of the three stores below, chosen once per process by fileStoreFor. */
export interface FileBackend {
  readonly kind: "s3" | "database" | "disk";
  write(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  /** the bytes under `key`, or null when nothing is stored there */
  read(key: string): Promise<Buffer | null>;
  /** every key stored, in no set order (backups: server/backups/); other names are skipped */
  keys(): AsyncIterable<string>;
}

export function diskBackend(root: string = resolve(getEnv().UPLOADS_DIR)): FileBackend {
  return {
    kind: "disk",
    async write(key, bytes) {
      const path = join(root, key);
      // Only this user, like the database and snapshots: drafts' images are not public yet.
      await mkdir(dirname(path), { recursive: true, mode: 0o700 });
      // "wx": never overwrite; a clash of 128 random bits would be a bug worth an error.
      await writeFile(path, bytes, { flag: "wx", mode: 0o600 });
    },
    async read(key) {
      try {
        return await readFromDisk(join(root, key));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
        throw error;
      }
    },
    async *keys() {
      let tenants: string[];
      try {
        tenants = await readdir(root);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
        throw error;
      }
      for (const tenant of tenants.sort()) {
        if (!TENANT_PATTERN.test(tenant)) continue;
        const names = await readdir(join(root, tenant)).catch(() => [] as string[]);
        for (const name of names.sort()) {
          if (isValidFileKey(`${tenant}/${name}`)) yield `${tenant}/${name}`;
        }
      }
    },
  };
}

/** PostgreSQL: the bytes in `stored_files`, which every instance on the database reads. */
export function databaseBackend(db: Db): FileBackend {
  const tenantOf = (key: string) => key.slice(0, key.indexOf("/"));
  // Files are read across tenants on purpose: each as the tenant its key names, whatever tenant
  // `db` is bound to, and all of them for a backup's listing.
  const anyTenant = crossTenant(db);
  return {
    kind: "database",
    async write(key, bytes, contentType) {
      await db
        .insertInto("stored_files")
        .values({
          key,
          tenant_id: tenantOf(key),
          content_type: contentType,
          bytes: Buffer.from(bytes),
          created_at: new Date().toISOString(),
        })
        .execute();
    },
    async read(key) {
      // The key names its tenant (an upload is served on any host that links it).
      const row = await tenantDb(anyTenant, tenantOf(key))
        .selectFrom("stored_files")
        .select("bytes")
        .where("key", "=", key)
        .executeTakeFirst();
      return row ? Buffer.from(row.bytes) : null;
    },
    async *keys() {
      // Across tenants: the whole store, a page of keys at a time.
      let after = "";
      for (;;) {
        const rows = await anyTenant
          .selectFrom("stored_files")
          .select("key")
          .where("key", ">", after)
          .orderBy("key")
          .limit(1000)
          .execute();
        for (const row of rows) yield row.key;
        const last = rows.at(-1);
        if (!last || rows.length < 1000) return;
        after = last.key;
      }
    },
  };
}

/** Where the S3-compatible store is and how to sign in to it (S3_* in the environment). */
export interface S3Settings {
  bucket: string;
  region: string;
  endpoint?: string;
  forcePathStyle: boolean;
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

export function s3SettingsFromEnv(): S3Settings | null {
  const env = getEnv();
  if (!env.S3_BUCKET) return null;
  return {
    bucket: env.S3_BUCKET,
    region: env.S3_REGION,
    endpoint: env.S3_ENDPOINT,
    forcePathStyle: env.S3_FORCE_PATH_STYLE === "true",
    credentials:
      env.S3_ACCESS_KEY_ID && env.S3_SECRET_ACCESS_KEY
        ? { accessKeyId: env.S3_ACCESS_KEY_ID, secretAccessKey: env.S3_SECRET_ACCESS_KEY }
        : undefined,
  };
}

/**
 * The AWS SDK, loaded when S3 is first used: a server storing files elsewhere never holds it (a few
 * MB of heap and startup time).
 */
const loadS3Sdk = lazy(() => import("@aws-sdk/client-s3"));

/** One client per process (it keeps its connections open), made on first use. */
let s3Client: Promise<S3Client> | undefined;

function sharedS3Client(settings: S3Settings): Promise<S3Client> {
  s3Client ??= loadS3Sdk().then(
    ({ S3Client }) =>
      new S3Client({
        region: settings.region,
        endpoint: settings.endpoint,
        forcePathStyle: settings.forcePathStyle,
        credentials: settings.credentials,
        // Checksums only where S3 requires them: S3-compatible stores do not all know the newer ones.
        requestChecksumCalculation: "WHEN_REQUIRED",
        responseChecksumValidation: "WHEN_REQUIRED",
      }),
  );
  return s3Client;
}

/** S3-compatible storage; `client` is for tests, which bring their own. */
export function s3Backend(settings: S3Settings, client?: S3Client): FileBackend {
  const s3 = () => (client ? Promise.resolve(client) : sharedS3Client(settings));
  const bucket = settings.bucket;
  return {
    kind: "s3",
    async write(key, bytes, contentType) {
      const [{ PutObjectCommand }, s3Client] = await Promise.all([loadS3Sdk(), s3()]);
      await s3Client.send(
        new PutObjectCommand({ Bucket: bucket, Key: key, Body: bytes, ContentType: contentType }),
      );
    },
    async read(key) {
      const [{ GetObjectCommand, NoSuchKey }, s3Client] = await Promise.all([loadS3Sdk(), s3()]);
      try {
        const object = await s3Client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        return object.Body ? Buffer.from(await object.Body.transformToByteArray()) : null;
      } catch (error) {
        if (error instanceof NoSuchKey) return null;
        throw error;
      }
    },
    async *keys() {
      const [{ ListObjectsV2Command }, s3Client] = await Promise.all([loadS3Sdk(), s3()]);
      let token: string | undefined;
      do {
        const page = await s3Client.send(
          new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: token }),
        );
        for (const object of page.Contents ?? []) {
          if (object.Key && isValidFileKey(object.Key)) yield object.Key;
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
    },
  };
}

/** Closes the S3 client's connections (the server's shutdown). */
export function closeFileStore(): void {
  void s3Client?.then((client) => client.destroy());
  s3Client = undefined;
}

/** The store of this process: S3 when configured, else PostgreSQL, else local disk. */
export function fileStoreFor(db: Db): FileBackend {
  const s3 = s3SettingsFromEnv();
  if (s3) return s3Backend(s3);
  return isPostgres(db) ? databaseBackend(db) : diskBackend();
}

export interface SaveFileInput {
  tenantId: string;
  bytes: Uint8Array;
  contentType: string;
  extension: StoredExtension;
}

export async function saveFile(
  store: FileBackend,
  input: SaveFileInput,
): Promise<{ key: string; url: string }> {
  if (!TENANT_PATTERN.test(input.tenantId)) throw new Error("Invalid tenant id for a stored file");
  return writeKey(store, `${input.tenantId}/${randomBytes(16).toString("hex")}`, input);
}

/** Stores a variant of the file under `key` (another size or format): `{name}-{width}.{ext}`. */
export async function saveVariant(
  store: FileBackend,
  key: string,
  input: Omit<SaveFileInput, "tenantId"> & { width: number },
): Promise<{ key: string; url: string }> {
  if (!isValidFileKey(key)) throw new Error(`Invalid file key ${key}`);
  return writeKey(store, `${key.slice(0, key.lastIndexOf("."))}-${input.width}`, input);
}

async function writeKey(
  store: FileBackend,
  name: string,
  input: Omit<SaveFileInput, "tenantId">,
): Promise<{ key: string; url: string }> {
  if (CONTENT_TYPES[input.extension] !== input.contentType) {
    throw new Error(`Content type ${input.contentType} does not match .${input.extension}`);
  }
  const key = `${name}.${input.extension}`;
  if (!isValidFileKey(key)) throw new Error(`Invalid file key ${key}`);
  await store.write(key, input.bytes, input.contentType);
  return { key, url: fileUrl(key) };
}

export interface StoredFile {
  bytes: Buffer;
  contentType: string;
}

/** The file under `key`, or null when the key is malformed or nothing is stored there. */
export async function readFile(store: FileBackend, key: string): Promise<StoredFile | null> {
  if (!isValidFileKey(key)) return null;
  const extension = key.slice(key.lastIndexOf(".") + 1) as StoredExtension;
  const bytes = await store.read(key);
  return bytes ? { bytes, contentType: CONTENT_TYPES[extension] } : null;
}
