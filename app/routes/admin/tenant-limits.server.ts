import { data, redirect } from "react-router";
import { toApiError } from "../../../server/api/errors";
import type { Db } from "../../../server/db";
import type { LimitsEnv } from "../../../server/env-limits";
import type { Logger } from "../../../server/logger";
import { saveTenantLimits, tenantLimits } from "../../../server/tenants/limits";
import { tenantUsage } from "../../../server/tenants/usage";
import { DKIM_MESSAGES } from "../../../shared/schemas/dkim";
import { LIMIT_KEYS, limitFromText } from "../../../shared/schemas/tenant-limits";

/** The tenant page's Limits section (decision 057): each limit's use, the tenant's own values. */
export async function limitsData(db: Db, tenantId: string, env: LimitsEnv) {
  const [limits, lines] = await Promise.all([
    tenantLimits(db, tenantId, env),
    tenantUsage(db, tenantId, env),
  ]);
  return { lines, own: limits.own, defaults: limits.defaults };
}

export type LimitsResult = { intent: "limits"; message: string; fields: Record<string, string[]> };

/** "limits:save": the form's six fields, all saved or none (a bad one is named). */
export async function limitsAction(
  ctx: { db: Db; logger: Logger },
  by: { tenantId: string; actor: string },
  form: FormData,
) {
  const refuse = (message: string, fields: Record<string, string[]> = {}) =>
    data<LimitsResult>({ intent: "limits", message, fields }, { status: 400 });
  // The form names the tenant it was shown for: never act on another one.
  if (String(form.get("tenantId") ?? "") !== by.tenantId) return refuse(DKIM_MESSAGES.otherTenant);
  const input = Object.fromEntries(
    LIMIT_KEYS.map((key) => [key, limitFromText(String(form.get(key) ?? ""))]),
  );
  try {
    await saveTenantLimits(ctx.db, by.actor, by.tenantId, input);
  } catch (error) {
    const failure = toApiError(error, ctx.logger);
    return refuse("The limits were not saved: fix the marked fields.", failure.fields ?? {});
  }
  ctx.logger.info({ tenantId: by.tenantId, actor: by.actor }, "tenant limits saved");
  return redirect(`/admin/tenants/${encodeURIComponent(by.tenantId)}?saved=limits#limits`);
}
