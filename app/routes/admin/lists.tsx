import { Form, useNavigation } from "react-router";
import type { ListOverview } from "../../../server/subscribers/lists";
import { formatCount } from "../../../shared/format";
import { ListFields } from "../../components/admin/list-fields";
import { AdminPage, AdminSection } from "../../components/admin-header";
import { type Column, DataTable } from "../../components/ui/data-table";
import { FormAlert, FormNotice, SubmitButton } from "../../components/ui/form";
import { noindexMeta } from "../../lib/meta";
import { Link } from "../../lib/page-scripts";
import type { Route } from "./+types/lists";

export { action, loader } from "./lists.server";

export const meta: Route.MetaFunction = () => noindexMeta("Lists");

const COLUMNS: Column<ListOverview>[] = [
  {
    header: "List",
    className: "break-words font-medium",
    cell: (list) => (
      <>
        <Link to={`/admin/lists/${list.id}`}>{list.name}</Link>
        {list.isDefault ? <span className="ml-2 text-xs font-normal">(default)</span> : null}
      </>
    ),
  },
  { header: "Key", className: "break-all font-mono text-xs", cell: (list) => list.key },
  {
    header: "Who sees it",
    cell: (list) =>
      list.archived ? "Archived" : list.visibility === "public" ? "Public" : "Private",
  },
  { header: "Active", align: "right", cell: (list) => formatCount(list.active) },
  { header: "On the list", align: "right", cell: (list) => formatCount(list.members) },
];

export default function Lists({ loaderData, actionData }: Route.ComponentProps) {
  const busy = useNavigation().state === "submitting";
  const values = actionData?.values ?? {};
  return (
    <AdminPage title="Lists" width="wide" className="space-y-8">
      <p>
        Public lists are offered on sign-up and in the preference centre; private lists are for
        staff only. Archived lists keep their subscribers but are offered nowhere.
      </p>
      <p>
        <Link to="/admin/embed">Sign-up forms for your other websites</Link>
      </p>
      <FormNotice message={!actionData && loaderData.notice} />
      <DataTable
        caption="The tenant's lists"
        columns={COLUMNS}
        rows={loaderData.lists}
        rowKey={(list) => list.id}
      />
      <AdminSection id="new-list-heading" title="New list">
        <FormAlert errors={actionData?.form ?? []} />
        <Form method="post" className="mt-3 space-y-5" noValidate>
          <ListFields
            values={{
              name: values.name ?? "",
              description: values.description ?? "",
              visibility: values.visibility ?? "public",
            }}
            errors={actionData?.fields ?? {}}
          />
          <SubmitButton disabled={busy}>Create list</SubmitButton>
        </Form>
      </AdminSection>
    </AdminPage>
  );
}
