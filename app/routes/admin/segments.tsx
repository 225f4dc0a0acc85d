import { formatCount } from "../../../shared/format";
import { AdminPage } from "../../components/admin-header";
import { type Column, DataTable } from "../../components/ui/data-table";
import { FormNotice, outlineLinkClass } from "../../components/ui/form";
import { noindexMeta } from "../../lib/meta";
import { Link } from "../../lib/page-scripts";
import type { Route } from "./+types/segments";

export { loader } from "./segments.server";

export const meta: Route.MetaFunction = () => noindexMeta("Segments");

type Row = Route.ComponentProps["loaderData"]["segments"][number];

const COLUMNS: Column<Row>[] = [
  {
    header: "Segment",
    className: "break-words font-medium",
    cell: (segment) => <Link to={`/admin/segments/${segment.id}`}>{segment.name}</Link>,
  },
  {
    header: "Matching now",
    align: "right",
    cell: (segment) =>
      segment.count ? formatCount(segment.count.matching) : `Invalid rule: ${segment.problem}`,
  },
  {
    header: "Active",
    align: "right",
    cell: (segment) => (segment.count ? formatCount(segment.count.active) : "–"),
  },
];

export default function Segments({ loaderData }: Route.ComponentProps) {
  return (
    <AdminPage
      title="Segments"
      width="wide"
      className="space-y-6"
      actions={
        <Link to="/admin/segments/new" className={outlineLinkClass}>
          New segment
        </Link>
      }
    >
      <p>
        A segment is a saved filter of your audience — lists, status, custom fields, when people
        signed up, what they opened or clicked. A campaign can go to segments as well as lists; only
        active subscribers get it, never unsubscribed, bounced or complained addresses.
      </p>
      <FormNotice message={loaderData.notice} />
      <DataTable
        caption="The tenant's segments"
        columns={COLUMNS}
        rows={loaderData.segments}
        rowKey={(segment) => segment.id}
        empty="No segments yet."
      />
    </AdminPage>
  );
}
