/**
 * Newsletters from Ghost and Substack (app/routes/admin/newsletter-imports.tsx and
 * newsletter-import.tsx): the upload form, a job's progress bar and its report, the latest jobs.
 */
import { useEffect, useState } from "react";
import { Form, useNavigation, useRevalidator } from "react-router";
import type { SkippedItem } from "../../../server/newsletters/archive-formats";
import type { ArchiveImportJob, ImportWarning } from "../../../server/newsletters/archive-imports";
import { formatCount, formatDateTime, plural } from "../../../shared/format";
import {
  ARCHIVE_SOURCES,
  MAX_ARCHIVE_UPLOAD_BYTES,
  MAX_ARCHIVE_UPLOAD_LABEL,
} from "../../../shared/schemas/archive-import";
import { Link } from "../../lib/page-scripts";
import { type Column, DataTable } from "../ui/data-table";
import { fieldClass } from "./subscriber-import";

const SOURCE_NAMES: Record<ArchiveImportJob["source"], string> = {
  ghost: "Ghost",
  substack: "Substack",
};

const SKIPPED_COLUMNS: Column<SkippedItem & { n: number }>[] = [
  { header: "Post", className: "break-words", cell: (row) => row.item },
  { header: "Reason", cell: (row) => row.reason },
];

const WARNING_COLUMNS: Column<ImportWarning & { n: number }>[] = [
  { header: "Post", className: "break-words", cell: (row) => row.item },
  { header: "Note", className: "break-words", cell: (row) => row.message },
];

const working = (job: ArchiveImportJob) => job.status === "queued" || job.status === "running";

/**
 * A job's progress bar while it runs, then what it did. The page asks again every second while the
 * job runs: with JavaScript by revalidating, without it by a refresh.
 */
export function ArchiveImportProgress({ job }: { job: ArchiveImportJob }) {
  const revalidator = useRevalidator();
  const running = working(job);
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => {
      if (revalidator.state === "idle") void revalidator.revalidate();
    }, 1_000);
    return () => clearInterval(timer);
  }, [running, revalidator]);
  const percent = job.totalPosts > 0 ? Math.floor((job.donePosts / job.totalPosts) * 100) : 100;
  return (
    <div className="space-y-6">
      {running ? (
        <>
          <noscript>
            <meta httpEquiv="refresh" content="2" />
          </noscript>
          <div className="space-y-2">
            <label htmlFor="archive-progress" className="block font-semibold">
              {job.status === "queued"
                ? `Waiting to start: ${plural(job.totalPosts, "post")} to import`
                : `Imported ${formatCount(job.donePosts)} of ${plural(job.totalPosts, "post")}`}
            </label>
            <progress
              id="archive-progress"
              max={job.totalPosts}
              value={job.donePosts}
              className="h-4 w-full accent-brand-strong"
            >
              {percent}%
            </progress>
            <p className="text-sm" aria-live="polite">
              {percent}% done. You can leave this page: the import goes on, and its report stays
              under Imports.
            </p>
          </div>
        </>
      ) : null}
      <ArchiveImportReport job={job} />
    </div>
  );
}

/** What an import did (so far): imported, skipped with reasons, notes and image warnings. */
export function ArchiveImportReport({ job }: { job: ArchiveImportJob }) {
  const failed = job.status === "failed";
  const done = job.status === "done";
  const numbered = <T,>(rows: T[]) => rows.map((row, n) => ({ ...row, n }));
  return (
    <section
      aria-labelledby="archive-report"
      role="status"
      className={`rounded-brand border-2 bg-surface p-5 ${failed ? "border-danger" : done ? "border-ok" : "border-black/20"}`}
    >
      <h2 id="archive-report" className="text-lg font-bold">
        {done
          ? `Imported ${plural(job.imported, "newsletter")}; skipped ${plural(job.skippedCount, "post")}`
          : failed
            ? `Import stopped after ${plural(job.imported, "newsletter")}`
            : `Importing: ${plural(job.imported, "newsletter")} so far`}
      </h2>
      {failed && job.error ? (
        <p role="alert" className="mt-2 font-medium text-danger">
          {job.error}
        </p>
      ) : null}
      <p className="mt-1 text-sm">
        From {SOURCE_NAMES[job.source]}, <span className="break-all font-mono">{job.fileName}</span>
        . Published posts are published here with their date; drafts stay drafts. No email was sent.
      </p>
      {job.skipped.length > 0 ? (
        <DataTable
          className="mt-4"
          caption={
            job.skippedCount > job.skipped.length
              ? `Skipped posts (the first ${formatCount(job.skipped.length)} of ${formatCount(job.skippedCount)})`
              : "Skipped posts"
          }
          columns={SKIPPED_COLUMNS}
          rows={numbered(job.skipped)}
          rowKey={(row) => row.n}
        />
      ) : null}
      {job.warnings.length > 0 ? (
        <DataTable
          className="mt-4"
          caption="Imported with notes (images not copied, parts left out, changes)"
          columns={WARNING_COLUMNS}
          rows={numbered(job.warnings)}
          rowKey={(row) => row.n}
        />
      ) : null}
    </section>
  );
}

