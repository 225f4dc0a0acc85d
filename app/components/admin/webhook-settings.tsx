import { StaffTime } from "../../lib/time-zone";
import { SettingsPanel, SubmitButton, TextField } from "../ui/form";
import { TenantForm } from "./tenant-form";

/**
 * The tenant's MailerLite webhook (tenant manager): the URL to give MailerLite and the signing
 * secret MailerLite shows for it. The secret is written here and never shown again.
 */
export function WebhookSettings({
  tenantId,
  url,
  secret,
  message,
}: {
  tenantId: string;
  /** this tenant's webhook address */
  url: string;
  secret: { setAt: string; setBy: string } | null;
  /** what the last save said, when it was refused */
  message: string | null;
}) {
  return (
    <SettingsPanel
      id="webhook"
      title="MailerLite webhook"
      message={message}
      intro={
        <>
          <p className="mt-2 text-sm">
            In MailerLite, add a webhook for <strong>subscriber.unsubscribed</strong> and{" "}
            <strong>subscriber.bounced</strong> with this URL, then paste the signing secret
            MailerLite shows for it below. Calls signed with another tenant's secret change nothing
            here.
          </p>
          <p className="mt-3 break-all rounded-brand bg-black/5 px-3 py-2 font-mono text-sm">
            {url}
          </p>
          <p className="mt-3 text-sm font-medium" data-testid="webhook-secret-status">
            {secret ? (
              <>
                Signing secret set <StaffTime iso={secret.setAt} />
                {` by ${secret.setBy}.`}
              </>
            ) : (
              "No signing secret yet: the webhook refuses every call."
            )}
          </p>
        </>
      }
    >
      <TenantForm tenantId={tenantId} className="mt-4 flex flex-wrap items-end gap-3">
        <div className="min-w-64 flex-1">
          <TextField
            id="webhook-secret"
            name="secret"
            label={secret ? "Replace the signing secret" : "Signing secret"}
            type="password"
            autoComplete="off"
            required
            maxLength={200}
          />
        </div>
        <SubmitButton name="intent" value="webhook:save">
          Save secret
        </SubmitButton>
      </TenantForm>
      {secret ? (
        <TenantForm tenantId={tenantId} className="mt-3">
          <button
            type="submit"
            name="intent"
            value="webhook:remove"
            className="font-semibold text-danger underline"
          >
            Remove the secret
          </button>
        </TenantForm>
      ) : null}
    </SettingsPanel>
  );
}
