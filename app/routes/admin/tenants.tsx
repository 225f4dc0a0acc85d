import { Form, useActionData, useNavigation, useSearchParams } from "react-router";
import { formatDateTime } from "../../../shared/format";
import { TENANT_ID_PATTERN } from "../../../shared/schemas/tenant";
import { AdminPage } from "../../components/admin-header";
import { FieldShell, SubmitButton, TextInput } from "../../components/ui/form";
import { noindexMeta } from "../../lib/meta";
import { Link } from "../../lib/page-scripts";
import type { Route } from "./+types/tenants";
import type { action, CreateFailure } from "./tenants.server";

export { action, loader } from "./tenants.server";

export const meta: Route.MetaFunction = () => noindexMeta("Tenant manager");

export default function Tenants({ loaderData }: Route.ComponentProps) {
  const { tenants, backups } = loaderData;
  const deleted = useSearchParams()[0].get("deleted");
  const failure = useActionData<typeof action>() as CreateFailure | undefined;
  const navigation = useNavigation();
  const creating = navigation.state !== "idle" && navigation.formMethod === "POST";
  return (
    <AdminPage title="Tenant manager">
      {deleted ? (
        <p
          role="status"
          className="mb-6 rounded-brand border border-ok/40 bg-ok/10 px-4 py-3 font-medium text-ok"
        >
          Tenant {deleted} deleted.
        </p>
      ) : null}
      <details
        className="rounded-brand border border-black/10 bg-surface p-4"
        open={failure ? true : undefined}
      >
        <summary className="inline-block cursor-pointer rounded-brand bg-brand-strong px-5 py-2.5 font-semibold text-on-brand-strong">
          Add New Tenant
        </summary>
        <Form method="post" className="mt-4 grid gap-4 sm:grid-cols-3" noValidate={false}>
          {failure ? (
            <p role="alert" className="font-medium text-danger sm:col-span-3">
              {failure.message}
            </p>
          ) : null}
          <NewTenantField
            name="id"
            label="Tenant id"
            hint="Lower-case letters, digits and hyphens; it cannot change later."
            maxLength={40}
            pattern={TENANT_ID_PATTERN}
            failure={failure}
          />
          <NewTenantField
            name="name"
            label="Name"
            hint="The brand's name, as visitors see it in the header."
            maxLength={100}
            failure={failure}
          />
          <NewTenantField
            name="domain"
            label="Domain"
            hint="The host name the brand is served on, e.g. news.example.com."
            maxLength={253}
            failure={failure}
          />
          <div className="sm:col-span-3">
            <SubmitButton pending={creating}>
              {creating ? "Creating…" : "Create tenant"}
            </SubmitButton>
          </div>
        </Form>
      </details>

      <h2 className="mt-10 text-xl font-bold">Tenants</h2>
      <ul className="mt-4 grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
        {tenants.map((tenant) => (
          <li
            key={tenant.id}
            className="flex flex-col rounded-brand border border-black/10 bg-surface p-5 shadow-sm"
          >
            <div className="flex items-center gap-3">
              <span
                aria-hidden="true"
                className="h-6 w-6 shrink-0 rounded-full border border-black/10"
                style={{ background: tenant.primaryColor }}
              />
              <h3 className="text-lg font-semibold">
                <Link to={`/admin/tenants/${encodeURIComponent(tenant.id)}`}>{tenant.name}</Link>
              </h3>
            </div>
            <p className="mt-1 text-sm">
              <span className="sr-only">Domain: </span>
              {tenant.domain ?? <span className="opacity-80">No domain (id {tenant.id})</span>}
            </p>
            {tenant.description ? (
              <p className="mt-2 text-sm opacity-80">{tenant.description}</p>
            ) : null}
            <p className="mt-auto pt-4">
              <Link
                to={`/admin/tenants/${encodeURIComponent(tenant.id)}`}
                className="font-semibold"
                aria-label={`Open ${tenant.name}`}
              >
                Open
              </Link>
            </p>
          </li>
        ))}
      </ul>

      <BackupStatus backups={backups} />
    </AdminPage>
  );
}

/** The installation's scheduled snapshots (README, Backups and restore): last success and failure. */
function BackupStatus({ backups }: { backups: Route.ComponentProps["loaderData"]["backups"] }) {
  const { lastSuccess, lastFailure } = backups;
  const failedSince = lastFailure && (!lastSuccess || lastFailure.at > lastSuccess.at);
  return (
    <section aria-labelledby="backups-heading" className="mt-10">
      <h2 id="backups-heading" className="text-xl font-bold">
        Backups
      </h2>
      <div className="mt-4 rounded-brand border border-black/10 bg-surface p-5 shadow-sm">
        {lastSuccess ? (
          <p>
            Last backup: <strong>{formatDateTime(lastSuccess.at)}</strong>,{" "}
            {formatSize(lastSuccess.bytes)}, in{" "}
            <code className="break-all text-sm">{lastSuccess.dir}</code>
          </p>
        ) : (
          <p>
            No scheduled backup has been written yet. They are written where the sending worker
            runs, when BACKUP_DIR is set.
          </p>
        )}
        {lastFailure ? (
          <p className={failedSince ? "mt-2 font-medium text-danger" : "mt-2 text-sm opacity-80"}>
            {failedSince ? "Last backup failed" : "Last failure"}: {formatDateTime(lastFailure.at)}{" "}
            — <span className="break-words">{lastFailure.error}</span>
          </p>
        ) : null}
      </div>
    </section>
  );
}

/** A snapshot's size as people read it: 1.2 GB, 340 MB, 12 kB. */
function formatSize(bytes: number): string {
  const units = ["bytes", "kB", "MB", "GB", "TB"];
  let size = bytes;
  let unit = 0;
  while (size >= 1000 && unit < units.length - 1) {
    size /= 1000;
    unit++;
  }
  return `${unit === 0 ? size : size.toFixed(size < 10 ? 1 : 0)} ${units[unit]}`;
}

/** One field of 'Add New Tenant', keeping what was typed and its errors after a refusal. */
function NewTenantField({
  name,
  label,
  hint,
  maxLength,
  pattern,
  failure,
}: {
  name: keyof CreateFailure["values"];
  label: string;
  hint: string;
  maxLength: number;
  pattern?: string;
  failure: CreateFailure | undefined;
}) {
  const id = `new-${name}`;
  const errors = failure?.fields[name];
  return (
    <FieldShell id={id} label={label} hint={hint} errors={errors}>
      <TextInput
        id={id}
        name={name}
        required
        maxLength={maxLength}
        pattern={pattern}
        defaultValue={failure?.values[name]}
        aria-invalid={errors ? true : undefined}
        aria-describedby={`${id}-hint ${id}-error`}
      />
    </FieldShell>
  );
}
