import { ImportJobPage } from "../../components/admin/import-job";
import { ArchiveImportReport } from "../../components/admin/newsletter-import";
import { noindexMeta } from "../../lib/meta";
import type { Route } from "./+types/newsletter-import";

export { loader } from "./newsletter-import.server";

export const meta: Route.MetaFunction = ({ loaderData }) =>
  noindexMeta(loaderData ? `Import of ${loaderData.job.fileName}` : "Import");

/** /admin/newsletter/import/:id: the progress bar while the posts are written, then the report. */
export default function NewsletterImport({ loaderData }: Route.ComponentProps) {
  const { job } = loaderData;
  return (
    <ImportJobPage
      job={job}
      progress={{
        id: "archive-progress",
        done: job.donePosts,
        total: job.totalPosts,
        unit: "post",
      }}
      back="/admin/newsletter/import"
    >
      <ArchiveImportReport job={job} />
    </ImportJobPage>
  );
}
