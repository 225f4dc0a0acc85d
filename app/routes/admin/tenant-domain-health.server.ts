import { data, redirect } from "react-router";
import type { StaffUser } from "../../../server/auth/permissions";
import type { Db } from "../../../server/db";
import type { Env } from "../../../server/env";
import type { Logger } from "../../../server/logger";
import { checkDomainNow, readDomainCheck } from "../../../server/tenants/domain-checks";
import { senderRates } from "../../../server/tenants/sender-rates";
import { DKIM_MESSAGES } from "../../../shared/schemas/dkim";
import type { DomainHealthData } from "../../components/admin/domain-health";
import type { TenantActionResult } from "../../components/admin/tenant-manager";

/** The tenant page's "Sender domain health" section: the last check and the last 30 days' rates. */
export async function domainHealthData(db: Db, tenantId: string): Promise<DomainHealthData> {
  const [check, rates] = await Promise.all([
    readDomainCheck(db, tenantId),
    senderRates(db, tenantId),
  ]);
  return { check, rates };
}

/** "Check now" (domain-health:check): runs the check, then back to the section; rate limited per tenant. */
export async function domainHealthAction(
  { db, logger, env }: { db: Db; logger: Logger; env: Env },
  { tenantId, user }: { tenantId: string; user: StaffUser },
  form: FormData,
) {
  const refuse = (message: string, status: number) =>
    data<TenantActionResult>({ intent: "domain-health", message }, { status });
  // The form names the tenant it was shown for: never act on another one.
  if (String(form.get("tenantId") ?? "") !== tenantId) {
    return refuse(DKIM_MESSAGES.otherTenant, 400);
  }
  const outcome = await checkDomainNow(db, env, tenantId);
  if (outcome === "limited") {
    return refuse(
      "The domain was checked several times in the last minutes: wait a few minutes, then check again.",
      429,
    );
  }
  logger.info({ tenantId, actor: user.id }, "sender domain checked");
  return redirect(
    `/admin/tenants/${encodeURIComponent(tenantId)}?domainHealth=checked#domain-health`,
  );
}
