import {
  ImportForm,
  ImportList,
  MoveFromMailerLiteForm,
} from "../../components/admin/subscriber-import";
import { AdminPage, AdminSection, BackLink } from "../../components/admin-header";
import { FormAlert } from "../../components/ui/form";
import { noindexMeta } from "../../lib/meta";
import type { Route } from "./+types/subscriber-imports";

export { action, loader } from "./subscriber-imports.server";

export const meta: Route.MetaFunction = () => noindexMeta("Imports");

/**
 * /admin/subscribers/imports: upload a file (written in the background) — Herald's CSV, Ghost's
 * members, Substack's email list — or move a MailerLite tenant's audience; the latest imports.
 */
export default function SubscriberImports({ loaderData, actionData }: Route.ComponentProps) {
  return (
    <AdminPage title="Imports" className="space-y-8">
      <BackLink to="/admin/subscribers">Subscribers</BackLink>
      <FormAlert errors={actionData?.message ? [actionData.message] : []} />
      <AdminSection id="upload-heading" title="Import CSV">
        <ImportForm />
      </AdminSection>
      {loaderData.canMoveFromMailerLite ? (
        <AdminSection id="mailerlite-heading" title="Move from MailerLite">
          <MoveFromMailerLiteForm />
        </AdminSection>
      ) : null}
      <AdminSection id="latest-heading" title="Latest imports">
        <ImportList imports={loaderData.imports} />
      </AdminSection>
    </AdminPage>
  );
}
