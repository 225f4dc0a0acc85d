import { data, redirect } from "react-router";
import { toApiError } from "../../../server/api/errors";
import type { StaffUser } from "../../../server/auth/permissions";
import type { Db } from "../../../server/db";
import type { Logger } from "../../../server/logger";
import {
  activatePendingDkimKey,
  generateDkimKey,
  removeDkimKey,
  removeDkimKeyOfType,
} from "../../../server/tenants/dkim";
import {
  DKIM_ALGORITHMS,
  DKIM_MESSAGES,
  type DkimAlgorithm,
  type DkimOutcome,
} from "../../../shared/schemas/dkim";
import type { TenantActionResult } from "../../components/admin/tenant-manager";

/**
 * The tenant page's DKIM intents (dkim:generate, dkim:activate, dkim:discard, dkim:remove): each
 * answers with a redirect to the page's DKIM section, or the form again with what went wrong.
 * Switching and discarding name the pending key by its algorithm (a tenant may have one of each);
 * removing names an algorithm when two keys sign and one is to stop (checked by the rule itself).
 */
export async function dkimAction(
  { db, logger }: { db: Db; logger: Logger },
  { tenantId, user }: { tenantId: string; user: StaffUser },
  intent: string,
  form: FormData,
) {
  const values =
    intent === "dkim:generate"
      ? {
          selector: String(form.get("selector") ?? ""),
          domain: String(form.get("domain") ?? ""),
          algorithm: String(form.get("algorithm") ?? ""),
        }
      : null;
  const refuse = (message: string, fields: Record<string, string[]> = {}, status = 400) =>
    data<TenantActionResult>({ intent: "dkim", message, fields, values }, { status });
  // The form names the tenant it was shown for: never act on another one.
  if (String(form.get("tenantId") ?? "") !== tenantId) return refuse(DKIM_MESSAGES.otherTenant);
  const named = form.get("algorithm");
  const algorithm = DKIM_ALGORITHMS.find((each): each is DkimAlgorithm => each === named);
  if (intent !== "dkim:generate" && intent !== "dkim:remove" && named !== null && !algorithm) {
    return refuse(DKIM_MESSAGES.failed);
  }
  try {
    let done: DkimOutcome;
    if (intent === "dkim:generate") {
      const generated = await generateDkimKey(db, user.email, tenantId, values);
      done = generated.status === "active" ? "generated" : generated.second ? "second" : "pending";
    } else if (intent === "dkim:activate") {
      done = (await activatePendingDkimKey(db, user.email, tenantId, algorithm)).both
        ? "both"
        : "activated";
    } else if (intent === "dkim:discard") {
      await removeDkimKey(db, user.email, tenantId, "pending", algorithm);
      done = "discarded";
    } else if (intent === "dkim:remove" && named !== null) {
      if (form.get("confirm") !== "on") return refuse(DKIM_MESSAGES.confirmRemoveOne);
      await removeDkimKeyOfType(db, user.email, tenantId, named);
      done = "removedOne";
    } else if (intent === "dkim:remove") {
      if (form.get("confirm") !== "on") return refuse(DKIM_MESSAGES.confirmRemove);
      await removeDkimKey(db, user.email, tenantId, "all");
      done = "removed";
    } else {
      throw data({ message: "Unknown action" }, { status: 400 });
    }
    logger.info({ tenantId: tenantId, actor: user.id, done }, "tenant DKIM key changed");
    return redirect(`/admin/tenants/${encodeURIComponent(tenantId)}?dkim=${done}#dkim`);
  } catch (error) {
    if (error instanceof Response) throw error;
    const failure = toApiError(error, logger);
    return refuse(
      failure.status === "INTERNAL"
        ? DKIM_MESSAGES.failed
        : failure.fields
          ? `${DKIM_MESSAGES.failed} ${Object.values(failure.fields).flat().join(". ")}.`
          : failure.message,
      failure.fields ?? {},
      failure.status === "INTERNAL" ? 500 : failure.status === "ABORTED" ? 409 : 400,
    );
  }
}
