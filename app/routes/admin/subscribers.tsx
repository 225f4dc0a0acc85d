import { useSearchParams } from "react-router";
import { plural } from "../../../shared/format";
import { ImportForm } from "../../components/admin/subscriber-import";
import {
  BulkActions,
  BulkAnswerView,
  GrowthFilter,
  SubscriberSearch,
  subscriberColumns,
} from "../../components/admin/subscriber-list";
import { SubscriberCounts, UnsubscribeFeedback } from "../../components/admin/subscriber-report";
import { AdminPage, AdminSection } from "../../components/admin-header";
import { Pagination } from "../../components/pagination";
import { DataTable } from "../../components/ui/data-table";
import { compactOutlineClass } from "../../components/ui/form";
import { noindexMeta } from "../../lib/meta";
import { Link } from "../../lib/page-scripts";
import type { Route } from "./+types/subscribers";

export { action, loader } from "./subscribers.server";

export const meta: Route.MetaFunction = () => noindexMeta("Subscribers");

/** /admin/subscribers: the tenant's audience — counts, search, CSV import and export, feedback. */

export default function Subscribers({ loaderData, actionData }: Route.ComponentProps) {
  const { lists, statuses, subscribers, feedback, targets } = loaderData;
  const growthPeriod = loaderData.growth.period;
  const growthList = loaderData.growth.list;
  const bulkAnswer = actionData ?? null;
  const [searchParams] = useSearchParams();
  const filterParams = new URLSearchParams();
  for (const name of ["q", "status", "list"]) {
    const value = searchParams.get(name);
    if (value) filterParams.set(name, value);
  }
  const status = filterParams.get("status");
  const filtered =
    filterParams.has("q") || filterParams.has("list") || (status !== null && status !== "all");
  const pageHref = (page: number) => {
    const params = new URLSearchParams(filterParams);
    if (page > 1) params.set("page", String(page));
    return `/admin/subscribers${params.size ? `?${params}` : ""}`;
  };
  const listName = (key: string) => lists.find((list) => list.key === key)?.name ?? key;

  const columns = subscriberColumns(listName);
  return (
    <AdminPage
      title="Subscribers"
      actions={
        <>
          <Link to="/admin/subscribers/new" className={compactOutlineClass}>
            Add subscriber
          </Link>
          <Link to="/admin/subscribers/fields" className={compactOutlineClass}>
            Custom fields
          </Link>
          <a
            href={`/admin/subscribers/export.csv${filterParams.size ? `?${filterParams}` : ""}`}
            download
            className={compactOutlineClass}
          >
            Export CSV
          </a>
        </>
      }
      className="space-y-10"
    >
      <SubscriberCounts statuses={statuses} lists={lists} />

      <AdminSection id="growth-heading" title="Growth">
        <GrowthFilter
          filterParams={filterParams}
          period={growthPeriod}
          list={growthList}
          lists={lists}
          days={loaderData.growth.days}
        />
      </AdminSection>

      <AdminSection id="search-heading" title="Find subscribers">
        <SubscriberSearch searchParams={searchParams} lists={lists} filtered={filtered} />

        <p className="mt-6 text-sm" aria-live="polite">
          {subscribers.total === 0
            ? filtered
              ? "No subscribers match this search."
              : "No subscribers yet. People who sign up, or whom you import, appear here."
            : subscribers.capped
              ? `More than ${plural(subscribers.total, "subscriber")} match · page ${subscribers.page} of ${subscribers.pageCount}+`
              : `${plural(subscribers.total, "subscriber")}${filtered ? " match" : ""} · page ${subscribers.page} of ${subscribers.pageCount}`}
        </p>
        {loaderData.notice && !actionData ? (
          <p role="status" className="mt-4 rounded-brand border-2 border-ok p-3 font-medium">
            {loaderData.notice}
          </p>
        ) : null}
        {bulkAnswer ? <BulkAnswerView answer={bulkAnswer} /> : null}
        {subscribers.items.length > 0 ? (
          <BulkActions
            total={subscribers.total}
            capped={subscribers.capped}
            filtered={filtered}
            filterParams={filterParams}
            targets={targets}
          />
        ) : null}
        {subscribers.items.length > 0 ? (
          <DataTable
            className="mt-2"
            columns={columns}
            rows={subscribers.items}
            rowKey={(subscriber) => subscriber.id}
          />
        ) : null}
        <Pagination page={subscribers.page} pageCount={subscribers.pageCount} href={pageHref} />
      </AdminSection>

      <section
        id="import"
        aria-labelledby="import-heading"
        className="scroll-mt-4 space-y-4 rounded-brand border border-black/10 p-5"
      >
        <h2 id="import-heading" className="text-xl font-bold">
          Import CSV
        </h2>
        <ImportForm />
        <p className="text-sm">
          <Link to="/admin/subscribers/imports">Latest imports and their reports</Link>
        </p>
      </section>

      <UnsubscribeFeedback feedback={feedback} />
    </AdminPage>
  );
}
