/** The parts of the tenant manager page (app/routes/admin/tenant.tsx). */
import { colord } from "colord";
import { type ReactNode, useState } from "react";
import { Form } from "react-router";
import type { TenantHistoryEntry } from "../../../server/tenants/history";
import {
  COLOR_FIELDS,
  COLOR_LABELS,
  FEATURE_LABELS,
  TEMPLATE_KEYS,
  TEMPLATE_LABELS,
  type TemplateKey,
  type TenantSettings,
} from "../../../shared/schemas/tenant";
import { brandContrast, CONTRAST_WARNING } from "../../../shared/theme";
import { BrandPreview } from "../../components/brand-preview";
import {
  Checkbox,
  dangerSubmitClass,
  FieldShell,
  SettingsPanel,
  SubmitButton,
  TextArea,
  TextInput,
} from "../../components/ui/form";
import { Link } from "../../lib/page-scripts";
import { StaffTime } from "../../lib/time-zone";
import type { DkimFormValues } from "../dkim-settings";

/** What the tenant manager page's action answers (app/routes/admin/tenant.server.ts, tenant-dkim.server.ts). */
export type TenantActionResult =
  | {
      intent: "save";
      message: string;
      fields: Record<string, string[]>;
      values: TenantSettings;
    }
  | {
      intent: "preview";
      template: TemplateKey;
      subject: string;
      from: string;
      html: string;
      values: TenantSettings | null;
    }
  | { intent: "delete"; message: string }
  | { intent: "webhook"; message: string }
  | { intent: "domain-health"; message: string }
  | { intent: "voice"; message: string }
  | { intent: "limits"; message: string; fields: Record<string, string[]> }
  | {
      intent: "dkim";
      message: string;
      fields: Record<string, string[]>;
      values: DkimFormValues | null;
    };

function Section({ title, children, id }: { title: string; children: ReactNode; id: string }) {
  return (
    <section aria-labelledby={id} className="rounded-brand border border-black/10 bg-surface p-5">
      <h2 id={id} className="text-xl font-bold">
        {title}
      </h2>
      <div className="mt-4">{children}</div>
    </section>
  );
}

function Definition({ term, children }: { term: string; children: ReactNode }) {
  return (
    // grid-cols-1 (minmax(0, 1fr)): an implicit column grows to a long URL's width and pushes the
    // page past a phone's screen; a bounded one lets break-words wrap it.
    <div className="grid grid-cols-1 gap-1 border-b border-black/5 py-2 sm:grid-cols-3">
      <dt className="font-semibold">{term}</dt>
      <dd className="break-words sm:col-span-2">
        {children || <span className="opacity-70">—</span>}
      </dd>
    </div>
  );
}

function Swatch({ color }: { color: string }) {
  return (
    <span className="inline-flex items-center gap-2">
      <span
        aria-hidden="true"
        className="inline-block h-5 w-5 rounded border border-black/20"
        style={{ background: color }}
      />
      <code>{color}</code>
    </span>
  );
}

const PROVIDER_LABELS = { builtin: "Herald's built-in engine", mailerlite: "MailerLite" } as const;

