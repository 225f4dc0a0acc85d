import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateToLatest } from "../../server/db/migrate";
import { seedTenants } from "../../server/tenants/seed";
import { createStaffUser, TEST_PASSWORD } from "../support/auth";
import { createTestDatabase, type TestDatabase } from "../support/database";
import { type RunningServer, startServer } from "../support/server";
import { scaled } from "../support/timing";

/**
 * Issue 14, part 6: behind a load balancer, two instances share their rate limits — in PostgreSQL
 * when that is the database (rate-limiter-flexible's PostgreSQL store), in Redis when REDIS_URL is
 * set (here on two instances of one SQLite file, so only Redis can join their counts): an attacker
 * does not get twice the budget. Redis runs when TEST_REDIS_URL names one (.ci/run does).
 */
async function withRedis<T>(use: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis(process.env.TEST_REDIS_URL ?? "");
  try {
    return await use(redis);
  } finally {
    redis.disconnect();
  }
}

const STORES = [
  { store: "PostgreSQL", runs: Boolean(process.env.TEST_DATABASE_URL) },
  { store: "Redis", runs: Boolean(process.env.TEST_REDIS_URL) },
];

// A store that is not here is a skipped suite (never "no test found" on a machine without it).
for (const { store, runs } of STORES) {
  describe.runIf(runs)(`rate limits across two instances in ${store}`, () => {
    let database: TestDatabase;
    const servers: RunningServer[] = [];
    // A prefix of this run's own: runs sharing the machine's Redis never see each other's counts.
    const redisPrefix = `herald-test-${randomBytes(6).toString("hex")}:`;

    beforeAll(async () => {
      database = await createTestDatabase(store === "PostgreSQL" ? "postgres" : "sqlite");
      await migrateToLatest(database.db);
      await seedTenants(database.db);
      await createStaffUser(database.db, { email: "owner@example.com", role: "super_admin" });
      const env: Record<string, string> = {};
      if (store === "Redis") {
        env.REDIS_URL = process.env.TEST_REDIS_URL ?? "";
        env.REDIS_KEY_PREFIX = redisPrefix;
      }
      for (let i = 0; i < 2; i++)
        servers.push(await startServer({ databaseUrl: database.url, env }));
    }, scaled(90_000));

    afterAll(async () => {
      await Promise.all(servers.map((server) => server.stop()));
      await database?.drop();
      if (store === "Redis") {
        await withRedis(async (redis) => {
          const keys = await redis.keys(`${redisPrefix}*`);
          if (keys.length > 0) await redis.del(...keys);
        });
      }
    });

    const signIn = (server: RunningServer, password: string, address: string) =>
      fetch(`${server.url}/admin/login`, {
        method: "POST",
        body: new URLSearchParams({ email: "owner@example.com", password }),
        headers: { "x-forwarded-for": address },
        redirect: "manual",
      });

    it("counts sign-in failures from one address on both instances together", async () => {
      const [a, b] = servers as [RunningServer, RunningServer];
      const statuses: number[] = [];
      // Five failures in a row, spread over the two instances: three on A, two on B.
      for (const server of [a, b, a, b, a]) {
        statuses.push((await signIn(server, "wrong-password-x", "10.6.0.1")).status);
      }
      expect(statuses.every((status) => status !== 429)).toBe(true);
      // Each instance alone saw fewer than five; together they wait.
      expect((await signIn(b, "wrong-password-x", "10.6.0.1")).status).toBe(429);
      expect((await signIn(a, TEST_PASSWORD, "10.6.0.1")).status).toBe(429);
      // The owner elsewhere is not held up, on either instance.
      expect((await signIn(b, TEST_PASSWORD, "10.6.0.2")).status).toBe(302);
      if (store === "Redis") {
        // The count is in Redis, under this run's prefix (and not in either process).
        const keys = await withRedis((redis) => redis.keys(`${redisPrefix}*10.6.0.1*`));
        expect(keys.length).toBeGreaterThan(0);
      }
    });

    it("counts contact messages from one address on both instances together", async () => {
      const [a, b] = servers as [RunningServer, RunningServer];
      const post = (server: RunningServer, i: number) =>
        fetch(`${server.url}/contact`, {
          method: "POST",
          body: new URLSearchParams({
            name: "Busy",
            email: "busy@example.com",
            message: `note ${i}`,
          }),
          headers: { "x-forwarded-for": "10.6.0.9" },
          redirect: "manual",
        });
      const statuses: number[] = [];
      for (let i = 0; i < 10; i++) statuses.push((await post(i % 2 === 0 ? a : b, i)).status);
      expect(statuses.every((status) => status === 302)).toBe(true);
      // Ten per address in ten minutes: five on each instance used them all.
      expect((await post(a, 10)).status).toBe(429);
      expect((await post(b, 11)).status).toBe(429);
    });
  });
}