const STATUS_WORDS: Record<ArchiveImportJob["status"], string> = {
  queued: "Waiting",
  running: "Importing",
  done: "Done",
  failed: "Stopped",
};

const IMPORT_COLUMNS: Column<ArchiveImportJob>[] = [
  {
    header: "File",
    className: "break-all",
    cell: (job) => (
      <Link to={`/admin/newsletter/import/${job.id}`} className="font-mono">
        {job.fileName}
      </Link>
    ),
  },
  { header: "From", cell: (job) => SOURCE_NAMES[job.source] },
  { header: "Uploaded", cell: (job) => `${formatDateTime(job.createdAt)} by ${job.createdBy}` },
  { header: "State", cell: (job) => STATUS_WORDS[job.status] },
  {
    header: "Posts",
    className: "tabular-nums",
    cell: (job) =>
      `${formatCount(job.imported)} imported, ${formatCount(job.skippedCount)} skipped`,
  },
];

export function ArchiveImportList({ imports }: { imports: ArchiveImportJob[] }) {
  if (imports.length === 0) return <p>No imports yet.</p>;
  return <DataTable columns={IMPORT_COLUMNS} rows={imports} rowKey={(job) => job.id} />;
}

export function ArchiveImportForm({ errors }: { errors?: Record<string, string> }) {
  const navigation = useNavigation();
  const [tooLarge, setTooLarge] = useState(false);
  const importing =
    navigation.state === "submitting" && navigation.formEncType === "multipart/form-data";
  return (
    <Form
      method="post"
      action="/admin/newsletter/import"
      encType="multipart/form-data"
      className="mt-3 max-w-3xl space-y-4"
      onSubmit={(event) => {
        const input = event.currentTarget.elements.namedItem("file");
        const file = input instanceof HTMLInputElement ? input.files?.[0] : undefined;
        // The host refuses bodies over its limit before the page could explain; say it here.
        if (file && file.size > MAX_ARCHIVE_UPLOAD_BYTES) {
          event.preventDefault();
          setTooLarge(true);
        }
      }}
    >
      <fieldset>
        <legend className="font-semibold">Where the archive comes from</legend>
        <div className="mt-1 flex flex-wrap gap-x-6 gap-y-1">
          {ARCHIVE_SOURCES.map((source) => (
            <label key={source} className="flex items-center gap-2">
              <input
                type="radio"
                name="source"
                value={source}
                defaultChecked={source === "ghost"}
                required
              />
              {SOURCE_NAMES[source]}
            </label>
          ))}
        </div>
        {errors?.source ? (
          <p className="mt-1 text-sm font-medium text-danger">{errors.source}</p>
        ) : null}
      </fieldset>
      <div>
        <label htmlFor="archive-file" className="block font-semibold">
          Archive (at most {MAX_ARCHIVE_UPLOAD_LABEL})
        </label>
        <input
          id="archive-file"
          name="file"
          type="file"
          accept=".json,.zip,application/json,application/zip"
          required
          aria-describedby="archive-help"
          onChange={() => setTooLarge(false)}
          className="mt-1 block w-full max-w-md text-sm file:mr-3 file:rounded-brand file:border-2 file:border-brand-strong file:bg-surface file:px-3 file:py-1.5 file:font-semibold file:text-brand-strong"
        />
        {tooLarge ? (
          <p role="alert" className="mt-1 font-medium text-danger">
            The file is larger than {MAX_ARCHIVE_UPLOAD_LABEL}. Split the archive into smaller
            files.
          </p>
        ) : null}
      </div>
      <div>
        <label htmlFor="archive-site" className="block font-semibold">
          The Ghost site's address <span className="font-normal">(optional)</span>
        </label>
        <input
          id="archive-site"
          name="siteUrl"
          type="url"
          placeholder="https://blog.example.com"
          aria-describedby="archive-site-help"
          className={`${fieldClass} max-w-md`}
        />
        <p id="archive-site-help" className="mt-1 text-sm">
          Ghost's export names its own images by path only; with the address they are copied too.
        </p>
        {errors?.siteUrl ? (
          <p className="mt-1 text-sm font-medium text-danger">{errors.siteUrl}</p>
        ) : null}
      </div>
      <div id="archive-help" className="space-y-1 text-sm">
        <p>
          <strong>Ghost:</strong> the JSON file from Settings → Advanced → Import/Export → Export
          content. <strong>Substack:</strong> the zip from Settings → Exports.
        </p>
        <p>
          Posts become newsletters with their title, subtitle or excerpt, tags, author, date and
          address; pages, threads and posts this site already has are skipped and listed. Images are
          copied to this site. Members-only and paid posts come in as drafts. Nobody gets an email.
          Links to the old addresses (<code>/my-post/</code>, <code>/p/my-post</code>) lead to the
          newsletter here.
        </p>
      </div>
      <button
        type="submit"
        aria-disabled={importing || undefined}
        className="rounded-brand bg-brand-strong px-4 py-2 font-semibold text-on-brand-strong"
      >
        {importing ? "Uploading…" : "Import archive"}
      </button>
    </Form>
  );
}
