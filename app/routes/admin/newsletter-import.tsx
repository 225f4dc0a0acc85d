import { ArchiveImportProgress } from "../../components/admin/newsletter-import";
import { AdminPage, BackLink } from "../../components/admin-header";
import { noindexMeta } from "../../lib/meta";
import type { Route } from "./+types/newsletter-import";

export { loader } from "./newsletter-import.server";

export const meta: Route.MetaFunction = ({ loaderData }) =>
  noindexMeta(loaderData ? `Import of ${loaderData.job.fileName}` : "Import");

/** /admin/newsletter/import/:id: the progress bar while the posts are written, then the report. */
export default function NewsletterImport({ loaderData }: Route.ComponentProps) {
  const { job } = loaderData;
  return (
    <AdminPage title={`Import of ${job.fileName}`} className="space-y-6">
      <BackLink to="/admin/newsletter/import">Imports</BackLink>
      <ArchiveImportProgress job={job} />
    </AdminPage>
  );
}
