/** The subscribers page's CSV import: the form and its report (app/routes/admin/subscribers.tsx). */
import { useState } from "react";
import { Form, useNavigation } from "react-router";
import type { RefusedRow } from "../../../server/subscribers/admin";
import { plural } from "../../../shared/format";
import { MAX_IMPORT_BYTES } from "../../../shared/schemas/subscribers";
import type { ImportAnswer } from "../../routes/admin/subscribers.server";
import { type Column, DataTable } from "../ui/data-table";

export const STATUS_LOOK: Record<string, string> = {
  active: "bg-ok/15 text-ok",
  unconfirmed: "bg-secondary/25 text-ink",
  unsubscribed: "bg-black/10 text-ink",
  bounced: "bg-danger/15 text-ink",
  complained: "bg-danger/15 text-ink",
};

export const fieldClass = "mt-1 w-full rounded-brand border border-black/30 bg-surface px-3 py-2";
export const outlineButton =
  "rounded-brand border-2 border-brand-strong px-4 py-2 font-semibold text-brand-strong no-underline hover:bg-brand/10";

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

export function ImportReportView({ answer }: { answer: ImportAnswer }) {
  if (!answer.ok) {
    return (
      <p role="alert" className="rounded-brand border-2 border-danger p-3 font-medium text-danger">
        {answer.message}
      </p>
    );
  }
  const { report } = answer;
  return (
    <section
      aria-labelledby="import-report"
      role="status"
      className="rounded-brand border-2 border-ok bg-surface p-5"
    >
      <h2 id="import-report" className="text-lg font-bold">
        Imported {report.imported} rows; refused {report.refused.length} rows
      </h2>
      <p className="mt-1 text-sm">
        From <span className="font-mono">{answer.fileName}</span>: {report.created} new,{" "}
        {report.updated} updated. No email was sent.
      </p>
      {report.keptUnsubscribed > 0 ? (
        <p className="mt-2 text-sm">
          {plural(report.keptUnsubscribed, "row")} matched people who had unsubscribed; they stay
          unsubscribed. Put <strong>active</strong> in a row's status column to subscribe someone
          again.
        </p>
      ) : null}
      {report.refused.length > 0 ? (
        <DataTable
          className="mt-4"
          caption="Refused rows"
          columns={REFUSED_COLUMNS}
          rows={report.refused}
          rowKey={(row) => row.line}
        />
      ) : null}
    </section>
  );
}

export function ImportForm() {
  const navigation = useNavigation();
  const [tooLarge, setTooLarge] = useState(false);
  const importing =
    navigation.state === "submitting" && navigation.formEncType === "multipart/form-data";
  return (
    <Form
      method="post"
      // The answer is shown in this section: the page opens on it, with or without JavaScript.
      action="/admin/subscribers#import"
      encType="multipart/form-data"
      className="space-y-3"
      onSubmit={(event) => {
        const input = event.currentTarget.elements.namedItem("file");
        const file = input instanceof HTMLInputElement ? input.files?.[0] : undefined;
        // The host refuses bodies over 1 MiB before the page could explain; say it here.
        if (file && file.size > MAX_IMPORT_BYTES) {
          event.preventDefault();
          setTooLarge(true);
        }
      }}
    >
      <div>
        <label htmlFor="import-file" className="block font-semibold">
          CSV file (at most 1 MB)
        </label>
        <input
          id="import-file"
          name="file"
          type="file"
          accept=".csv,text/csv"
          required
          aria-describedby="import-help"
          onChange={() => setTooLarge(false)}
          className="mt-1 block w-full max-w-md text-sm file:mr-3 file:rounded-brand file:border-2 file:border-brand-strong file:bg-surface file:px-3 file:py-1.5 file:font-semibold file:text-brand-strong"
        />
      </div>
      {tooLarge ? (
        <p role="alert" className="font-medium text-danger">
          The file is larger than 1 MB. Split it into smaller files.
        </p>
      ) : null}
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
          saved together.
        </p>
      </div>
      <button
        type="submit"
        aria-disabled={importing || undefined}
        className="rounded-brand bg-brand-strong px-4 py-2 font-semibold text-on-brand-strong"
      >
        {importing ? "Importing…" : "Import CSV"}
      </button>
    </Form>
  );
}
