/**
 * What the two kinds of import job share on their pages (subscriber-import.tsx for CSV files and
 * MailerLite moves, newsletter-import.tsx for Ghost and Substack archives): the progress bar that
 * keeps the page fresh while the job runs, the report's frame, and its list of items left out.
 */
import { type FormEvent, type ReactNode, useEffect, useState } from "react";
import { useNavigation, useRevalidator } from "react-router";
import { formatCount, formatDateTime, plural } from "../../../shared/format";
import { Link } from "../../lib/page-scripts";
import { AdminPage, BackLink } from "../admin-header";
import { type Column, DataTable } from "../ui/data-table";
import { FieldShell } from "../ui/form";

export type ImportJobStatus = "queued" | "running" | "done" | "failed";

/** A job's state in the latest-imports tables. */
const IMPORT_STATUS_WORDS: Record<ImportJobStatus, string> = {
  queued: "Waiting",
  running: "Importing",
  done: "Done",
  failed: "Stopped",
};

const working = (status: ImportJobStatus) => status === "queued" || status === "running";

/**
 * A job's progress bar while it runs, then its report (`children`). The page asks again every
 * second while the job runs: with JavaScript by revalidating, without it by a refresh.
 */
export function ImportJobProgress({
  id,
  status,
  done,
  total,
  unit,
  children,
}: {
  /** the progress element's id (its label points at it) */
  id: string;
  status: ImportJobStatus;
  done: number;
  total: number;
  /** what the job counts: "row", "post" */
  unit: string;
  children: ReactNode;
}) {
  const revalidator = useRevalidator();
  const running = working(status);
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => {
      if (revalidator.state === "idle") void revalidator.revalidate();
    }, 1_000);
    return () => clearInterval(timer);
  }, [running, revalidator]);
  const percent = total > 0 ? Math.floor((done / total) * 100) : 100;
  // How far the job is, in words: "Imported 12,000 of 100,000 rows".
  const label =
    status === "queued"
      ? `Waiting to start: ${plural(total, unit)} to import`
      : `Imported ${formatCount(done)} of ${plural(total, unit)}`;
  return (
    <div className="space-y-6">
      {running ? (
        <>
          <noscript>
            <meta httpEquiv="refresh" content="2" />
          </noscript>
          <div className="space-y-2">
            <label htmlFor={id} className="block font-semibold">
              {label}
            </label>
            <progress id={id} max={total} value={done} className="h-4 w-full accent-brand-strong">
              {percent}%
            </progress>
            <p className="text-sm" aria-live="polite">
              {percent}% done. You can leave this page: the import goes on, and its report stays
              under Imports.
            </p>
          </div>
        </>
      ) : null}
      {children}
    </div>
  );
}

/**
 * An import job's page (app/routes/admin/subscriber-import.tsx and newsletter-import.tsx): the way
 * back to the imports, the progress bar while the job runs, then its report (`children`).
 */
export function ImportJobPage({
  job,
  progress,
  back,
  children,
}: {
  job: { fileName: string; status: ImportJobStatus };
  progress: { id: string; done: number; total: number; unit: string };
  /** the latest imports' page */
  back: string;
  children: ReactNode;
}) {
  return (
    <AdminPage title={`Import of ${job.fileName}`} className="space-y-6">
      <BackLink to={back}>Imports</BackLink>
      <ImportJobProgress status={job.status} {...progress}>
        {children}
      </ImportJobProgress>
    </AdminPage>
  );
}

/**
 * An import's report: a box bordered by how the job ended, its heading, why it stopped (`error`),
 * and what it did.
 */
export function ImportReportFrame({
  id,
  status,
  heading,
  error,
  children,
}: {
  /** the heading's id (the box is labelled by it) */
  id: string;
  status: ImportJobStatus;
  heading: string;
  error: string | null;
  children: ReactNode;
}) {
  const border =
    status === "failed" ? "border-danger" : status === "done" ? "border-ok" : "border-black/20";
  return (
    <section
      aria-labelledby={id}
      role="status"
      className={`rounded-brand border-2 bg-surface p-5 ${border}`}
    >
      <h2 id={id} className="text-lg font-bold">
        {heading}
      </h2>
      {error ? (
        <p role="alert" className="mt-2 font-medium text-danger">
          {error}
        </p>
      ) : null}
      {children}
    </section>
  );
}

