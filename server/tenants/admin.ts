import type { Updateable } from "kysely";
import {
  type NewTenant,
  newTenantSchema,
  TEMPLATE_KEYS,
  TENANT_MESSAGES,
  type TenantSettings,
  tenantSettingsSchema,
} from "../../shared/schemas/tenant";
import { ApiError } from "../api/errors";
import type { Db } from "../db";
import type { TenantsTable } from "../db/schema";
import { dropAudienceCounts } from "../subscribers/counts";
import { DEFAULT_TENANT_CONFIG, type TenantOverrides, tenantOverridesSchema } from "./config";
import { diffConfigs, recordChange } from "./history";
import { DEFAULT_TENANT_ID } from "./resolve";
import { isOwnDomain, notOwnDomainMessage, ownSenderDomains } from "./sender-domains";
import { invalidateTenant } from "./store";
import {
  getTenantView,
  rowOf,
  settingsOf,
  type TenantView,
  tenantDataCounts,
  viewOf,
} from "./views";

/**
 * The tenant manager's rules (issue 6, DESIGN.md §3) and the one writer of `tenants`: create, edit
 * and delete tenants, each change validated, written in one transaction with its audit record
 * (history.ts), and the tenant's cache dropped at once on this instance (others follow within
 * TENANT_CACHE_TTL_MS). What is shown of a tenant is in views.ts, the API's PATCHes in patches.ts.
 */

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
      changed = await updateTenantRow(trx, actor, id, (before) => ({
        name: settings.name,
        description: settings.description,
        mail_list_group_id: settings.mailerLiteGroupId || null,
        // The embed form's sites are set on their own page (saveEmbedSites), kept here.
        config: JSON.stringify({ ...overridesOf(settings), ...embedOverrides(before) }),
        ...(nextDomain === undefined ? {} : { domain: nextDomain }),
      }));
    });
  } catch (error) {
    rethrowConflict(error);
  }
  if (changed) invalidateTenant(id);
  return getTenantView(db, id);
}

const embedOverrides = (config: TenantView): TenantOverrides =>
  config.embedOrigins.length ? { embedOrigins: config.embedOrigins } : {};

/**
 * The sites a tenant's embedded sign-up form may be used on (/admin/embed): origins, already
 * normalised by shared/schemas/embed.ts. The rest of the stored config is kept as it is.
 */
export async function saveEmbedSites(
  db: Db,
  actor: string,
  id: string,
  origins: readonly string[],
): Promise<void> {
  const changed = await db.transaction().execute((trx) =>
    updateTenantRow(trx, actor, id, (before) => {
      const { embedOrigins: _, ...kept } = tenantOverridesSchema.parse(JSON.parse(before.config));
      return {
        config: JSON.stringify({ ...kept, ...(origins.length ? { embedOrigins: origins } : {}) }),
      };
    }),
  );
  if (changed) invalidateTenant(id);
}

/**
 * One change to a tenant's row inside `trx`, with its audit record; false when nothing changed.
 * A changed row gets a strictly later updated_at, so caches keyed on it always see the change.
 */
async function updateTenantRow(
  trx: Db,
  actor: string,
  id: string,
  changesOf: (before: TenantView & { config: string }) => Updateable<TenantsTable>,
): Promise<boolean> {
  const row = await rowOf(trx, id);
  const before = viewOf(row);
  await trx
    .updateTable("tenants")
    .set(changesOf({ ...before, config: row.config }))
    .where("id", "=", id)
    .execute();
  const changes = diffConfigs(before, viewOf(await rowOf(trx, id)));
  if (changes.length === 0) return false;
  const stamp = new Date(Math.max(Date.now(), Date.parse(before.updatedAt) + 1)).toISOString();
  await trx.updateTable("tenants").set({ updated_at: stamp }).where("id", "=", id).execute();
  await recordChange(trx, id, "updated", actor, changes);
  return true;
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
