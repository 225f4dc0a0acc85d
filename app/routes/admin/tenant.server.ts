import { data, redirect } from "react-router";
import { ApiError, toApiError } from "../../../server/api/errors";
import { requireTenantManager } from "../../../server/auth/guards";
import type { StaffUser } from "../../../server/auth/permissions";
import { scopeOf } from "../../../server/http/context";
import { publicOrigin } from "../../../server/http/origin";
import { llmConfigOf } from "../../../server/llm/client";
import { saveVoiceNotes, VOICE_NOTES_MAX, voiceNotesOf } from "../../../server/llm/voice";
import { providerNameFor } from "../../../server/providers";
import {
  removeWebhookSecret,
  saveWebhookSecret,
  webhookSecretStatus,
} from "../../../server/providers/mailerlite-webhook";
import { deleteTenant, saveTenantSettings } from "../../../server/tenants/admin";
import { tenantDkim } from "../../../server/tenants/dkim";
import { tenantHistory } from "../../../server/tenants/history";
import { bindNamedTenant } from "../../../server/tenants/named-tenant";
import { renderTemplatePreview } from "../../../server/tenants/preview";
import { settingsOf } from "../../../server/tenants/views";
import { DKIM_MESSAGES, defaultDkimSelector, domainOfAddress } from "../../../shared/schemas/dkim";
import {
  settingsFromForm,
  TEMPLATE_KEYS,
  TENANT_MESSAGES,
  type TemplateKey,
  tenantSettingsSchema,
} from "../../../shared/schemas/tenant";
import { CONTRAST_WARNING, newlyFailing } from "../../../shared/theme";
import { timeZoneChoices } from "../../../shared/time-zone";
import type { TenantActionResult } from "../../components/admin/tenant-manager";
import type { DkimFormValues } from "../../components/dkim-settings";
import type { Route } from "./+types/tenant";
import { dkimAction } from "./tenant-dkim.server";
import { domainHealthAction, domainHealthData } from "./tenant-domain-health.server";
import { limitsAction, limitsData } from "./tenant-limits.server";

/** The tenant the URL names and a database bound to it, for a super admin; else 404. */
async function tenantOr404(context: Route.LoaderArgs["context"], id: string, user: StaffUser) {
  try {
    return await bindNamedTenant(context, id, { superAdmin: user });
  } catch (error) {
    // Only "no such tenant" is a 404; a database failure stays a 500.
    if (error instanceof ApiError && error.status === "NOT_FOUND") {
      throw data({ message: TENANT_MESSAGES.notFound }, { status: 404 });
    }
    throw error;
  }
}

/** /admin/tenants/{id} — one tenant's configuration: view, edit, preview, history (issue 6). */
export async function loader({ request, params, context }: Route.LoaderArgs) {
  const user = await requireTenantManager(context, request);
  const { tenant, db } = await tenantOr404(context, params.id, user);
  // The key's public half only: the private key never reaches the browser.
  const dkim = await tenantDkim(db, tenant.id);
  return {
    dkim,
    dkimDefaults: {
      selector: defaultDkimSelector(
        new Date(),
        [...dkim.active, ...dkim.pending].map((key) => key.selector),
      ),
      domain: domainOfAddress(tenant.email.senderEmail),
      // Beside an RSA key alone, the next key is most likely the Ed25519 one (signing both ways).
      algorithm:
        dkim.active.length === 1 && dkim.active[0]?.algorithm === "rsa" ? "ed25519" : "rsa",
    } satisfies DkimFormValues,
    tenant: {
      id: tenant.id,
      name: tenant.name,
      domain: tenant.domain,
      updatedAt: tenant.updatedAt,
    },
    settings: settingsOf(tenant),
    provider: providerNameFor(tenant),
    deploymentProvider: scopeOf(context).env.MAIL_PROVIDER,
    timeZones: timeZoneChoices(),
    history: await tenantHistory(db, tenant.id),
    domainHealth: await domainHealthData(db, tenant.id),
    webhook: {
      url: `${scopeOf(context).env.APP_URL}/api/webhooks/mailerlite/${encodeURIComponent(tenant.id)}`,
      secret: await webhookSecretStatus(db, tenant.id),
    },
    limits: await limitsData(db, tenant.id, scopeOf(context).env),
    voice: {
      notes: await voiceNotesOf(db, tenant.id),
      maxLength: VOICE_NOTES_MAX,
      llmOn: llmConfigOf(scopeOf(context).env) !== null,
    },
  };
}

