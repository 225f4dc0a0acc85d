import type { UsageLine } from "../../../server/tenants/usage";
import { formatCount } from "../../../shared/format";
import { formatBytes, type LimitKey, type LimitValue } from "../../../shared/schemas/tenant-limits";
import { SettingsPanel, SubmitButton, TextField } from "../ui/form";
import { TenantForm } from "./tenant-form";

/** A use or a limit as staff read it: bytes for storage, a count otherwise. */
export function usageText(key: LimitKey, value: LimitValue): string {
  if (value === "unlimited") return "unlimited";
  return key === "storageBytes" ? formatBytes(value) : formatCount(value);
}

/**
 * The tenant's limits (decision 057) on the tenant page: each one's use, and a field for the
 * tenant's own value — blank for the install's default, "unlimited", or a whole number (0: none).
 */
export function LimitsSettings({
  tenantId,
  lines,
  own,
  defaults,
  message,
  fields,
}: {
  tenantId: string;
  lines: UsageLine[];
  own: Record<LimitKey, LimitValue | null>;
  defaults: Record<LimitKey, LimitValue>;
  message: string | null;
  fields: Record<string, string[]>;
}) {
  return (
    <SettingsPanel
      id="limits"
      title="Limits"
      message={message}
      intro={
        <p className="mt-2 text-sm">
          What this tenant may use. Reaching a limit refuses the action that would pass it (a
          sign-up, an import, a campaign at review, a test email, an upload, an API request) with a
          message naming the limit. Leave a field blank for the installation's default, or write
          "unlimited". Storage is in bytes.
        </p>
      }
    >
      <TenantForm tenantId={tenantId} className="mt-4 space-y-3">
        {lines.map((line) => (
          <TextField
            key={line.key}
            id={`limit-${line.key}`}
            name={line.key}
            label={line.label}
            hint={`Used: ${usageText(line.key, line.used)} of ${usageText(line.key, line.limit)}. Default: ${usageText(line.key, defaults[line.key])}.`}
            defaultValue={own[line.key] === null ? "" : String(own[line.key])}
            inputMode="numeric"
            errors={fields[line.key]}
          />
        ))}
        <SubmitButton name="intent" value="limits:save">
          Save limits
        </SubmitButton>
      </TenantForm>
    </SettingsPanel>
  );
}

/** The dashboard's "Usage and limits" (decision 057): what the tenant uses of each limit. */
export function UsageFigures({ lines }: { lines: UsageLine[] }) {
  return (
    <section aria-labelledby="usage-heading" className="mb-8" data-testid="dashboard-usage">
      <h2 id="usage-heading" className="mb-3 text-lg font-bold">
        Usage and limits
      </h2>
      <dl className="grid grid-cols-1 gap-x-6 gap-y-2 sm:grid-cols-2 lg:grid-cols-3">
        {lines.map((line) => {
          const share =
            line.limit === "unlimited" ? null : line.limit === 0 ? 1 : line.used / line.limit;
          return (
            <div key={line.key} data-limit={line.key}>
              <dt className="text-sm font-semibold text-ink/75">{line.label}</dt>
              <dd className="tabular-nums">
                {usageText(line.key, line.used)}
                {line.limit === "unlimited"
                  ? " (no limit)"
                  : ` of ${usageText(line.key, line.limit)}`}
                {share !== null && share >= 1 ? (
                  <strong className="ml-2 text-danger">limit reached</strong>
                ) : null}
              </dd>
              {share !== null ? (
                <dd>
                  <meter
                    className="w-full"
                    min={0}
                    max={1}
                    high={0.8}
                    optimum={0}
                    value={Math.min(1, share)}
                    aria-label={`${line.label}: ${Math.round(Math.min(1, share) * 100)}% of the limit`}
                  />
                </dd>
              ) : null}
            </div>
          );
        })}
      </dl>
    </section>
  );
}
