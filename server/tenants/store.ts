import type { Db } from "../db";
import type { TenantRow } from "../db/schema";
import { MiB, memoryCache, stringBytes } from "../memory-cache";
import {
  mergeTenantConfig,
  type TenantConfig,
  type TenantOverrides,
  tenantOverridesSchema,
} from "./config";
import { DEFAULT_TENANT_ID, type TenantDirectory } from "./resolve";

/**
 * Tenant configs are read on every request, so they are cached per id, merged over the defaults.
 * A save on this instance drops the entry at once (invalidateTenant); other instances sharing the
 * database see the change when their entry ages out after TENANT_CACHE_TTL_MS.
 */
export const TENANT_CACHE_TTL_MS = 5_000;

export interface CachedTenant {
  config: TenantConfig;
  /** updated_at of the row: the version that cached pages are checked against */
  version: string;
}

interface Entry<T> {
  value: T;
  loadedAt: number;
}

// A tenant's config is a few KB; 8 MiB holds thousands, the least recently used out first.
const configs = memoryCache<string, CachedTenant>({
  maxBytes: 8 * MiB,
  ttlMs: TENANT_CACHE_TTL_MS,
  bytesOf: (tenant, tenantId) =>
    stringBytes(tenantId) +
    stringBytes(tenant.version) +
    stringBytes(JSON.stringify(tenant.config)),
});
// The directory is one value, not a cache of many: it keeps its own time.
let directory: Entry<TenantDirectory> | undefined;
const listeners = new Set<(tenantId: string) => void>();

function fresh<T>(entry: Entry<T> | undefined): entry is Entry<T> {
  return entry !== undefined && Date.now() - entry.loadedAt < TENANT_CACHE_TTL_MS;
}

export function toTenantConfig(row: TenantRow): TenantConfig {
  let overrides: TenantOverrides = {};
  try {
    const parsed = tenantOverridesSchema.safeParse(JSON.parse(row.config));
    if (parsed.success) overrides = parsed.data;
  } catch {
    // A corrupt config falls back to the defaults rather than taking the site down.
  }
  return mergeTenantConfig({
    id: row.id,
    name: row.name,
    domain: row.domain,
    description: row.description,
    mailerLiteGroupId: row.mail_list_group_id,
    overrides,
  });
}

/** The config of a tenant, or of the default tenant when the id is unknown. */
export async function getTenant(db: Db, tenantId: string): Promise<CachedTenant> {
  const hit = configs.get(tenantId);
  if (hit) return hit;
  const row =
    (await db.selectFrom("tenants").selectAll().where("id", "=", tenantId).executeTakeFirst()) ??
    (await db
      .selectFrom("tenants")
      .selectAll()
      .where("id", "=", DEFAULT_TENANT_ID)
      .executeTakeFirst());
  if (!row) throw new Error(`The default tenant '${DEFAULT_TENANT_ID}' is missing: run migrations`);
  const value = { config: toTenantConfig(row), version: row.updated_at };
  configs.set(tenantId, value);
  return value;
}

export async function getTenantDirectory(db: Db): Promise<TenantDirectory> {
  if (fresh(directory)) return directory.value;
  const rows = await db.selectFrom("tenants").select(["id", "domain"]).execute();
  const value: TenantDirectory = {
    ids: new Set(rows.map((row) => row.id)),
    byDomain: new Map(
      rows.flatMap((row) => (row.domain ? [[row.domain.toLowerCase(), row.id] as const] : [])),
    ),
  };
  directory = { value, loadedAt: Date.now() };
  return value;
}

/** Drops a tenant from the caches of this instance and tells listeners (the page cache). */
export function invalidateTenant(tenantId: string): void {
  configs.delete(tenantId);
  directory = undefined;
  for (const listener of listeners) listener(tenantId);
}

export function onTenantChanged(listener: (tenantId: string) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Every tenant's id, name and domain, by name (for staff pages). */
export async function listTenants(
  db: Db,
): Promise<{ id: string; name: string; domain: string | null }[]> {
  return db.selectFrom("tenants").select(["id", "name", "domain"]).orderBy("name").execute();
}
