import { ImportProgress } from "../../components/admin/subscriber-import";
import { AdminPage, BackLink } from "../../components/admin-header";
import { noindexMeta } from "../../lib/meta";
import type { Route } from "./+types/subscriber-import";

export { loader } from "./subscriber-import.server";

export const meta: Route.MetaFunction = ({ loaderData }) =>
  noindexMeta(loaderData ? `Import of ${loaderData.job.fileName}` : "Import");

/** /admin/subscribers/imports/:id: the progress bar while the file is written, then the report. */
export default function SubscriberImport({ loaderData }: Route.ComponentProps) {
  const { job } = loaderData;
  return (
    <AdminPage title={`Import of ${job.fileName}`} className="space-y-6">
      <BackLink to="/admin/subscribers/imports">Imports</BackLink>
      <ImportProgress job={job} />
    </AdminPage>
  );
}