export function ViewMode({
  tenant,
  settings,
  preview,
  provider,
}: {
  tenant: { id: string; domain: string | null };
  settings: TenantSettings;
  preview: Extract<TenantActionResult, { intent: "preview" }> | null;
  provider: keyof typeof PROVIDER_LABELS;
}) {
  return (
    <div className="space-y-6">
      <p>
        <Link
          to="?edit=1"
          className="inline-block rounded-brand bg-brand-strong px-5 py-2.5 font-semibold text-on-brand-strong no-underline"
        >
          Edit Configuration
        </Link>
      </p>
      <Section title="Basic information" id="basic">
        <dl>
          <Definition term="Tenant id">
            <code>{tenant.id}</code>
          </Definition>
          <Definition term="Name">{settings.name}</Definition>
          <Definition term="Domain">{tenant.domain}</Definition>
          <Definition term="Description">{settings.description}</Definition>
          <Definition term="Mail-list group id">{settings.mailerLiteGroupId}</Definition>
        </dl>
      </Section>
      <Section title="Branding" id="branding">
        <div className="grid gap-6 lg:grid-cols-2">
          <dl>
            {COLOR_FIELDS.map((field) => (
              <Definition key={field} term={COLOR_LABELS[field]}>
                <Swatch color={settings.branding[field]} />
              </Definition>
            ))}
            <Definition term="Border radius">{settings.branding.borderRadius}</Definition>
            <Definition term="Font family">{settings.branding.fontFamily}</Definition>
            <Definition term="Logo URL">{settings.branding.logoUrl}</Definition>
            <Definition term="Favicon">{settings.branding.favicon}</Definition>
            <Definition term="Company name">{settings.branding.companyName}</Definition>
            <Definition term="Company address">{settings.branding.companyAddress}</Definition>
          </dl>
          <BrandPreview branding={settings.branding} />
        </div>
      </Section>
      <Section title="Email Templates" id="templates">
        <div className="grid gap-4 md:grid-cols-2">
          {TEMPLATE_KEYS.map((key) => {
            const template = settings.emailTemplates[key];
            return (
              <div key={key} className="rounded-brand border border-black/10 p-4">
                <h3 className="font-semibold">{TEMPLATE_LABELS[key]}</h3>
                <dl className="mt-2 text-sm">
                  <Definition term="Subject">{template.subject}</Definition>
                  {/* Blank: the tenant's sender (issue 35: one sender name per tenant). */}
                  <Definition term="Sender name">
                    {template.senderName || `The tenant’s (${settings.email.senderName})`}
                  </Definition>
                  <Definition term="From">
                    {[template.fromName, template.fromEmail].filter(Boolean).join(" · ") ||
                      "The tenant’s sender"}
                  </Definition>
                </dl>
                <Form method="post" className="mt-3">
                  <PreviewButton template={key} />
                </Form>
              </div>
            );
          })}
        </div>
        <TemplatePreview preview={preview} />
      </Section>
      <Section title="Features and email settings" id="features">
        <dl>
          {(Object.keys(FEATURE_LABELS) as (keyof typeof FEATURE_LABELS)[]).map((key) => (
            <Definition key={key} term={FEATURE_LABELS[key]}>
              {settings.features[key] ? "On" : "Off"}
            </Definition>
          ))}
          <Definition term="Sender name">{settings.email.senderName}</Definition>
          <Definition term="Sender email">{settings.email.senderEmail}</Definition>
          <Definition term="Sender domains">
            {settings.senderDomains.join(", ") || "Only the DKIM key's and the site's"}
          </Definition>
          <Definition term="Reply-to email">{settings.email.replyTo || "The sender"}</Definition>
          <Definition term="Time zone">{settings.timeZone.replaceAll("_", " ")}</Definition>
          <Definition term="Lists">
            {settings.emailGroups.groups.join(", ")} (default {settings.emailGroups.default})
          </Definition>
        </dl>
      </Section>
      <Section title="Mail provider" id="provider">
        <dl>
          <Definition term="Provider">
            {PROVIDER_LABELS[provider]}
            {settings.mailProvider ? " (this tenant's setting)" : " (the deployment's default)"}
          </Definition>
          {settings.emailGroups.groups.map((key) => (
            <Definition key={key} term={`MailerLite group of ${key}`}>
              {settings.mailerLiteGroups[key] ||
                (key === settings.emailGroups.default ? settings.mailerLiteGroupId : "")}
            </Definition>
          ))}
        </dl>
      </Section>
    </div>
  );
}

/** Renders the template from the values on screen (edit mode) or as saved (view mode). */
function PreviewButton({ template }: { template: TemplateKey }) {
  return (
    <button
      type="submit"
      name="intent"
      value={`preview:${template}`}
      className="rounded-brand border-2 border-brand-strong px-3 py-1.5 text-sm font-semibold text-brand-strong"
    >
      Preview
    </button>
  );
}

function TemplatePreview({
  preview,
}: {
  preview: Extract<TenantActionResult, { intent: "preview" }> | null;
}) {
  if (!preview) return null;
  return (
    <div className="mt-6" aria-live="polite">
      <h3 className="font-semibold">Preview: {TEMPLATE_LABELS[preview.template]}</h3>
      <p className="mt-1 text-sm">
        <strong>Subject:</strong> {preview.subject} · <strong>From:</strong> {preview.from}
      </p>
      {/* No sandbox allowances: nothing in the email runs or navigates this page. */}
      <iframe
        sandbox=""
        srcDoc={preview.html}
        title={`Preview of the ${TEMPLATE_LABELS[preview.template].toLowerCase()}`}
        className="mt-3 h-[32rem] w-full rounded-brand border border-black/15 bg-white"
      />
    </div>
  );
}

