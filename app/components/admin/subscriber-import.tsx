/**
 * CSV imports (app/routes/admin/subscriber-imports.tsx and subscriber-import.tsx, and the form on
 * the subscribers page): the upload form, a job's progress bar and its report, the latest jobs.
 */
import { Form, useNavigation } from "react-router";
import type { RefusedRow } from "../../../server/subscribers/import-rows";
import type { ImportJob } from "../../../server/subscribers/imports";
import { formatCount, plural } from "../../../shared/format";
import {
  IMPORT_SOURCE_LABELS,
  MAX_IMPORT_BYTES,
  MAX_IMPORT_LABEL,
} from "../../../shared/schemas/subscribers";
import type { Column } from "../ui/data-table";
import { ChoiceGroup } from "../ui/form";
import {
  ImportJobList,
  ImportReportFrame,
  LeftOutItems,
  UploadButton,
  UploadFileField,
  useUploadLimit,
} from "./import-job";

export const STATUS_LOOK: Record<string, string> = {
  active: "bg-ok/15 text-ok",
  unconfirmed: "bg-secondary/25 text-ink",
  unsubscribed: "bg-black/10 text-ink",
  bounced: "bg-danger/15 text-ink",
  complained: "bg-danger/15 text-ink",
};

const REFUSED_COLUMNS: Column<RefusedRow>[] = [
  { header: "Row", className: "tabular-nums", cell: (row) => row.line },
  {
    header: "Email as given",
    label: "Email",
    className: "break-all font-mono",
    cell: (row) => row.email || "—",
  },
  { header: "Reason", cell: (row) => row.reason },
];

/** What an import did (so far): written, new, updated, refused — and the refused rows. */
export function ImportReportView({ job }: { job: ImportJob }) {
  const done = job.status === "done";
  return (
    <ImportReportFrame
      id="import-report"
      status={job.status}
      heading={
        done
          ? `Imported ${formatCount(job.doneRows)} rows; refused ${formatCount(job.refusedCount)} rows`
          : job.status === "failed"
            ? `Import stopped after ${plural(job.doneRows, "row")}`
            : `Importing: refused ${plural(job.refusedCount, "row")} so far`
      }
      error={job.error}
    >
      <p className="mt-1 text-sm">
        {job.source === "mailerlite" ? (
          "From the MailerLite account"
        ) : (
          <>
            From <span className="font-mono">{job.fileName}</span> (
            {IMPORT_SOURCE_LABELS[job.source]})
          </>
        )}
        : {formatCount(job.created)} new, {formatCount(job.updated)} updated. No email was sent.
      </p>
      {done && job.source === "mailerlite" && !job.error ? (
        <p className="mt-2 text-sm font-semibold">
          Everyone came across: this site now sends with Herald.
        </p>
      ) : null}
      {job.keptUnsubscribed > 0 ? (
        job.source === "herald" ? (
          <p className="mt-2 text-sm">
            {plural(job.keptUnsubscribed, "row")} matched people who had unsubscribed; they stay
            unsubscribed. Put <strong>active</strong> in a row's status column to subscribe someone
            again.
          </p>
        ) : (
          <p className="mt-2 text-sm">
            {plural(job.keptUnsubscribed, "row")} matched people who had unsubscribed, bounced or
            complained here; they stay so. Nobody is subscribed again by an import from elsewhere.
          </p>
        )
      ) : null}
      <LeftOutItems
        caption="Refused rows"
        count={job.refusedCount}
        items={job.refused}
        columns={REFUSED_COLUMNS}
        rowKey={(row) => row.line}
      />
    </ImportReportFrame>
  );
}

export function ImportList({ imports }: { imports: ImportJob[] }) {
  return (
    <ImportJobList
      imports={imports}
      href={(job) => `/admin/subscribers/imports/${job.id}`}
      from={{ header: "Source", cell: (job) => IMPORT_SOURCE_LABELS[job.source] }}
      counts={{
        header: "Rows",
        cell: (job) =>
          `${formatCount(job.doneRows)} of ${formatCount(job.totalRows)} written, ${formatCount(job.refusedCount)} refused`,
      }}
    />
  );
}

export function ImportForm() {
  const upload = useUploadLimit(MAX_IMPORT_BYTES);
  return (
    <Form
      method="post"
      action="/admin/subscribers/imports"
      encType="multipart/form-data"
      className="space-y-3"
      onSubmit={upload.onSubmit}
    >
      <ChoiceGroup
        type="radio"
        legend="Where the file comes from"
        name="source"
        options={(["herald", "ghost", "substack"] as const).map((source) => ({
          value: source,
          label:
            source === "substack"
              ? "Substack email list or export zip"
              : IMPORT_SOURCE_LABELS[source],
        }))}
        chosen="herald"
        className="mt-1 flex flex-wrap gap-x-6 gap-y-1"
      />
      <UploadFileField
        id="import-file"
        label={`CSV file (at most ${MAX_IMPORT_LABEL})`}
        accept=".csv,text/csv,.zip,application/zip"
        describedBy="import-help"
        upload={upload}
        tooLarge={`The file is larger than ${MAX_IMPORT_LABEL}. Split it into smaller files.`}
      />
      <div id="import-help" className="max-w-3xl space-y-1 text-sm">
        <p>
          Columns: <code>email</code> (required), <code>name</code>, <code>lists</code> (list keys
          separated by <code>;</code> or <code>|</code>; none means the default list) and{" "}
          <code>status</code> (<code>active</code> or <code>unsubscribed</code>; none means active).
        </p>
        <p>
          Known addresses are updated: a name replaces the old one, named lists replace the old
          lists. People who unsubscribed stay unsubscribed unless their row says <code>active</code>
          . Imported people get no email. Rows with errors are listed and skipped; the others are
          written in the background, with a progress bar.
        </p>
        <p>
          <strong>Ghost</strong>: the members CSV from Ghost Admin → Members → Export. Labels become
          lists (made when missing); members not subscribed to emails are kept as unsubscribed.{" "}
          <strong>Substack</strong>: the email list CSV, or the whole export zip. Nobody who left is
          subscribed again.
        </p>
      </div>
      <UploadButton upload={upload}>Import CSV</UploadButton>
    </Form>
  );
}

/** A super admin's button for a tenant on MailerLite: every subscriber comes across, then Herald sends. */
export function MoveFromMailerLiteForm() {
  const navigation = useNavigation();
  const moving = navigation.state === "submitting" && navigation.formData?.get("intent") !== null;
  return (
    <Form method="post" action="/admin/subscribers/imports" className="space-y-3">
      <p className="max-w-3xl text-sm">
        Brings every subscriber of the MailerLite account across — their status, fields, and groups
        as lists — without sending anyone an email or subscribing anyone who left. When everyone has
        come across, this site sends with Herald instead of MailerLite; if MailerLite stops
        answering half way, the site stays on MailerLite and moving again goes on from there.
      </p>
      <input type="hidden" name="intent" value="move-from-mailerlite" />
      <button
        type="submit"
        aria-disabled={moving || undefined}
        className="rounded-brand bg-brand-strong px-4 py-2 font-semibold text-on-brand-strong"
      >
        {moving ? "Starting…" : "Move to Herald's sending"}
      </button>
    </Form>
  );
}
