import { ArchiveImportForm, ArchiveImportList } from "../../components/admin/newsletter-import";
import { AdminPage, AdminSection, BackLink } from "../../components/admin-header";
import { FormAlert } from "../../components/ui/form";
import { noindexMeta } from "../../lib/meta";
import type { Route } from "./+types/newsletter-imports";

export { action, loader } from "./newsletter-imports.server";

export const meta: Route.MetaFunction = () => noindexMeta("Import newsletters");

/** /admin/newsletter/import: a Ghost or Substack archive in (written in the background), and the latest imports. */
export default function NewsletterImports({ loaderData, actionData }: Route.ComponentProps) {
  return (
    <AdminPage title="Import newsletters" className="space-y-8">
      <BackLink to="/admin/dashboard">Newsletters</BackLink>
      <AdminSection id="upload-heading" title="From Ghost or Substack">
        <FormAlert errors={actionData?.message ? [actionData.message] : []} />
        <ArchiveImportForm errors={actionData?.errors} />
      </AdminSection>
      <AdminSection id="latest-heading" title="Latest imports">
        <ArchiveImportList imports={loaderData.imports} />
      </AdminSection>
    </AdminPage>
  );
}
