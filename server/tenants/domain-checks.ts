import { isIP } from "node:net";
import { z } from "zod";
import type { Db } from "../db";
import { crossTenant, tenantDb } from "../db/tenant-guard";
import type { Env } from "../env";
import { createRateLimit } from "../http/rate-limit";
import type { Logger } from "../logger";
import { FIXED_SENDER } from "./config";
import { type DkimRecord, tenantDkim } from "./dkim";
import { type DnsLookup, dnsLookup } from "./dns";
import { checkDomainHealth, type DomainHealth, type DomainHealthInput } from "./domain-health";
import { getTenantView } from "./views";

/**
 * Each tenant's sender domain check, stored (the writer of `domain_checks`; issue 36, target 5;
 * docs/decisions/048-sender-domain-health.md): run from the tenant page and daily by
 * the recurring job "domain-checks" (server/jobs/catalog.ts). The checks themselves: domain-health.ts.
 */

export type DomainCheckEnv = Pick<
  Env,
  | "SMTP_URL"
  | "BOUNCE_DOMAIN"
  | "BOUNCE_SMTP_HOST"
  | "APP_URL"
  | "DNS_SERVERS"
  | "DOMAIN_CHECK_EVERY"
>;

export interface StoredDomainCheck {
  health: DomainHealth;
  checkedAt: string;
  trigger: "staff" | "daily";
}

const DAY_MS = 86_400_000;

function hostOf(url: string | undefined): string | null {
  if (!url) return null;
  try {
    return new URL(url).hostname.replace(/^\[|\]$/g, "") || null;
  } catch {
    return null;
  }
}

/** What a tenant's check looks at: its sender, its DKIM keys (signing and pending), this install's relay and bounce domain. */
export async function domainHealthInput(
  root: Db,
  env: DomainCheckEnv,
  tenantId: string,
): Promise<DomainHealthInput> {
  const db = tenantDb(root, tenantId);
  const tenant = await getTenantView(db, tenantId);
  const keys = await tenantDkim(db, tenantId);
  const published = ({ algorithm, selector, domain, recordName, recordValue }: DkimRecord) => ({
    algorithm,
    selector,
    domain,
    recordName,
    recordValue,
  });
  const bounceHost = env.BOUNCE_SMTP_HOST;
  return {
    fromAddress: tenant.email.senderEmail || FIXED_SENDER.email,
    bounceDomain: env.BOUNCE_DOMAIN,
    sendingHost: hostOf(env.SMTP_URL),
    // The MX names a host that reaches the listener: BOUNCE_SMTP_HOST when it is a name, else the
    // host Herald answers on.
    bounceMxHost: isIP(bounceHost) ? (hostOf(env.APP_URL) ?? env.BOUNCE_DOMAIN) : bounceHost,
    dkim: keys.active.map(published),
    pendingDkim: keys.pending.map(published),
  };
}

/** Checks the tenant's domain now and stores the answer (the next daily check a day later). */
export async function runDomainCheck(
  root: Db,
  env: DomainCheckEnv,
  tenantId: string,
  trigger: "staff" | "daily",
  dns: DnsLookup = dnsLookup(env.DNS_SERVERS),
): Promise<DomainHealth> {
  const health = await checkDomainHealth(dns, await domainHealthInput(root, env, tenantId));
  const db = tenantDb(root, tenantId);
  const row = {
    result: JSON.stringify(health),
    checked_at: health.checkedAt,
    trigger,
    next_check_at: new Date(
      Date.parse(health.checkedAt) + (env.DOMAIN_CHECK_EVERY ?? DAY_MS),
    ).toISOString(),
  };
  await db
    .insertInto("domain_checks")
    .values({ tenant_id: tenantId, ...row })
    .onConflict((conflict) => conflict.column("tenant_id").doUpdateSet(row))
    .execute();
  return health;
}

