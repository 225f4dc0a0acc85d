import {
  LIMIT_COLUMNS,
  LIMIT_KEYS,
  type LimitKey,
  type LimitValue,
  limitsPatchSchema,
} from "../../shared/schemas/tenant-limits";
import type { Db } from "../db";
import { tenantDb } from "../db/tenant-guard";
import { defaultLimits, type LimitsEnv } from "../env-limits";
import { recordChange, type TenantChange } from "./history";

/*
 * A tenant's limits (decision 057): `tenant_limits`, written here only. A column is null for the
 * install's default (LIMIT_* in server/env-limits.ts), -1 for unlimited, else the limit itself.
 * What counts against each limit, and the refusals, live in usage.ts.
 */

export type OwnLimits = Record<LimitKey, LimitValue | null>;

export interface TenantLimits {
  /** what holds: the tenant's own value, else the default */
  effective: Record<LimitKey, LimitValue>;
  /** the tenant's own values (null: the default) */
  own: OwnLimits;
  defaults: Record<LimitKey, LimitValue>;
}

const UNLIMITED = -1;

function fromColumn(value: number | string | null | undefined): LimitValue | null {
  if (value === null || value === undefined) return null;
  const n = Number(value);
  return n < 0 ? "unlimited" : n;
}

function toColumn(value: LimitValue | null): number | null {
  if (value === null) return null;
  return value === "unlimited" ? UNLIMITED : value;
}

/** The tenant's own limits (all null when it has none). */
export async function ownLimits(db: Db, tenantId: string): Promise<OwnLimits> {
  const row = await tenantDb(db, tenantId)
    .selectFrom("tenant_limits")
    .selectAll()
    .executeTakeFirst();
  return Object.fromEntries(
    LIMIT_KEYS.map((key) => [key, fromColumn(row?.[LIMIT_COLUMNS[key]])]),
  ) as OwnLimits;
}

/** The tenant's limits: its own, the install's defaults, and what holds. */
export async function tenantLimits(
  db: Db,
  tenantId: string,
  env: LimitsEnv,
): Promise<TenantLimits> {
  const own = await ownLimits(db, tenantId);
  const defaults = defaultLimits(env);
  const effective = Object.fromEntries(
    LIMIT_KEYS.map((key) => [key, own[key] ?? defaults[key]]),
  ) as Record<LimitKey, LimitValue>;
  return { effective, own, defaults };
}

/** The one limit that holds for the tenant now. */
export async function limitOf(
  db: Db,
  tenantId: string,
  key: LimitKey,
  env: LimitsEnv,
): Promise<LimitValue> {
  const row = await tenantDb(db, tenantId)
    .selectFrom("tenant_limits")
    .select(LIMIT_COLUMNS[key])
    .executeTakeFirst();
  const own = fromColumn(
    (row as Record<string, number | string | null> | undefined)?.[LIMIT_COLUMNS[key]],
  );
  return own ?? defaultLimits(env)[key];
}

/**
 * Changes the limits `input` names (validated here: a whole number from 0, "unlimited", or null
 * for the default), the others kept; recorded in the tenant's history in the same transaction.
 */
export async function saveTenantLimits(
  root: Db,
  actor: string,
  tenantId: string,
  input: unknown,
): Promise<OwnLimits> {
  const patch = limitsPatchSchema.parse(input);
  return tenantDb(root, tenantId)
    .transaction()
    .execute(async (trx) => {
      const before = await ownLimits(trx, tenantId);
      const after: OwnLimits = { ...before };
      for (const key of LIMIT_KEYS) {
        const value = patch[key];
        if (value !== undefined) after[key] = value;
      }
      const changes: TenantChange[] = LIMIT_KEYS.filter((key) => before[key] !== after[key]).map(
        (key) => ({ field: `limits.${key}`, before: before[key], after: after[key] }),
      );
      if (changes.length === 0) return after;
      const columns = Object.fromEntries(
        LIMIT_KEYS.map((key) => [LIMIT_COLUMNS[key], toColumn(after[key])]),
      ) as Record<(typeof LIMIT_COLUMNS)[LimitKey], number | null>;
      const values = { ...columns, updated_by: actor, updated_at: new Date().toISOString() };
      await trx
        .insertInto("tenant_limits")
        .values({ tenant_id: tenantId, ...values })
        .onConflict((oc) => oc.column("tenant_id").doUpdateSet(values))
        .execute();
      await recordChange(trx, tenantId, "updated", actor, changes);
      return after;
    });
}
