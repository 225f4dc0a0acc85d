import { z } from "zod";
import {
  brandingSchema,
  emailTemplatesSchema,
  type NewTenant,
  newTenantSchema,
  TEMPLATE_KEYS,
  TENANT_MESSAGES,
  type TenantSettings,
  tenantSettingsSchema,
} from "../../shared/schemas/tenant";
import { ApiError } from "../api/errors";
import { canManageTenant, type StaffUser } from "../auth/permissions";
import type { Db } from "../db";
import type { TenantRow } from "../db/schema";
import { dropAudienceCounts } from "../subscribers/counts";
import { DEFAULT_TENANT_CONFIG, type TenantConfig, type TenantOverrides } from "./config";
import { DEFAULT_TENANT_ID } from "./resolve";
import { isOwnDomain, notOwnDomainMessage, ownSenderDomains } from "./sender-domains";
import { invalidateTenant, toTenantConfig } from "./store";

export { TENANT_MESSAGES };

/**
 * The tenant manager's rules (issue 6, DESIGN.md §3): create, edit, patch and delete tenants, each
 * change validated, written in one transaction with its audit record, and the tenant's cache
 * dropped at once on this instance (others follow within TENANT_CACHE_TTL_MS).
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

/** What the API and the manager show of a tenant. */
export type TenantView = TenantConfig & { createdAt: string; updatedAt: string };

