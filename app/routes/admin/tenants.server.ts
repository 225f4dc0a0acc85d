import { data, redirect } from "react-router";
import { toApiError } from "../../../server/api/errors";
import { requireTenantManager } from "../../../server/auth/guards";
import { readBackupStatus } from "../../../server/backups/schedule";
import { scopeOf } from "../../../server/http/context";
import { createTenant } from "../../../server/tenants/admin";
import { bindNewTenant } from "../../../server/tenants/named-tenant";
import { listTenantViews } from "../../../server/tenants/views";
import type { Route } from "./+types/tenants";

export interface CreateFailure {
  message: string;
  fields: Record<string, string[]>;
  values: { id: string; name: string; domain: string };
}

/** /admin/tenants — the tenant manager (SPEC §2), super admins only (SPEC §6 guard). */
export async function loader({ request, context }: Route.LoaderArgs) {
  await requireTenantManager(context, request);
  // The tenants and the installation's settings: tables of no tenant, read on the request's database.
  const db = scopeOf(context).db;
  const tenants = await listTenantViews(db);
  return {
    // The installation's scheduled snapshots: a super admin's concern, never a tenant's.
    backups: await readBackupStatus(db),
    tenants: tenants.map(({ id, name, domain, description, branding, updatedAt }) => ({
      id,
      name,
      domain,
      description,
      primaryColor: branding.primaryColor,
      updatedAt,
    })),
  };
}

/** 'Add New Tenant': id, name and domain; the rest starts from the defaults. */
export async function action({ request, context }: Route.ActionArgs) {
  const user = await requireTenantManager(context, request);
  const { logger } = scopeOf(context);
  const form = await request.formData();
  const values = {
    id: String(form.get("id") ?? ""),
    name: String(form.get("name") ?? ""),
    domain: String(form.get("domain") ?? ""),
  };
  try {
    const tenant = await createTenant(bindNewTenant(context, values.id, user), user.email, values);
    logger.info({ tenantId: tenant.id, actor: user.id }, "tenant created");
    return redirect(`/admin/tenants/${encodeURIComponent(tenant.id)}?created=1`);
  } catch (error) {
    const failure = toApiError(error, logger);
    return data<CreateFailure>(
      {
        message: failure.fields ? "Please correct the marked fields." : failure.message,
        fields: failure.fields ?? {},
        values,
      },
      { status: failure.status === "ABORTED" ? 409 : failure.status === "INTERNAL" ? 500 : 400 },
    );
  }
}
