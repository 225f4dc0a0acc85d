import { z } from "zod";
import { brandingSchema, emailTemplatesSchema, TEMPLATE_KEYS } from "../../shared/schemas/tenant";
import type { Db } from "../db";
import { saveTenantSettings } from "./admin";
import { getTenantView, settingsOf, type TenantView } from "./views";

/* The tenants API's PATCHes: some branding or template fields changed, the rest kept, saved whole. */

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
