import { formatCount } from "../../../shared/format";
import { DataTable } from "../ui/data-table";

/** What the page gets of a newsletter's views by source (server/newsletters/view-sources.ts). */
export interface ViewSourcesView {
  total: number;
  sources: { source: string; label: string; views: number }[];
  hosts: { host: string; views: number }[];
}

const share = (views: number, total: number) =>
  total === 0 ? "0%" : `${Math.round((views / total) * 100)}%`;

/**
 * Issue 36, target 3: "Where readers came from", beside the campaign's opens and clicks. Counted
 * from the page's address (utm_source) and the referring site's host only: no cookie, no reader.
 */
export function ViewSourcesSection({ sources }: { sources: ViewSourcesView }) {
  return (
    <section aria-labelledby="sources-heading">
      <h2 id="sources-heading" className="text-xl font-bold">
        Where readers came from
      </h2>
      <p className="mt-2 text-sm">
        Views of the newsletter's page by source, {formatCount(sources.total)} in all. Counted
        without cookies or personal data: from the link's utm_source and the referring site's host.
      </p>
      <DataTable
        className="mt-3"
        caption="Views by source"
        columns={[
          { header: "Source", cell: (row) => row.label },
          { header: "Views", align: "right", cell: (row) => formatCount(row.views) },
          {
            header: "Share",
            align: "right",
            cell: (row) => share(row.views, sources.total),
          },
        ]}
        rows={sources.sources}
        rowKey={(row) => row.source}
      />
      {sources.hosts.length > 0 ? (
        <DataTable
          className="mt-3"
          caption="Other sites"
          columns={[
            { header: "Site", cell: (row) => row.host, className: "break-all" },
            { header: "Views", align: "right", cell: (row) => formatCount(row.views) },
          ]}
          rows={sources.hosts}
          rowKey={(row) => row.host}
        />
      ) : null}
    </section>
  );
}