function viewOf(row: TenantRow): TenantView {
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

async function rowOf(db: Db, id: string): Promise<TenantRow> {
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

/** Only what differs from the defaults is stored, so later default changes still reach a tenant. */
function overridesOf(settings: TenantSettings): TenantOverrides {
  const d = DEFAULT_TENANT_CONFIG;
  const differing = <T extends object>(values: T, defaults: T): Partial<T> =>
    Object.fromEntries(
      Object.entries(values).filter(
        ([key, value]) => JSON.stringify(value) !== JSON.stringify(defaults[key as keyof T]),
      ),
    ) as Partial<T>;
  const emailTemplates: TenantOverrides["emailTemplates"] = {};
  for (const key of TEMPLATE_KEYS) {
    const changed = differing(settings.emailTemplates[key], d.emailTemplates[key]);
    if (Object.keys(changed).length > 0) emailTemplates[key] = changed;
  }
  return {
    branding: differing(settings.branding, { ...d.branding, companyName: settings.name }),
    emailTemplates,
    emailGroups: differing(settings.emailGroups, d.emailGroups),
    features: differing(settings.features, d.features),
    email: differing(settings.email, d.email),
    ...(settings.senderDomains.length ? { senderDomains: settings.senderDomains } : {}),
    mailProvider: settings.mailProvider,
    mailerLiteGroups: Object.fromEntries(
      Object.entries(settings.mailerLiteGroups).filter(([, id]) => id !== ""),
    ),
    ...(settings.timeZone === d.timeZone ? {} : { timeZone: settings.timeZone }),
  };
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
  db: Db,
  tenantId: string,
  limit = 50,
): Promise<TenantHistoryEntry[]> {
  const rows = await db
    .selectFrom("tenant_changes")
    .selectAll()
    .where("tenant_id", "=", tenantId)
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

async function assertDomainFree(db: Db, domain: string | null, exceptId: string | null) {
  if (!domain) return;
  const clash = await db
    .selectFrom("tenants")
    .select("id")
    .where("domain", "=", domain)
    .$if(exceptId !== null, (qb) => qb.where("id", "!=", exceptId as string))
    .executeTakeFirst();
  if (clash) throw new ApiError("ABORTED", TENANT_MESSAGES.domainTaken);
}

/** A unique-constraint race lost to a concurrent writer reads as the same 409. */
function rethrowConflict(error: unknown): never {
  const message = error instanceof Error ? error.message : "";
  if (/unique|duplicate key/i.test(message)) {
    throw new ApiError(
      "ABORTED",
      /domain/i.test(message) ? TENANT_MESSAGES.domainTaken : TENANT_MESSAGES.idTaken,
    );
  }
  throw error;
}

/** A built-in tenant (server/tenants/seed.ts), added if missing; one staff have edited is kept. */
export async function insertTenantIfMissing(
  db: Db,
  tenant: { id: string; name: string; description: string; overrides: TenantOverrides },
  now: string,
): Promise<void> {
  await db
    .insertInto("tenants")
    .values({
      id: tenant.id,
      name: tenant.name,
      domain: null,
      description: tenant.description,
      mail_list_group_id: null,
      config: JSON.stringify(tenant.overrides),
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.column("id").doNothing())
    .execute();
}

/** 'Add New Tenant': id, name and domain; everything else from the defaults (or `settings`). */
export async function createTenant(
  db: Db,
  actor: string,
  input: NewTenant,
  settings?: Partial<TenantSettings>,
): Promise<TenantView> {
  const valid = newTenantSchema.parse(input);
  const full = tenantSettingsSchema.parse({
    ...settingsOf({
      ...DEFAULT_TENANT_CONFIG,
      id: valid.id,
      name: valid.name,
      domain: valid.domain,
    }),
    ...settings,
    name: valid.name,
    branding: {
      ...DEFAULT_TENANT_CONFIG.branding,
      companyName: valid.name,
      ...settings?.branding,
    },
  });
  const existing = await db
    .selectFrom("tenants")
    .select("id")
    .where("id", "=", valid.id)
    .executeTakeFirst();
  if (existing) throw new ApiError("ABORTED", TENANT_MESSAGES.idTaken);
  await assertDomainFree(db, valid.domain, null);
  const now = new Date().toISOString();
  try {
    await db.transaction().execute(async (trx) => {
      await trx
        .insertInto("tenants")
        .values({
          id: valid.id,
          name: full.name,
          domain: valid.domain,
          description: full.description,
          mail_list_group_id: full.mailerLiteGroupId || null,
          config: JSON.stringify(overridesOf(full)),
          created_at: now,
          updated_at: now,
        })
        .execute();
      const created = viewOf(await rowOf(trx, valid.id));
      await recordChange(trx, valid.id, "created", actor, diffConfigs(null, created));
    });
  } catch (error) {
    rethrowConflict(error);
  }
  invalidateTenant(valid.id);
  return getTenantView(db, valid.id);
}

/**
 * Finding 15 of issue 32: the sender address and the templates' From addresses are at the tenant's
 * own domains, the sender domains being saved with them included.
 */
async function assertOwnSenders(
  db: Db,
  tenant: TenantView,
  settings: TenantSettings,
  domain: string | null | undefined,
): Promise<void> {
  const domains = await ownSenderDomains(
    db,
    { ...tenant, domain: domain === undefined ? tenant.domain : domain },
    { configured: settings.senderDomains },
  );
  const fields: Record<string, string[]> = {};
  const message = notOwnDomainMessage(domains);
  if (settings.email.senderEmail && !isOwnDomain(settings.email.senderEmail, domains)) {
    fields["email.senderEmail"] = [message];
  }
  for (const key of TEMPLATE_KEYS) {
    const from = settings.emailTemplates[key].fromEmail;
    if (from && !isOwnDomain(from, domains)) fields[`emailTemplates.${key}.fromEmail`] = [message];
  }
  if (Object.keys(fields).length > 0) throw new ApiError("INVALID_ARGUMENT", message, fields);
}

/**
 * Replaces a tenant's settings (the manager's Save, the API's PUT). Validated as a whole; written
 * with its audit record in one transaction, so a failure leaves the tenant as it was.
 */
export async function saveTenantSettings(
  db: Db,
  actor: string,
  id: string,
  input: unknown,
  domain?: string | null,
): Promise<TenantView> {
  const settings = tenantSettingsSchema.parse(input);
  const nextDomain = domain === undefined ? undefined : domain;
  if (nextDomain) await assertDomainFree(db, nextDomain, id);
  await assertOwnSenders(db, await getTenantView(db, id), settings, nextDomain);
  let changed = false;
  try {
    await db.transaction().execute(async (trx) => {
      const before = viewOf(await rowOf(trx, id));
      // A strictly later stamp, so caches keyed on updated_at always see the change.
      const stamp = new Date(Math.max(Date.now(), Date.parse(before.updatedAt) + 1)).toISOString();
      await trx
        .updateTable("tenants")
        .set({
          name: settings.name,
          description: settings.description,
          mail_list_group_id: settings.mailerLiteGroupId || null,
          config: JSON.stringify(overridesOf(settings)),
          ...(nextDomain === undefined ? {} : { domain: nextDomain }),
        })
        .where("id", "=", id)
        .execute();
      const after = viewOf(await rowOf(trx, id));
      const changes = diffConfigs(before, after);
      if (changes.length === 0) return;
      changed = true;
      await trx.updateTable("tenants").set({ updated_at: stamp }).where("id", "=", id).execute();
      await recordChange(trx, id, "updated", actor, changes);
    });
  } catch (error) {
    rethrowConflict(error);
  }
  if (changed) invalidateTenant(id);
  return getTenantView(db, id);
}

const brandingPatchSchema = brandingSchema.partial().strict();
const templatePatch = emailTemplatesSchema.shape.welcomeEmail.partial().strict();
const templatesPatchSchema = z
  .object({
    welcomeEmail: templatePatch,
    confirmationEmail: templatePatch,
    verificationEmail: templatePatch,
    bounceNotificationEmail: templatePatch,
  })
  .partial()
  .strict();

/** PATCH /tenants/{id}/branding: the given branding fields, the rest kept. */
export async function patchTenantBranding(
  db: Db,
  actor: string,
  id: string,
  input: unknown,
): Promise<TenantView> {
  const patch = brandingPatchSchema.parse(input);
  const current = settingsOf(await getTenantView(db, id));
  return saveTenantSettings(db, actor, id, {
    ...current,
    branding: { ...current.branding, ...patch },
  });
}

/** PATCH /tenants/{id}/email-templates: the given templates' fields, the rest kept. */
export async function patchTenantEmailTemplates(
  db: Db,
  actor: string,
  id: string,
  input: unknown,
): Promise<TenantView> {
  const patch = templatesPatchSchema.parse(input);
  const current = settingsOf(await getTenantView(db, id));
  const emailTemplates = { ...current.emailTemplates };
  for (const key of TEMPLATE_KEYS) {
    const fields = patch[key];
    if (fields) emailTemplates[key] = { ...emailTemplates[key], ...fields };
  }
  return saveTenantSettings(db, actor, id, { ...current, emailTemplates });
}

const OWNED_TABLES = ["newsletters", "subscribers", "campaigns", "contact_messages"] as const;

/** How many records a tenant owns, table by table (tables where it owns none are left out). */
export async function tenantDataCounts(db: Db, id: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of OWNED_TABLES) {
    const { n } = await db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("tenant_id", "=", id)
      .executeTakeFirstOrThrow();
    if (Number(n) > 0) counts[table] = Number(n);
  }
  return counts;
}

/**
 * Deletes a tenant and, through the foreign keys, everything it owns. Never `main`; a tenant with
 * data only when forced.
 */
export async function deleteTenant(
  db: Db,
  actor: string,
  id: string,
  force: boolean,
): Promise<{ deleted: string; removed: Record<string, number> }> {
  if (id === DEFAULT_TENANT_ID) throw new ApiError("ABORTED", TENANT_MESSAGES.mainUndeletable);
  const before = await getTenantView(db, id);
  const removed = await tenantDataCounts(db, id);
  if (Object.keys(removed).length > 0 && !force) {
    throw new ApiError("ABORTED", TENANT_MESSAGES.hasData);
  }
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom("tenants").where("id", "=", id).execute();
    await dropAudienceCounts(trx, id);
    await recordChange(trx, id, "deleted", actor, diffConfigs(before, null));
  });
  invalidateTenant(id);
  return { deleted: id, removed };
}