/** Checks on demand per tenant: each asks a dozen or more DNS questions. */
const checkNowLimit = createRateLimit({ name: "domain-check", points: 5, windowSeconds: 600 });

/** The tenant page's "Check now": the check, unless the tenant used up its 5 in 10 minutes. */
export async function checkDomainNow(
  root: Db,
  env: DomainCheckEnv,
  tenantId: string,
): Promise<DomainHealth | "limited"> {
  if (!(await checkNowLimit.take(tenantId))) return "limited";
  return runDomainCheck(root, env, tenantId, "staff");
}

const storedSchema = z
  .object({
    checkedAt: z.string(),
    records: z.array(z.unknown()),
    // Checks stored before a tenant could sign with two keys named one key, or null.
    dkim: z.preprocess(
      (value) => (value == null ? [] : Array.isArray(value) ? value : [value]),
      z.array(z.unknown()),
    ),
  })
  .loose();

/** The tenant's last check, or null when it was never checked. */
export async function readDomainCheck(
  root: Db,
  tenantId: string,
): Promise<StoredDomainCheck | null> {
  const row = await tenantDb(root, tenantId)
    .selectFrom("domain_checks")
    .select(["result", "checked_at", "trigger"])
    .executeTakeFirst();
  if (!row) return null;
  try {
    const parsed = storedSchema.safeParse(JSON.parse(row.result));
    if (!parsed.success) return null;
    return {
      health: parsed.data as unknown as DomainHealth,
      checkedAt: row.checked_at,
      trigger: row.trigger,
    };
  } catch {
    return null;
  }
}

/**
 * Takes the tenant's daily check when it is due: a tenant never checked gets its row, a due row
 * moves its next time on, each in one statement, so of several instances exactly one runs it.
 */
export async function claimDailyCheck(root: Db, tenantId: string, every: number, now = new Date()) {
  const db = tenantDb(root, tenantId);
  const next = new Date(now.getTime() + every).toISOString();
  const inserted = await db
    .insertInto("domain_checks")
    .values({
      tenant_id: tenantId,
      result: "{}",
      checked_at: now.toISOString(),
      trigger: "daily",
      next_check_at: next,
    })
    .onConflict((conflict) => conflict.column("tenant_id").doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0) return true;
  const moved = await db
    .updateTable("domain_checks")
    .set({ next_check_at: next })
    .where("next_check_at", "<=", now.toISOString())
    .executeTakeFirst();
  return Number(moved.numUpdatedRows) > 0;
}

/** How often the recurring job looks for due checks (a due check waits at most this long). */
export const DOMAIN_CHECK_POLL_MS = 15 * 60_000;

/**
 * Runs every tenant's check that is due (the recurring job "domain-checks", server/jobs/catalog.ts,
 * DOMAIN_CHECK_EVERY; off: none); answers the tenants checked. One tenant's failed check is
 * logged and the others go on; a stop (`signal`) ends it between tenants.
 */
export async function runDueDomainChecks(
  options: { db: Db; logger: Logger; env: DomainCheckEnv; every: number; signal?: AbortSignal },
  now = new Date(),
): Promise<string[]> {
  const { db, logger, env, every, signal } = options;
  // The daily check is the install's round over every tenant; each check binds to its tenant.
  const tenants = await crossTenant(db).selectFrom("tenants").select("id").execute();
  const checked: string[] = [];
  for (const { id } of tenants) {
    signal?.throwIfAborted();
    if (!(await claimDailyCheck(db, id, every, now))) continue;
    try {
      const health = await runDomainCheck(db, env, id, "daily");
      const problems = health.records.filter((record) => record.status !== "ok");
      logger.info(
        { tenantId: id, problems: problems.map((record) => `${record.key}:${record.status}`) },
        "sender domain checked",
      );
      checked.push(id);
    } catch (error) {
      logger.warn({ err: error, tenantId: id }, "sender domain check failed");
    }
  }
  return checked;
}
