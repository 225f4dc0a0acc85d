import { ImportJobPage } from "../../components/admin/import-job";
import { ImportReportView } from "../../components/admin/subscriber-import";
import { noindexMeta } from "../../lib/meta";
import type { Route } from "./+types/subscriber-import";

export { loader } from "./subscriber-import.server";

export const meta: Route.MetaFunction = ({ loaderData }) =>
  noindexMeta(loaderData ? `Import of ${loaderData.job.fileName}` : "Import");

/** /admin/subscribers/imports/:id: the progress bar while the file is written, then the report. */
export default function SubscriberImport({ loaderData }: Route.ComponentProps) {
  const { job } = loaderData;
  return (
    <ImportJobPage
      job={job}
      progress={{ id: "import-progress", done: job.doneRows, total: job.totalRows, unit: "row" }}
      back="/admin/subscribers/imports"
    >
      <ImportReportView job={job} />
    </ImportJobPage>
  );
}
