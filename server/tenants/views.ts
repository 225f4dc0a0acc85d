import { TENANT_MESSAGES, type TenantSettings } from "../../shared/schemas/tenant";
import { ApiError } from "../api/errors";
import { canManageTenant, type StaffUser } from "../auth/permissions";
import type { Db } from "../db";
import type { TenantRow } from "../db/schema";
import { tenantDb } from "../db/tenant-guard";
import type { TenantConfig } from "./config";
import { toTenantConfig } from "./store";

/* What the tenant manager and the tenants API show of a tenant, to its managers and to anyone. */

/** What the API and the manager show of a tenant. */
export type TenantView = TenantConfig & { createdAt: string; updatedAt: string };

export function viewOf(row: TenantRow): TenantView {
  return { ...toTenantConfig(row), createdAt: row.created_at, updatedAt: row.updated_at };
}

/** The whole configuration for staff who manage the tenant, its public face for anyone else. */
export function tenantViewFor(user: StaffUser | null, tenant: TenantView) {
  return user && canManageTenant(user, tenant.id) ? tenant : publicTenantView(tenant);
}

/** What anyone may read: the look of a brand, nothing about its mail or templates. */
export function publicTenantView(tenant: TenantConfig) {
  return {
    id: tenant.id,
    name: tenant.name,
    domain: tenant.domain,
    description: tenant.description,
    branding: tenant.branding,
    features: tenant.features,
  };
}

/** The editable settings of a config (the manager's form values, the API's PUT body). */
export function settingsOf(config: TenantConfig): TenantSettings {
  return {
    name: config.name,
    description: config.description,
    mailerLiteGroupId: config.mailerLiteGroupId ?? "",
    branding: config.branding,
    emailTemplates: config.emailTemplates,
    features: config.features,
    email: config.email,
    senderDomains: config.senderDomains,
    emailGroups: config.emailGroups,
    mailProvider: config.mailProvider,
    mailerLiteGroups: config.mailerLiteGroups,
    timeZone: config.timeZone,
  };
}

export async function rowOf(db: Db, id: string): Promise<TenantRow> {
  const row = await db.selectFrom("tenants").selectAll().where("id", "=", id).executeTakeFirst();
  if (!row) throw new ApiError("NOT_FOUND", TENANT_MESSAGES.notFound);
  return row;
}

export async function listTenantViews(db: Db): Promise<TenantView[]> {
  const rows = await db.selectFrom("tenants").selectAll().orderBy("name").execute();
  return rows.map(viewOf);
}

export async function getTenantView(db: Db, id: string): Promise<TenantView> {
  return viewOf(await rowOf(db, id));
}

export async function getTenantViewByDomain(db: Db, domain: string): Promise<TenantView> {
  const row = await db
    .selectFrom("tenants")
    .selectAll()
    .where("domain", "=", domain.trim().toLowerCase())
    .executeTakeFirst();
  if (!row) throw new ApiError("NOT_FOUND", TENANT_MESSAGES.notFound);
  return viewOf(row);
}

const OWNED_TABLES = ["newsletters", "subscribers", "campaigns", "contact_messages"] as const;

/** How many records a tenant owns, table by table (tables where it owns none are left out). */
export async function tenantDataCounts(root: Db, id: string): Promise<Record<string, number>> {
  const db = tenantDb(root, id);
  const counts: Record<string, number> = {};
  for (const table of OWNED_TABLES) {
    const { n } = await db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    if (Number(n) > 0) counts[table] = Number(n);
  }
  return counts;
}