export async function action({ request, params, context }: Route.ActionArgs) {
  const user = await requireTenantManager(context, request);
  const { logger, env } = scopeOf(context);
  const { tenant, db } = await tenantOr404(context, params.id, user);
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  const editing = form.has("name");
  const values = editing ? settingsFromForm(form, settingsOf(tenant)) : null;

  if (intent === "save" && values) {
    // A pair the new colours make below AA: say so, and save only once staff confirm.
    const failing = newlyFailing(values.branding, settingsOf(tenant).branding);
    if (failing.length > 0 && form.get("contrast") !== "accepted") {
      return data<TenantActionResult>(
        {
          intent: "save",
          message: CONTRAST_WARNING,
          fields: {
            "branding.contrast": failing.map(
              (check) =>
                `${check.label}: ${check.ratio}:1, needs ${check.needed}:1 (the site uses ${check.used})`,
            ),
          },
          values,
        },
        { status: 400 },
      );
    }
    try {
      await saveTenantSettings(db, user.email, tenant.id, values);
      logger.info({ tenantId: tenant.id, actor: user.id }, "tenant configuration saved");
      return redirect(`/admin/tenants/${encodeURIComponent(tenant.id)}?saved=1`);
    } catch (error) {
      const failure = toApiError(error, logger);
      return data<TenantActionResult>(
        {
          intent: "save",
          message: TENANT_MESSAGES.saveFailed,
          fields: failure.fields ?? {},
          values,
        },
        { status: failure.status === "INTERNAL" ? 500 : 400 },
      );
    }
  }

  if (intent.startsWith("preview:")) {
    const template = intent.slice("preview:".length) as TemplateKey;
    if (!TEMPLATE_KEYS.includes(template)) {
      throw data({ message: "Unknown template" }, { status: 400 });
    }
    let config = tenant;
    if (values) {
      const parsed = tenantSettingsSchema.safeParse(values);
      if (!parsed.success) {
        return data<TenantActionResult>(
          {
            intent: "save",
            message: "Fix the marked fields to preview the template.",
            fields: toApiError(parsed.error).fields ?? {},
            values,
          },
          { status: 400 },
        );
      }
      config = { ...tenant, ...parsed.data, mailerLiteGroupId: parsed.data.mailerLiteGroupId };
    }
    const email = await renderTemplatePreview(config, template, publicOrigin(config, env));
    return data<TenantActionResult>({
      intent: "preview",
      template,
      subject: email.subject,
      from: `${email.from.name} <${email.from.email}>`,
      html: email.html,
      values,
    });
  }

  if (intent.startsWith("dkim:")) {
    return dkimAction({ db, logger }, { tenantId: tenant.id, user }, intent, form);
  }

  if (intent === "domain-health:check") {
    return domainHealthAction({ db, logger, env }, { tenantId: tenant.id, user }, form);
  }

  if (intent === "webhook:save" || intent === "webhook:remove") {
    const refuse = (message: string) =>
      data<TenantActionResult>({ intent: "webhook", message }, { status: 400 });
    // The form names the tenant it was shown for: never act on another one.
    if (String(form.get("tenantId") ?? "") !== tenant.id) return refuse(DKIM_MESSAGES.otherTenant);
    if (intent === "webhook:remove") {
      await removeWebhookSecret(db, tenant.id);
    } else {
      const secret = String(form.get("secret") ?? "").trim();
      if (secret.length < 8 || secret.length > 200) {
        return refuse(
          "Paste the signing secret MailerLite shows for the webhook (8 to 200 characters).",
        );
      }
      await saveWebhookSecret(db, tenant.id, secret, user.email);
    }
    logger.info({ tenantId: tenant.id, actor: user.id, intent }, "tenant webhook secret changed");
    return redirect(`/admin/tenants/${encodeURIComponent(tenant.id)}#webhook`);
  }

  if (intent === "limits:save") {
    return limitsAction({ db, logger }, { tenantId: tenant.id, actor: user.email }, form);
  }

  if (intent === "voice:save") {
    const refuse = (message: string) =>
      data<TenantActionResult>({ intent: "voice", message }, { status: 400 });
    if (String(form.get("tenantId") ?? "") !== tenant.id) return refuse(DKIM_MESSAGES.otherTenant);
    const notes = String(form.get("voiceNotes") ?? "");
    if (notes.length > VOICE_NOTES_MAX) {
      return refuse(`Keep the voice notes to ${VOICE_NOTES_MAX.toLocaleString("en")} characters.`);
    }
    await saveVoiceNotes(db, tenant.id, notes, user.email);
    logger.info({ tenantId: tenant.id, actor: user.id }, "tenant voice notes saved");
    return redirect(`/admin/tenants/${encodeURIComponent(tenant.id)}#voice`);
  }

  if (intent === "delete") {
    if (String(form.get("confirm") ?? "").trim() !== tenant.id) {
      return data<TenantActionResult>(
        { intent: "delete", message: `Type ${tenant.id} to confirm the deletion.` },
        { status: 400 },
      );
    }
    try {
      await deleteTenant(db, user.email, tenant.id, form.get("force") === "on");
      logger.info({ tenantId: tenant.id, actor: user.id }, "tenant deleted");
      return redirect(`/admin/tenants?deleted=${encodeURIComponent(tenant.id)}`);
    } catch (error) {
      return data<TenantActionResult>(
        { intent: "delete", message: toApiError(error, logger).message },
        { status: 409 },
      );
    }
  }
  throw data({ message: "Unknown action" }, { status: 400 });
}
