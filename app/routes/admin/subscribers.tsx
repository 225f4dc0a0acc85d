import { Form, Link, useSearchParams } from "react-router";
import type { SubscriberView } from "../../../server/subscribers/subscribers";
import { formatDate, plural } from "../../../shared/format";
import { SUBSCRIBER_STATUSES } from "../../../shared/schemas/subscribers";
import {
  fieldClass,
  ImportForm,
  ImportReportView,
  outlineButton,
  STATUS_LOOK,
} from "../../components/admin/subscriber-import";
import { SubscriberCounts, UnsubscribeFeedback } from "../../components/admin/subscriber-report";
import { AdminPage, AdminSection } from "../../components/admin-header";
import { Pagination } from "../../components/pagination";
import { type Column, DataTable } from "../../components/ui/data-table";
import { FilterSelect } from "../../components/ui/form";
import { noindexMeta } from "../../lib/meta";
import type { Route } from "./+types/subscribers";

export { action, loader } from "./subscribers.server";

export const meta: Route.MetaFunction = () => noindexMeta("Subscribers");

/** /admin/subscribers: the tenant's audience — counts, search, CSV import and export, feedback. */

export default function Subscribers({ loaderData, actionData }: Route.ComponentProps) {
  const { lists, statuses, subscribers, feedback } = loaderData;
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

  const columns: Column<SubscriberView>[] = [
    { header: "Email", className: "break-all font-medium", cell: (each) => each.email },
    { header: "Name", className: "break-words", cell: (each) => each.name || "—" },
    {
      header: "Status",
      cell: (each) => (
        <span
          className={`inline-block self-start rounded-brand px-2 py-0.5 text-xs font-semibold ${STATUS_LOOK[each.status] ?? ""}`}
        >
          {each.status}
        </span>
      ),
    },
    {
      header: "Lists",
      cell: (each) => (each.lists.length ? each.lists.map(listName).join(", ") : "—"),
    },
    {
      header: "Subscribed",
      className: "sm:whitespace-nowrap",
      cell: (each) =>
        each.subscribedAt ? (
          <time dateTime={each.subscribedAt}>{formatDate(each.subscribedAt)}</time>
        ) : (
          "—"
        ),
    },
  ];
  return (
    <AdminPage
      title="Subscribers"
      actions={
        <a
          href={`/admin/subscribers/export.csv${filterParams.size ? `?${filterParams}` : ""}`}
          download
          className={outlineButton}
        >
          Export CSV
        </a>
      }
      className="space-y-10"
    >
      <SubscriberCounts statuses={statuses} lists={lists} />

      <AdminSection id="search-heading" title="Find subscribers">
        <Form
          method="get"
          role="search"
          aria-label="Find subscribers"
          className="mt-3 grid gap-3 sm:grid-cols-[2fr_1fr_1fr_auto] sm:items-end"
        >
          <div>
            <label htmlFor="filter-q" className="block text-sm font-semibold">
              Email or name contains
            </label>
            <input
              id="filter-q"
              name="q"
              type="search"
              maxLength={200}
              defaultValue={searchParams.get("q") ?? ""}
              className={fieldClass}
            />
          </div>
          <FilterSelect
            name="status"
            label="Status"
            defaultValue={searchParams.get("status") ?? "all"}
            className={fieldClass}
            options={[
              { value: "all", label: "All" },
              ...SUBSCRIBER_STATUSES.map((status) => ({
                value: status,
                label: status[0].toUpperCase() + status.slice(1),
              })),
            ]}
          />
          <FilterSelect
            name="list"
            label="List"
            defaultValue={searchParams.get("list") ?? ""}
            className={fieldClass}
            options={[
              { value: "", label: "All lists" },
              ...lists.map((list) => ({ value: list.key, label: list.name })),
            ]}
          />
          <div className="flex gap-2">
            <button type="submit" className={outlineButton}>
              Search
            </button>
            {filtered ? (
              <Link to="/admin/subscribers" className="px-2 py-2 font-medium">
                Clear
              </Link>
            ) : null}
          </div>
        </Form>

        <p className="mt-6 text-sm" aria-live="polite">
          {subscribers.total === 0
            ? filtered
              ? "No subscribers match this search."
              : "No subscribers yet. People who sign up, or whom you import, appear here."
            : `${plural(subscribers.total, "subscriber")}${filtered ? " match" : ""} · page ${subscribers.page} of ${subscribers.pageCount}`}
        </p>
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
        {actionData ? <ImportReportView answer={actionData} /> : null}
        <ImportForm />
      </section>

      <UnsubscribeFeedback feedback={feedback} />
    </AdminPage>
  );
}
