/**
 * Newsletters from Ghost and Substack (app/routes/admin/newsletter-imports.tsx and
 * newsletter-import.tsx): the upload form, a job's progress bar and its report, the latest jobs.
 */
import { Form } from "react-router";
import type { ArchiveImportJob, ImportWarning } from "../../../server/newsletters/archive-imports";
import type { SkippedItem } from "../../../server/newsletters/archive-posts";
import { formatCount, plural } from "../../../shared/format";
import {
  ARCHIVE_SOURCES,
  MAX_ARCHIVE_UPLOAD_BYTES,
  MAX_ARCHIVE_UPLOAD_LABEL,
} from "../../../shared/schemas/archive-import";
import { type Column, DataTable } from "../ui/data-table";
import { ChoiceGroup, plainFieldClass } from "../ui/form";
import {
  ImportJobList,
  ImportReportFrame,
  LeftOutItems,
  UploadButton,
  UploadFileField,
  useUploadLimit,
} from "./import-job";

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

/** What an import did (so far): imported, skipped with reasons, notes and image warnings. */
export function ArchiveImportReport({ job }: { job: ArchiveImportJob }) {
  const numbered = <T,>(rows: T[]) => rows.map((row, n) => ({ ...row, n }));
  return (
    <ImportReportFrame
      id="archive-report"
      status={job.status}
      heading={
        job.status === "done"
          ? `Imported ${plural(job.imported, "newsletter")}; skipped ${plural(job.skippedCount, "post")}`
          : job.status === "failed"
            ? `Import stopped after ${plural(job.imported, "newsletter")}`
            : `Importing: ${plural(job.imported, "newsletter")} so far`
      }
      error={job.status === "failed" ? job.error : null}
    >
      <p className="mt-1 text-sm">
        From {SOURCE_NAMES[job.source]}, <span className="break-all font-mono">{job.fileName}</span>
        . Published posts are published here with their date; drafts stay drafts. No email was sent.
      </p>
      <LeftOutItems
        caption="Skipped posts"
        count={job.skippedCount}
        items={numbered(job.skipped)}
        columns={SKIPPED_COLUMNS}
        rowKey={(row) => row.n}
      />
      {job.warnings.length > 0 ? (
        <DataTable
          className="mt-4"
          caption="Imported with notes (images not copied, parts left out, changes)"
          columns={WARNING_COLUMNS}
          rows={numbered(job.warnings)}
          rowKey={(row) => row.n}
        />
      ) : null}
    </ImportReportFrame>
  );
}

export function ArchiveImportList({ imports }: { imports: ArchiveImportJob[] }) {
  return (
    <ImportJobList
      imports={imports}
      href={(job) => `/admin/newsletter/import/${job.id}`}
      from={{ header: "From", cell: (job) => SOURCE_NAMES[job.source] }}
      counts={{
        header: "Posts",
        cell: (job) =>
          `${formatCount(job.imported)} imported, ${formatCount(job.skippedCount)} skipped`,
      }}
    />
  );
}

export function ArchiveImportForm({ errors }: { errors?: Record<string, string> }) {
  const upload = useUploadLimit(MAX_ARCHIVE_UPLOAD_BYTES);
  return (
    <Form
      method="post"
      action="/admin/newsletter/import"
      encType="multipart/form-data"
      className="mt-3 max-w-3xl space-y-4"
      onSubmit={upload.onSubmit}
    >
      <ChoiceGroup
        type="radio"
        legend="Where the archive comes from"
        name="source"
        options={ARCHIVE_SOURCES.map((source) => ({ value: source, label: SOURCE_NAMES[source] }))}
        chosen="ghost"
        required
        checked
        errors={errors?.source ? [errors.source] : undefined}
        className="mt-1 flex flex-wrap gap-x-6 gap-y-1"
      />
      <UploadFileField
        id="archive-file"
        label={`Archive (at most ${MAX_ARCHIVE_UPLOAD_LABEL})`}
        accept=".json,.zip,application/json,application/zip"
        describedBy="archive-help"
        upload={upload}
        tooLarge={`The file is larger than ${MAX_ARCHIVE_UPLOAD_LABEL}. Split the archive into smaller files.`}
      />
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
          className={`${plainFieldClass} max-w-md`}
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
      <UploadButton upload={upload}>Import archive</UploadButton>
    </Form>
  );
}