function fieldProps(name: string, errors: Record<string, string[]>) {
  const id = `f-${name.replaceAll(".", "-")}`;
  const fieldErrors = errors[name];
  return {
    shell: { id, errors: fieldErrors },
    input: {
      id,
      name,
      "aria-invalid": fieldErrors ? true : undefined,
      "aria-describedby": `${id}-error`,
    },
  };
}

/** A select with its label and hint, which (with its errors) describe it. */
function SelectField({
  name,
  label,
  hint,
  defaultValue,
  errors,
  children,
}: {
  name: string;
  label: string;
  hint: string;
  defaultValue: string;
  errors: Record<string, string[]>;
  children: ReactNode;
}) {
  const { shell, input } = fieldProps(name, errors);
  return (
    <FieldShell {...shell} label={label} hint={hint}>
      <select
        {...input}
        aria-describedby={`${shell.id}-hint ${shell.id}-error`}
        defaultValue={defaultValue}
        className="block w-full rounded-brand border border-black/30 bg-surface px-3 py-2"
      >
        {children}
      </select>
    </FieldShell>
  );
}

export function EditForm({
  tenant,
  values,
  errors,
  saving,
  preview,
  deploymentProvider,
  timeZones,
}: {
  tenant: { id: string; domain: string | null };
  values: TenantSettings;
  errors: Record<string, string[]>;
  saving: boolean;
  preview: Extract<TenantActionResult, { intent: "preview" }> | null;
  deploymentProvider: keyof typeof PROVIDER_LABELS;
  /** the IANA zones the server knows, for the time-zone choice */
  timeZones: string[];
}) {
  const [branding, setBranding] = useState(values.branding);
  const setBrand = (key: keyof TenantSettings["branding"], value: string) =>
    setBranding((current) => ({ ...current, [key]: value }));
  const text = (name: string, label: string, value: string, extra: object = {}) => {
    const props = fieldProps(name, errors);
    return (
      <FieldShell {...props.shell} label={label}>
        <TextInput {...props.input} defaultValue={value} {...extra} />
      </FieldShell>
    );
  };
  const buttons = (
    <div className="flex flex-wrap items-center gap-3">
      <SubmitButton name="intent" value="save" pending={saving}>
        {saving ? "Saving…" : "Save"}
      </SubmitButton>
      <Link
        to={`/admin/tenants/${encodeURIComponent(tenant.id)}`}
        className="rounded-brand border-2 border-brand-strong px-5 py-2.5 font-semibold text-brand-strong no-underline"
      >
        Cancel
      </Link>
    </div>
  );

  return (
    <Form method="post" className="space-y-6" noValidate>
      {buttons}
      <Section title="Basic information" id="basic">
        <div className="grid gap-4 md:grid-cols-2">
          {text("name", "Name", values.name, { required: true, maxLength: 100 })}
          <FieldShell
            id="f-domain"
            label="Domain"
            hint={
              tenant.domain
                ? "Set when the tenant is created."
                : `No domain yet: on localhost the site is at /?subdomain=${tenant.id}. A domain is set through the tenant API (PUT /api/tenants/${tenant.id} with the configuration and a domain).`
            }
          >
            <TextInput
              id="f-domain"
              value={tenant.domain ?? ""}
              readOnly
              aria-describedby="f-domain-hint"
              className="bg-black/5"
            />
          </FieldShell>
          <div className="md:col-span-2">
            <FieldShell {...fieldProps("description", errors).shell} label="Description">
              <TextArea
                {...fieldProps("description", errors).input}
                rows={2}
                maxLength={500}
                defaultValue={values.description}
              />
            </FieldShell>
          </div>
          {text("mailerLiteGroupId", "Mail-list group id", values.mailerLiteGroupId, {
            maxLength: 100,
          })}
          <SelectField
            name="timeZone"
            label="Time zone"
            hint="Scheduled publications and sends are entered and shown in this time zone."
            defaultValue={values.timeZone}
            errors={errors}
          >
            {timeZones.map((zone) => (
              <option key={zone} value={zone}>
                {zone.replaceAll("_", " ")}
              </option>
            ))}
          </SelectField>
        </div>
      </Section>

      <Section title="Branding" id="branding">
        <div className="grid gap-6 lg:grid-cols-2">
          <div className="grid gap-4 sm:grid-cols-2">
            {COLOR_FIELDS.map((field) => (
              <ColorField
                key={field}
                name={`branding.${field}`}
                label={COLOR_LABELS[field]}
                value={branding[field]}
                errors={errors}
                onChange={(value) => setBrand(field, value)}
              />
            ))}
            {(
              [
                ["borderRadius", "Border radius"],
                ["fontFamily", "Font family"],
                ["companyName", "Company name"],
                ["companyAddress", "Company address"],
                ["favicon", "Favicon URL"],
              ] as const
            ).map(([field, label]) => {
              const props = fieldProps(`branding.${field}`, errors);
              return (
                <FieldShell key={field} {...props.shell} label={label}>
                  <TextInput
                    {...props.input}
                    value={branding[field]}
                    onChange={(event) => setBrand(field, event.currentTarget.value)}
                  />
                </FieldShell>
              );
            })}
            <LogoField
              value={branding.logoUrl}
              errors={errors}
              onChange={(value) => setBrand("logoUrl", value)}
            />
          </div>
          <div className="space-y-6">
            <div>
              <p className="mb-2 font-semibold">Preview</p>
              <BrandPreview branding={branding} />
            </div>
            <ContrastReport branding={branding} errors={errors["branding.contrast"]} />
          </div>
        </div>
      </Section>

      <Section title="Email Templates" id="templates">
        <div className="grid gap-6 md:grid-cols-2">
          {TEMPLATE_KEYS.map((key) => {
            const template = values.emailTemplates[key];
            const base = `emailTemplates.${key}`;
            const body = fieldProps(`${base}.body`, errors);
            return (
              <fieldset key={key} className="space-y-3 rounded-brand border border-black/10 p-4">
                <legend className="px-1 font-semibold">{TEMPLATE_LABELS[key]}</legend>
                {text(`${base}.subject`, "Subject", template.subject, { maxLength: 200 })}
                {text(`${base}.senderName`, "Sender name", template.senderName, {
                  maxLength: 100,
                  placeholder: "Blank: the tenant’s sender name",
                })}
                {text(`${base}.fromName`, "From name", template.fromName, {
                  maxLength: 100,
                  placeholder: "Blank: the tenant’s sender name",
                })}
                {text(`${base}.fromEmail`, "From email", template.fromEmail, {
                  type: "email",
                  maxLength: 254,
                  placeholder: "Blank: the tenant’s sender email",
                })}
                <FieldShell {...body.shell} label="Body">
                  <TextArea {...body.input} rows={4} defaultValue={template.body} />
                </FieldShell>
                <PreviewButton template={key} />
              </fieldset>
            );
          })}
        </div>
        <TemplatePreview preview={preview} />
      </Section>

      <Section title="Features and email settings" id="features">
        <div className="grid gap-6 md:grid-cols-2">
          <fieldset className="space-y-2">
            <legend className="font-semibold">Features</legend>
            {(Object.keys(FEATURE_LABELS) as (keyof typeof FEATURE_LABELS)[]).map((key) => (
              <Checkbox
                key={key}
                name={`features.${key}`}
                label={FEATURE_LABELS[key]}
                defaultChecked={values.features[key]}
              />
            ))}
          </fieldset>
          <div className="space-y-4">
            {text("email.senderName", "Sender name", values.email.senderName, { maxLength: 100 })}
            {text("email.senderEmail", "Sender email", values.email.senderEmail, {
              type: "email",
              maxLength: 254,
            })}
            {text("email.replyTo", "Reply-to email", values.email.replyTo, {
              type: "email",
              maxLength: 254,
            })}
            <FieldShell
              {...fieldProps("senderDomains", errors).shell}
              // a bad domain's issue is "senderDomains.2": shown under the one field
              errors={Object.entries(errors)
                .filter(([key]) => key.split(".")[0] === "senderDomains")
                .flatMap(([, messages]) => messages)}
              label="Sender domains"
              hint="Domains this tenant's mail may come from, separated by commas, beside its DKIM key's domain, its own domain and this site's. A subdomain of one is allowed too."
            >
              <TextInput
                {...fieldProps("senderDomains", errors).input}
                aria-describedby="f-senderDomains-hint f-senderDomains-error"
                defaultValue={values.senderDomains.join(", ")}
                maxLength={2000}
              />
            </FieldShell>
          </div>
        </div>
      </Section>

      <Section title="Mail provider" id="provider">
        <div className="grid gap-4 md:grid-cols-2">
          <SelectField
            name="mailProvider"
            label="Provider"
            hint="Who keeps this tenant's subscribers and sends its campaigns."
            defaultValue={values.mailProvider}
            errors={errors}
          >
            <option value="">Deployment default ({PROVIDER_LABELS[deploymentProvider]})</option>
            <option value="builtin">{PROVIDER_LABELS.builtin}</option>
            <option value="mailerlite">{PROVIDER_LABELS.mailerlite}</option>
          </SelectField>
          <div className="space-y-3">
            {values.emailGroups.groups.map((key) =>
              text(
                `mailerLiteGroups.${key}`,
                `MailerLite group id of “${key}”${key === values.emailGroups.default ? " (default: the mail-list group id)" : ""}`,
                values.mailerLiteGroups[key] ?? "",
                { inputMode: "numeric", maxLength: 30 },
              ),
            )}
          </div>
        </div>
      </Section>
      {buttons}
    </Form>
  );
}

