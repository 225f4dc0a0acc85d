import {
  LIMIT_KEYS,
  LIMIT_LABELS,
  type LimitKey,
  type LimitValue,
  limitMessage,
  MAX_LIMIT,
} from "../../shared/schemas/tenant-limits";
import type { Db } from "../db";
import { tenantDb } from "../db/tenant-guard";
import { getEnv } from "../env";
import type { LimitsEnv } from "../env-limits";
import { createRateLimit } from "../http/rate-limit";
import { limitOf, tenantLimits } from "./limits";

/*
 * What counts against each of a tenant's limits, and the one place that refuses (decision 057).
 * The actions call `limitRefusal` before they write anything and throw their own error with its
 * message, so a refused action does nothing: a sign-up or an import past the subscriber limit, a
 * campaign past the month's mails (counted at review and when it is scheduled or sent, with its
 * recipients, never cut off while sending), a test send, an upload, an import while others run.
 * API requests are counted per tenant and minute in the rate limits' store (Redis, PostgreSQL or
 * this process): `takeApiRequest`.
 */

/** Counts every /api/ request of a tenant's site; the limit is judged against the count. */
const apiRequests = createRateLimit({
  name: "tenant-api",
  points: MAX_LIMIT,
  windowSeconds: 60,
});

/** mail_log's kind of a test send: TEST_SEND_KIND of server/mail/send.ts (which /metrics imports). */
const TEST_SEND_KIND = "campaign-test";

const monthStart = (now: Date) => `${now.toISOString().slice(0, 7)}-01T00:00:00.000Z`;
const dayStart = (now: Date) => `${now.toISOString().slice(0, 10)}T00:00:00.000Z`;

/** What the tenant has used of one limit now (a count, or bytes for storage). */
export async function usageOf(
  root: Db,
  tenantId: string,
  key: LimitKey,
  now = new Date(),
): Promise<number> {
  const db = tenantDb(root, tenantId);
  switch (key) {
    case "subscribers": {
      const row = await db
        .selectFrom("subscribers")
        .select((eb) => eb.fn.countAll<number | string>().as("n"))
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    }
    case "campaignMailsPerMonth": {
      // Every recipient of the campaigns started this month (UTC): their delivery rows.
      const row = await db
        .selectFrom("campaigns")
        .select((eb) => eb.fn.sum<number | string | null>("total").as("n"))
        .where("started_at", ">=", monthStart(now))
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    }
    case "testSendsPerDay": {
      const row = await db
        .selectFrom("mail_log")
        .select((eb) => eb.fn.countAll<number | string>().as("n"))
        .where("kind", "=", TEST_SEND_KIND)
        .where("created_at", ">=", dayStart(now))
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    }
    case "storageBytes": {
      const row = await db
        .selectFrom("images")
        .select((eb) => eb.fn.sum<number | string | null>("bytes").as("n"))
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    }
    case "importsAtOnce": {
      const waiting = ["queued", "running"] as const;
      const [people, archives] = await Promise.all([
        db
          .selectFrom("subscriber_imports")
          .select((eb) => eb.fn.countAll<number | string>().as("n"))
          .where("status", "in", waiting)
          .executeTakeFirst(),
        db
          .selectFrom("archive_imports")
          .select((eb) => eb.fn.countAll<number | string>().as("n"))
          .where("status", "in", waiting)
          .executeTakeFirst(),
      ]);
      return Number(people?.n ?? 0) + Number(archives?.n ?? 0);
    }
    case "apiRequestsPerMinute":
      return apiRequests.count(tenantId);
  }
}

/**
 * The refusal's message when `adding` more of `key` would pass the tenant's limit; null when it
 * fits (or there is no limit: then nothing is counted).
 */
export async function limitRefusal(
  db: Db,
  tenantId: string,
  key: LimitKey,
  adding: number,
  env: LimitsEnv = getEnv(),
): Promise<string | null> {
  const limit = await limitOf(db, tenantId, key, env);
  if (limit === "unlimited") return null;
  const used = await usageOf(db, tenantId, key);
  return used + adding > limit ? limitMessage(key, limit, used, adding) : null;
}

/**
 * Counts one API request of the tenant's site; the refusal's message when it passes the tenant's
 * requests a minute (the request is counted all the same: a caller that keeps on stays refused).
 */
export async function takeApiRequest(
  db: Db,
  tenantId: string,
  env: LimitsEnv = getEnv(),
): Promise<string | null> {
  const [limit, made] = await Promise.all([
    limitOf(db, tenantId, "apiRequestsPerMinute", env),
    apiRequests.hit(tenantId),
  ]);
  if (limit === "unlimited" || made <= limit) return null;
  return limitMessage("apiRequestsPerMinute", limit, made - 1, 1);
}

export interface UsageLine {
  key: LimitKey;
  label: string;
  used: number;
  limit: LimitValue;
  /** the limit is the tenant's own, not the install's default */
  own: boolean;
}

/** Each limit with what is used of it: the dashboard, the tenant page and /metrics read it. */
export async function tenantUsage(
  db: Db,
  tenantId: string,
  env: LimitsEnv = getEnv(),
  now = new Date(),
): Promise<UsageLine[]> {
  const limits = await tenantLimits(db, tenantId, env);
  return Promise.all(
    LIMIT_KEYS.map(async (key) => ({
      key,
      label: LIMIT_LABELS[key],
      used: await usageOf(db, tenantId, key, now),
      limit: limits.effective[key],
      own: limits.own[key] !== null,
    })),
  );
}

export type TenantUsageLines = (UsageLine & { tenant: string })[];

/** Every tenant's usage lines (/metrics): each read on the database bound to its tenant. */
export async function allTenantsUsage(
  db: Db,
  env: LimitsEnv = getEnv(),
): Promise<TenantUsageLines> {
  const tenants = await db.selectFrom("tenants").select("id").orderBy("id").execute();
  const all: TenantUsageLines = [];
  for (const { id } of tenants) {
    for (const line of await tenantUsage(db, id, env)) all.push({ ...line, tenant: id });
  }
  return all;
}
