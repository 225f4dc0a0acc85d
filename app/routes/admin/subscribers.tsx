import { Form, useSearchParams } from "react-router";
import type { SubscriberView } from "../../../server/subscribers/subscribers";
import { formatDate, plural } from "../../../shared/format";
import { SUBSCRIBER_STATUSES } from "../../../shared/schemas/subscribers";
import { GrowthChart } from "../../components/admin/growth-chart";
import {
  fieldClass,
  ImportForm,
  outlineButton,
  STATUS_LOOK,
} from "../../components/admin/subscriber-import";
import { SubscriberCounts, UnsubscribeFeedback } from "../../components/admin/subscriber-report";
import { AdminPage, AdminSection } from "../../components/admin-header";
import { Pagination } from "../../components/pagination";
import { type Column, DataTable } from "../../components/ui/data-table";
import { FilterSelect } from "../../components/ui/form";
import { noindexMeta } from "../../lib/meta";
import { Link } from "../../lib/page-scripts";
import type { Route } from "./+types/subscribers";

export { action, loader } from "./subscribers.server";

export const meta: Route.MetaFunction = () => noindexMeta("Subscribers");

const GROWTH_CHOICES = [7, 30, 90, 365].map((days) => ({
  value: String(days),
  label: `Last ${days} days`,
}));

const BULK_ACTIONS = [
  ["add", "Add to list"],
  ["remove", "Remove from list"],
  ["unsubscribe", "Unsubscribe"],
  ["erase", "Erase (delete their data)"],
  ["export", "Export CSV"],
] as const;

/**
 * Bulk actions on the ticked rows or on everyone the search matches (issue 16, point 2). A plain
 * form post (reloadDocument), so an export downloads and everything works without JavaScript.
 */
function BulkActions({
  total,
  capped,
  filtered,
  filterParams,
  targets,
}: {
  total: number;
  capped: boolean;
  filtered: boolean;
  filterParams: URLSearchParams;
  targets: { key: string; name: string }[];
}) {
  return (
    <Form
      method="post"
      id="bulk-form"
      reloadDocument
      aria-label="Bulk actions"
      className="mt-4 flex flex-wrap items-end gap-3 rounded-brand border border-black/10 p-3"
    >
      <input type="hidden" name="intent" value="bulk" />
      {[...filterParams].map(([name, value]) => (
        <input key={name} type="hidden" name={`filter.${name}`} value={value} />
      ))}
      <FilterSelect
        name="scope"
        label="Apply to"
        defaultValue="ticked"
        className={fieldClass}
        options={[
          { value: "ticked", label: "The ticked subscribers" },
          {
            value: "all",
            label: capped
              ? "Everyone matching the search"
              : `All ${plural(total, "subscriber")}${filtered ? " matching the search" : ""}`,
          },
        ]}
      />
      <FilterSelect
        name="bulk"
        label="Action"
        defaultValue="add"
        className={fieldClass}
        options={BULK_ACTIONS.map(([value, label]) => ({ value, label }))}
      />
      <FilterSelect
        name="toList"
        label="List (to add to or remove from)"
        defaultValue={targets[0]?.key ?? ""}
        className={fieldClass}
        options={targets.map((list) => ({ value: list.key, label: list.name }))}
      />
      <button type="submit" className={outlineButton}>
        Apply
      </button>
    </Form>
  );
}

function BulkAnswerView({
  answer,
}: {
  answer:
    | { kind: "bulk-done" | "bulk-error"; message: string }
    | { kind: "bulk-confirm"; message: string; fields: [string, string][] };
}) {
  if (answer.kind === "bulk-confirm") {
    return (
      <section
        aria-labelledby="bulk-confirm-heading"
        className="mt-4 rounded-brand border-2 border-danger p-4"
      >
        <h3 id="bulk-confirm-heading" className="text-lg font-bold">
          {answer.message}
        </h3>
        <div className="mt-3 flex flex-wrap gap-3">
          <Form method="post" reloadDocument>
            {answer.fields.map(([name, value], index) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: repeated names (ids) are the point
              <input key={`${name}-${index}`} type="hidden" name={name} value={value} />
            ))}
            <input type="hidden" name="confirmed" value="yes" />
            <button
              type="submit"
              className="rounded-brand bg-danger px-4 py-2 font-semibold text-white"
            >
              Yes, go ahead
            </button>
          </Form>
          <Link to="." className={outlineButton}>
            Cancel
          </Link>
        </div>
      </section>
    );
  }
  return (
    <p
      role={answer.kind === "bulk-error" ? "alert" : "status"}
      className={`mt-4 rounded-brand border-2 p-3 font-medium ${answer.kind === "bulk-error" ? "border-danger text-danger" : "border-ok"}`}
    >
      {answer.message}
    </p>
  );
}

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

  const columns: Column<SubscriberView>[] = [
    {
      header: "Select",
      cell: (each) => (
        <input
          type="checkbox"
          name="ids"
          value={each.id}
          form="bulk-form"
          aria-label={`Select ${each.email}`}
          className="size-4 accent-brand-strong"
        />
      ),
    },
    {
      header: "Email",
      className: "break-all font-medium",
      cell: (each) => <Link to={`/admin/subscribers/${each.id}`}>{each.email}</Link>,
    },
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
        <>
          <Link to="/admin/subscribers/new" className={outlineButton}>
            Add subscriber
          </Link>
          <Link to="/admin/subscribers/fields" className={outlineButton}>
            Custom fields
          </Link>
          <a
            href={`/admin/subscribers/export.csv${filterParams.size ? `?${filterParams}` : ""}`}
            download
            className={outlineButton}
          >
            Export CSV
          </a>
        </>
      }
      className="space-y-10"
    >
      <SubscriberCounts statuses={statuses} lists={lists} />

      <AdminSection id="growth-heading" title="Growth">
        <Form method="get" className="mt-3 flex flex-wrap items-end gap-3">
          {[...filterParams].map(([name, value]) => (
            <input key={name} type="hidden" name={name} value={value} />
          ))}
          <FilterSelect
            name="growth"
            label="Period"
            defaultValue={String(growthPeriod)}
            className={fieldClass}
            options={GROWTH_CHOICES}
          />
          <FilterSelect
            name="growthList"
            label="List"
            defaultValue={growthList ?? ""}
            className={fieldClass}
            options={[
              { value: "", label: "All subscribers" },
              ...lists.map((list) => ({ value: list.key, label: list.name })),
            ]}
          />
          <button type="submit" className={outlineButton}>
            Show
          </button>
        </Form>
        <GrowthChart
          days={loaderData.growth.days}
          caption={`Last ${growthPeriod} days, ${growthList ? (lists.find((list) => list.key === growthList)?.name ?? growthList) : "all subscribers"}`}
        />
      </AdminSection>

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