/**
 * The contrast of each pair the colours make, as typed, against WCAG 2.2 AA — live as staff type —
 * and, for a failing pair, the shade the site draws instead. After a save refused for contrast,
 * the box that confirms it.
 */
function ContrastReport({
  branding,
  errors,
}: {
  branding: TenantSettings["branding"];
  errors: string[] | undefined;
}) {
  const checks = brandContrast(branding);
  return (
    <section aria-labelledby="contrast-heading">
      <h3 id="contrast-heading" className="font-semibold">
        Contrast (WCAG 2.2 AA)
      </h3>
      <ul className="mt-2 divide-y divide-black/10 rounded-brand border border-black/10">
        {checks.map((check) => (
          <li key={check.label} className="flex flex-wrap items-center gap-x-3 gap-y-1 px-3 py-2">
            {/* A picture of the pair, failing ones too: drawn, not text, so no checker reads it. */}
            <svg
              aria-hidden="true"
              viewBox="0 0 40 28"
              className="h-7 w-10 shrink-0 rounded border border-black/20"
            >
              <rect width="40" height="28" fill={check.background} />
              <text
                x="20"
                y="19"
                textAnchor="middle"
                fontSize="14"
                fontWeight="700"
                fill={check.foreground}
              >
                Aa
              </text>
            </svg>
            <span className="min-w-[9rem] flex-1 text-sm">{check.label}</span>
            <span className="ml-auto text-sm tabular-nums">
              {check.ratio.toFixed(2)}:1{" "}
              <span
                className={check.passes ? "font-semibold text-ok" : "font-semibold text-danger"}
              >
                {check.passes ? "passes" : `fails (needs ${check.needed}:1)`}
              </span>
            </span>
            {check.passes ? null : (
              <span className="w-full text-xs">
                The site uses <Swatch color={check.used} /> instead.
              </span>
            )}
          </li>
        ))}
      </ul>
      {errors ? (
        <div
          role="alert"
          id="f-branding-contrast-error"
          className="mt-3 rounded-brand border-2 border-danger p-3 text-sm"
        >
          <p className="font-semibold text-danger">{CONTRAST_WARNING}</p>
          <ul className="mt-1 list-disc pl-5">
            {errors.map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
          <Checkbox
            name="contrast"
            value="accepted"
            label="Save these colours anyway"
            className="mt-2 flex items-center gap-3 font-medium"
          />
        </div>
      ) : null}
    </section>
  );
}

function ColorField({
  name,
  label,
  value,
  errors,
  onChange,
}: {
  name: string;
  label: string;
  value: string;
  errors: Record<string, string[]>;
  onChange: (value: string) => void;
}) {
  const props = fieldProps(name, errors);
  const parsed = colord(value);
  return (
    <FieldShell {...props.shell} label={label}>
      <div className="flex items-center gap-2">
        <input
          type="color"
          aria-label={`Pick the ${label.toLowerCase()}`}
          value={parsed.isValid() ? parsed.toHex().slice(0, 7) : "#000000"}
          onChange={(event) => onChange(event.currentTarget.value)}
          className="h-10 w-12 shrink-0 cursor-pointer rounded border border-black/30 bg-surface p-0.5"
        />
        <TextInput
          {...props.input}
          value={value}
          onChange={(event) => onChange(event.currentTarget.value)}
          maxLength={64}
          spellCheck={false}
        />
      </div>
    </FieldShell>
  );
}

function LogoField({
  value,
  errors,
  onChange,
}: {
  value: string;
  errors: Record<string, string[]>;
  onChange: (value: string) => void;
}) {
  const props = fieldProps("branding.logoUrl", errors);
  const [status, setStatus] = useState<string | null>(null);
  async function upload(file: File) {
    setStatus("Uploading…");
    const body = new FormData();
    body.set("file", file);
    try {
      const response = await fetch("/admin/uploads", { method: "POST", body });
      const answer = (await response.json()) as { url?: string; error?: string };
      if (!response.ok || !answer.url) throw new Error(answer.error ?? "Upload failed");
      onChange(answer.url);
      setStatus("Logo uploaded. Save to keep it.");
    } catch (error) {
      setStatus(error instanceof Error ? error.message : "Upload failed");
    }
  }
  return (
    <div className="sm:col-span-2">
      <FieldShell {...props.shell} label="Logo URL" hint="A https:// address, or upload an image.">
        <TextInput
          {...props.input}
          aria-describedby={`${props.shell.id}-hint ${props.shell.id}-error`}
          value={value}
          onChange={(event) => onChange(event.currentTarget.value)}
        />
      </FieldShell>
      <label className="mt-2 block text-sm">
        <span className="font-semibold">Upload a logo</span>
        <input
          type="file"
          accept="image/png,image/jpeg,image/gif,image/webp"
          className="mt-1 block text-sm"
          onChange={(event) => {
            const file = event.currentTarget.files?.[0];
            if (file) void upload(file);
          }}
        />
      </label>
      <p role="status" className="mt-1 text-sm">
        {status}
      </p>
    </div>
  );
}

export function History({ history }: { history: TenantHistoryEntry[] }) {
  return (
    <section aria-labelledby="history" className="mt-10">
      <h2 id="history" className="text-xl font-bold">
        History
      </h2>
      {history.length === 0 ? (
        <p className="mt-2">No changes recorded yet.</p>
      ) : (
        <ol className="mt-4 space-y-3">
          {history.map((entry) => (
            <li key={entry.id} className="rounded-brand border border-black/10 bg-surface p-4">
              <details>
                <summary className="cursor-pointer">
                  <span className="font-semibold capitalize">{entry.action}</span> by {entry.actor}{" "}
                  · <StaffTime iso={entry.createdAt} /> · {entry.changes.length}{" "}
                  {entry.changes.length === 1 ? "field" : "fields"}
                </summary>
                <ul className="mt-3 space-y-1 text-sm">
                  {entry.changes.map((change) => (
                    <li key={change.field} className="break-words">
                      <code>{change.field}</code>: <Value value={change.before} /> →{" "}
                      <Value value={change.after} />
                    </li>
                  ))}
                </ul>
              </details>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

function Value({ value }: { value: unknown }) {
  if (value === null || value === "") return <span className="opacity-70">(empty)</span>;
  const shown = typeof value === "string" ? value : JSON.stringify(value);
  return <q>{shown.length > 120 ? `${shown.slice(0, 120)}…` : shown}</q>;
}

export function DangerZone({ tenantId, message }: { tenantId: string; message: string | null }) {
  return (
    <SettingsPanel
      id="danger"
      title="Delete this tenant"
      message={message}
      danger
      intro={
        <p className="mt-2">
          Deleting removes the tenant's configuration. A tenant with newsletters, subscribers or
          messages is only deleted when you also tick the box; its data goes with it.
        </p>
      }
    >
      <Form method="post" className="mt-4 flex flex-wrap items-center gap-4">
        <Checkbox name="force" label="Also delete its newsletters, subscribers and messages" />
        <label className="flex flex-wrap items-center gap-2">
          Type <code>{tenantId}</code> to confirm:
          <input
            name="confirm"
            required
            autoComplete="off"
            spellCheck={false}
            className="w-40 rounded-brand border border-black/30 bg-surface px-2 py-1"
          />
        </label>
        <button type="submit" name="intent" value="delete" className={dangerSubmitClass}>
          Delete {tenantId}
        </button>
      </Form>
    </SettingsPanel>
  );
}
