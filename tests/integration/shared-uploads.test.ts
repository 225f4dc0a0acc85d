import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import S3rver from "s3rver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateToLatest } from "../../server/db/migrate";
import { seedTenants } from "../../server/tenants/seed";
import { createStaffUser, signIn } from "../support/auth";
import { createTestDatabase, type TestDatabase } from "../support/database";
import { testPng } from "../support/images";
import { freePort, type RunningServer, startServer } from "../support/server";
import { scaled } from "../support/timing";

/*
 * Issue 14, part 6: behind a load balancer every instance serves every upload. Two instances; an
 * image uploaded through one is read through the other — from PostgreSQL (`stored_files`) when
 * that is the database, and from S3-compatible storage (s3rver on loopback) when S3_* is set.
 */

const BUCKET = "herald-uploads";

interface Setup {
  store: string;
  runs: boolean;
  dialect: "sqlite" | "postgres";
  s3: boolean;
}

const SETUPS: Setup[] = [
  {
    store: "PostgreSQL",
    runs: Boolean(process.env.TEST_DATABASE_URL),
    dialect: "postgres",
    s3: false,
  },
  { store: "S3", runs: true, dialect: "sqlite", s3: true },
];

describe.each(SETUPS.filter(({ runs }) => runs))(
  "uploads across two instances in $store",
  ({ dialect, s3 }) => {
    let database: TestDatabase;
    let s3rver: S3rver | undefined;
    const s3Dir = mkdtempSync(join(tmpdir(), "herald-s3-"));
    const uploadDirs = [0, 1].map(() => mkdtempSync(join(tmpdir(), "herald-uploads-")));
    const servers: RunningServer[] = [];

    beforeAll(async () => {
      database = await createTestDatabase(dialect);
      await migrateToLatest(database.db);
      await seedTenants(database.db);
      await createStaffUser(database.db, { email: "editor@example.com", role: "super_admin" });
      const env: Record<string, string> = {};
      if (s3) {
        const port = await freePort();
        s3rver = new S3rver({
          address: "127.0.0.1",
          port,
          silent: true,
          directory: s3Dir,
          configureBuckets: [{ name: BUCKET, configs: [] }],
        });
        await s3rver.run();
        Object.assign(env, {
          S3_BUCKET: BUCKET,
          S3_ENDPOINT: `http://127.0.0.1:${port}`,
          S3_FORCE_PATH_STYLE: "true",
          S3_ACCESS_KEY_ID: "S3RVER",
          S3_SECRET_ACCESS_KEY: "S3RVER",
        });
      }
      for (const dir of uploadDirs) {
        servers.push(
          await startServer({ databaseUrl: database.url, env: { ...env, UPLOADS_DIR: dir } }),
        );
      }
    }, scaled(90_000));

    afterAll(async () => {
      await Promise.all(servers.map((server) => server.stop()));
      await s3rver?.close();
      await database?.drop();
      for (const dir of [s3Dir, ...uploadDirs]) rmSync(dir, { recursive: true, force: true });
    });

    it("an image uploaded through one instance is served by the other, variants included", async () => {
      const [a, b] = servers as [RunningServer, RunningServer];
      const cookie = await signIn(a.url, "editor@example.com");
      const form = new FormData();
      form.set("file", new Blob([testPng(900, 300).slice()], { type: "image/png" }), "wide.png");
      const uploaded = await fetch(`${a.url}/admin/uploads`, {
        method: "POST",
        body: form,
        headers: { cookie, origin: a.url },
      });
      expect(uploaded.status).toBe(200);
      const { url } = (await uploaded.json()) as { url: string };
      expect(url).toMatch(/^\/uploads\/main\/[0-9a-f]{32}\.(png|jpg)$/);

      const fromA = await fetch(`${a.url}${url}`);
      const fromB = await fetch(`${b.url}${url}`);
      expect([fromA.status, fromB.status]).toEqual([200, 200]);
      expect(fromB.headers.get("content-type")).toBe(fromA.headers.get("content-type"));
      expect(Buffer.from(await fromB.arrayBuffer())).toEqual(
        Buffer.from(await fromA.arrayBuffer()),
      );
      const webp = url.replace(/\.(png|jpg)$/, "-900.webp");
      expect((await fetch(`${b.url}${webp}`)).headers.get("content-type")).toBe("image/webp");
      // Nothing stored is found for a key never written, on either instance.
      const missing = url.replace(/[0-9a-f]{32}/, "0".repeat(32));
      expect((await fetch(`${b.url}${missing}`)).status).toBe(404);
      // Neither instance kept the file on its own disk.
      for (const dir of uploadDirs) expect(readdirSync(dir)).toEqual([]);
      if (s3) expect(readdirSync(s3Dir)).toContain(BUCKET);
    });
  },
);