/**
 * The items a job left out (refused rows, skipped posts), of which it keeps the first few
 * hundred: the caption says so when `count` is more than it kept. Nothing when there are none.
 */
export function LeftOutItems<T>({
  caption,
  count,
  items,
  columns,
  rowKey,
}: {
  caption: string;
  count: number;
  items: T[];
  columns: Column<T>[];
  rowKey: (item: T) => string | number;
}) {
  if (items.length === 0) return null;
  return (
    <DataTable
      className="mt-4"
      caption={
        count > items.length
          ? `${caption} (the first ${formatCount(items.length)} of ${formatCount(count)})`
          : caption
      }
      columns={columns}
      rows={items}
      rowKey={rowKey}
    />
  );
}

const fileInputClass =
  "mt-1 block w-full max-w-md text-sm file:mr-3 file:rounded-brand file:border-2 file:border-brand-strong file:bg-surface file:px-3 file:py-1.5 file:font-semibold file:text-brand-strong";

/**
 * An upload form's check of its file's size before it is sent: the host refuses bodies over its
 * limit before the page could explain, so the page says it. `onSubmit` for the form, `onChange`
 * for the file input (named "file"), `tooLarge` to show the reason; `uploading` while a file is
 * being sent.
 */
export function useUploadLimit(maxBytes: number) {
  const navigation = useNavigation();
  const [tooLarge, setTooLarge] = useState(false);
  return {
    tooLarge,
    uploading:
      navigation.state === "submitting" && navigation.formEncType === "multipart/form-data",
    onSubmit: (event: FormEvent<HTMLFormElement>) => {
      const input = event.currentTarget.elements.namedItem("file");
      const file = input instanceof HTMLInputElement ? input.files?.[0] : undefined;
      if (file && file.size > maxBytes) {
        event.preventDefault();
        setTooLarge(true);
      }
    },
    onChange: () => setTooLarge(false),
  };
}

type UploadLimit = ReturnType<typeof useUploadLimit>;

/** An upload form's file input (named "file", as useUploadLimit reads it), then why a file was not sent. */
export function UploadFileField({
  id,
  label,
  accept,
  describedBy,
  upload,
  tooLarge,
}: {
  id: string;
  label: string;
  accept: string;
  /** the id of the text that says which files it takes */
  describedBy: string;
  upload: UploadLimit;
  /** what the page says when the chosen file is over the limit */
  tooLarge: string;
}) {
  return (
    <FieldShell id={id} label={label}>
      <input
        id={id}
        name="file"
        type="file"
        accept={accept}
        required
        aria-describedby={describedBy}
        onChange={upload.onChange}
        className={fileInputClass}
      />
      {/* An alert: the file was kept back, so no page comes back to say why. */}
      {upload.tooLarge ? (
        <p role="alert" className="mt-1 font-medium text-danger">
          {tooLarge}
        </p>
      ) : null}
    </FieldShell>
  );
}

/** An upload form's submit button: "Uploading…" while the file is being sent. */
export function UploadButton({ upload, children }: { upload: UploadLimit; children: string }) {
  return (
    <button
      type="submit"
      aria-disabled={upload.uploading || undefined}
      className="rounded-brand bg-brand-strong px-4 py-2 font-semibold text-on-brand-strong"
    >
      {upload.uploading ? "Uploading…" : children}
    </button>
  );
}

interface ListedJob {
  id: number;
  fileName: string;
  status: ImportJobStatus;
  createdAt: string;
  createdBy: string;
}

/**
 * A tenant's latest import jobs: the file (a link to its page), where it came from, who uploaded
 * it when, its state, and what it did so far (`counts`).
 */
export function ImportJobList<Job extends ListedJob>({
  imports,
  href,
  from,
  counts,
}: {
  imports: Job[];
  href: (job: Job) => string;
  from: Column<Job>;
  counts: Column<Job>;
}) {
  const columns: Column<Job>[] = [
    {
      header: "File",
      className: "break-all",
      cell: (job) => (
        <Link to={href(job)} className="font-mono">
          {job.fileName}
        </Link>
      ),
    },
    from,
    { header: "Uploaded", cell: (job) => `${formatDateTime(job.createdAt)} by ${job.createdBy}` },
    { header: "State", cell: (job) => IMPORT_STATUS_WORDS[job.status] },
    { className: "tabular-nums", ...counts },
  ];
  return (
    <DataTable columns={columns} rows={imports} rowKey={(job) => job.id} empty="No imports yet." />
  );
}
