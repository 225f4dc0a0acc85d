import { LIMIT_KEYS, type LimitKey, type LimitValue } from "../../shared/schemas/tenant-limits";
import type { Db } from "../db";
import type { LimitsEnv } from "../env-limits";
import { saveTenantLimits, tenantLimits } from "./limits";
import { tenantUsage } from "./usage";
import { getTenantView } from "./views";

/*
 * GET and PATCH /api/tenants/{id}/limits (decision 057): a super admin reads a tenant's limits with
 * what it uses of each, and changes some of them. A tenant that does not exist is a 404.
 */

export interface TenantLimitsView {
  tenantId: string;
  /** what holds: the tenant's own value, else the install's default */
  limits: Record<LimitKey, LimitValue>;
  /** the tenant's own values; null: the default */
  own: Record<LimitKey, LimitValue | null>;
  defaults: Record<LimitKey, LimitValue>;
  /** what is used now: subscribers, this month's campaign emails, today's test emails, bytes… */
  usage: Record<LimitKey, number>;
}

export async function tenantLimitsView(
  db: Db,
  id: string,
  env: LimitsEnv,
): Promise<TenantLimitsView> {
  const tenant = await getTenantView(db, id);
  const [limits, lines] = await Promise.all([
    tenantLimits(db, tenant.id, env),
    tenantUsage(db, tenant.id, env),
  ]);
  const usage = Object.fromEntries(LIMIT_KEYS.map((key) => [key, 0])) as Record<LimitKey, number>;
  for (const line of lines) usage[line.key] = line.used;
  return {
    tenantId: tenant.id,
    limits: limits.effective,
    own: limits.own,
    defaults: limits.defaults,
    usage,
  };
}

/** PATCH: the limits the body names change (validated in saveTenantLimits), the rest stay. */
export async function patchTenantLimits(
  db: Db,
  actor: string,
  id: string,
  body: unknown,
  env: LimitsEnv,
): Promise<TenantLimitsView> {
  const tenant = await getTenantView(db, id);
  await saveTenantLimits(db, actor, tenant.id, body);
  return tenantLimitsView(db, tenant.id, env);
}
