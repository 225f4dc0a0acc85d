import type { Db } from "../db";
import { tenantDb } from "../db/tenant-guard";
import type { TenantConfig } from "./config";

/*
 * A tenant's audit trail (`tenant_changes`, written here only): every change to a tenant, field by
 * field, with who made it. The tenant manager's writes (admin.ts) and DKIM keys (dkim.ts) record
 * theirs in the transaction of the change itself.
 */

export interface TenantChange {
  field: string;
  before: unknown;
  after: unknown;
}

export interface TenantHistoryEntry {
  id: number;
  action: "created" | "updated" | "deleted";
  actor: string;
  changes: TenantChange[];
  createdAt: string;
}

/** Field-by-field differences between two configs, as "branding.primaryColor" paths. */
export function diffConfigs(
  before: TenantConfig | null,
  after: TenantConfig | null,
): TenantChange[] {
  const flat = (config: TenantConfig | null): Map<string, unknown> => {
    const out = new Map<string, unknown>();
    const walk = (value: unknown, path: string) => {
      if (value && typeof value === "object" && !Array.isArray(value)) {
        for (const [key, inner] of Object.entries(value))
          walk(inner, path ? `${path}.${key}` : key);
      } else {
        out.set(path, value);
      }
    };
    if (config) walk(config, "");
    return out;
  };
  const a = flat(before);
  const b = flat(after);
  const changes: TenantChange[] = [];
  for (const field of new Set([...a.keys(), ...b.keys()])) {
    const was = a.get(field) ?? null;
    const now = b.get(field) ?? null;
    if (JSON.stringify(was) !== JSON.stringify(now))
      changes.push({ field, before: was, after: now });
  }
  return changes;
}

export async function recordChange(
  db: Db,
  tenantId: string,
  action: TenantHistoryEntry["action"],
  actor: string,
  changes: TenantChange[],
): Promise<void> {
  await db
    .insertInto("tenant_changes")
    .values({
      tenant_id: tenantId,
      action,
      actor,
      changes: JSON.stringify(changes),
      created_at: new Date().toISOString(),
    })
    .execute();
}

export async function tenantHistory(
  root: Db,
  tenantId: string,
  limit = 50,
): Promise<TenantHistoryEntry[]> {
  const rows = await tenantDb(root, tenantId)
    .selectFrom("tenant_changes")
    .selectAll()
    .orderBy("id", "desc")
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    id: row.id,
    action: row.action,
    actor: row.actor,
    changes: JSON.parse(row.changes) as TenantChange[],
    createdAt: row.created_at,
  }));
}
