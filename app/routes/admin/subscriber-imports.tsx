import { ImportForm, ImportList } from "../../components/admin/subscriber-import";
import { AdminPage, AdminSection, BackLink } from "../../components/admin-header";
import { FormAlert } from "../../components/ui/form";
import { noindexMeta } from "../../lib/meta";
import type { Route } from "./+types/subscriber-imports";

export { action, loader } from "./subscriber-imports.server";

export const meta: Route.MetaFunction = () => noindexMeta("Imports");

/** /admin/subscribers/imports: upload a CSV (written in the background), and the latest imports. */
export default function SubscriberImports({ loaderData, actionData }: Route.ComponentProps) {
  return (
    <AdminPage title="Imports" className="space-y-8">
      <BackLink to="/admin/subscribers">Subscribers</BackLink>
      <AdminSection id="upload-heading" title="Import CSV">
        <FormAlert errors={actionData?.message ? [actionData.message] : []} />
        <ImportForm />
      </AdminSection>
      <AdminSection id="latest-heading" title="Latest imports">
        <ImportList imports={loaderData.imports} />
      </AdminSection>
    </AdminPage>
  );
}
