/** The parts of the subscribers page (app/routes/admin/subscribers.tsx): growth, search, bulk actions. */
import { Form } from "react-router";
import type { SubscriberView } from "../../../server/subscribers/subscribers";
import { formatDate, plural } from "../../../shared/format";
import { SUBSCRIBER_STATUS_OPTIONS } from "../../../shared/schemas/subscribers";
import { Link } from "../../lib/page-scripts";
import type { Column } from "../ui/data-table";
import { compactOutlineClass, FilterSearch, FilterSelect, plainFieldClass } from "../ui/form";
import { GrowthChart } from "./growth-chart";
import { STATUS_LOOK } from "./subscriber-import";

/** What the subscribers page's action answers to a bulk action (app/routes/admin/subscribers.server.ts). */
export type BulkAnswer =
  | { kind: "bulk-done"; message: string }
  | { kind: "bulk-error"; message: string }
  | {
      kind: "bulk-confirm";
      message: string;
      fields: [string, string][];
    };

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
export function BulkActions({
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
        className={plainFieldClass}
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
        className={plainFieldClass}
        options={BULK_ACTIONS.map(([value, label]) => ({ value, label }))}
      />
      <FilterSelect
        name="toList"
        label="List (to add to or remove from)"
        defaultValue={targets[0]?.key ?? ""}
        className={plainFieldClass}
        options={targets.map((list) => ({ value: list.key, label: list.name }))}
      />
      <button type="submit" className={compactOutlineClass}>
        Apply
      </button>
    </Form>
  );
}

export function BulkAnswerView({ answer }: { answer: BulkAnswer }) {
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
          <Link to="." className={compactOutlineClass}>
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

/** The subscriber list's columns; `listName` names a list by its key. */
export function subscriberColumns(listName: (key: string) => string): Column<SubscriberView>[] {
  return [
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
}

/** The growth chart, with its period and list (the page's search rides along). */
export function GrowthFilter({
  filterParams,
  period,
  list,
  lists,
  days,
}: {
  filterParams: URLSearchParams;
  period: number;
  list: string | null;
  lists: { key: string; name: string }[];
  days: Parameters<typeof GrowthChart>[0]["days"];
}) {
  return (
    <>
      <Form method="get" className="mt-3 flex flex-wrap items-end gap-3">
        {[...filterParams].map(([name, value]) => (
          <input key={name} type="hidden" name={name} value={value} />
        ))}
        <FilterSelect
          name="growth"
          label="Period"
          defaultValue={String(period)}
          className={plainFieldClass}
          options={GROWTH_CHOICES}
        />
        <FilterSelect
          name="growthList"
          label="List"
          defaultValue={list ?? ""}
          className={plainFieldClass}
          options={[
            { value: "", label: "All subscribers" },
            ...lists.map((list) => ({ value: list.key, label: list.name })),
          ]}
        />
        <button type="submit" className={compactOutlineClass}>
          Show
        </button>
      </Form>
      <GrowthChart
        days={days}
        caption={`Last ${period} days, ${list ? (lists.find((each) => each.key === list)?.name ?? list) : "all subscribers"}`}
      />
    </>
  );
}

/** The search over the tenant's subscribers: email or name, status, list. */
export function SubscriberSearch({
  searchParams,
  lists,
  filtered,
}: {
  searchParams: URLSearchParams;
  lists: { key: string; name: string }[];
  filtered: boolean;
}) {
  return (
    <Form
      method="get"
      role="search"
      aria-label="Find subscribers"
      className="mt-3 grid gap-3 sm:grid-cols-[2fr_1fr_1fr_auto] sm:items-end"
    >
      <FilterSearch
        label="Email or name contains"
        defaultValue={searchParams.get("q") ?? ""}
        maxLength={200}
      />
      <FilterSelect
        name="status"
        label="Status"
        defaultValue={searchParams.get("status") ?? "all"}
        className={plainFieldClass}
        options={[{ value: "all", label: "All" }, ...SUBSCRIBER_STATUS_OPTIONS]}
      />
      <FilterSelect
        name="list"
        label="List"
        defaultValue={searchParams.get("list") ?? ""}
        className={plainFieldClass}
        options={[
          { value: "", label: "All lists" },
          ...lists.map((list) => ({ value: list.key, label: list.name })),
        ]}
      />
      <div className="flex gap-2">
        <button type="submit" className={compactOutlineClass}>
          Search
        </button>
        {filtered ? (
          <Link to="/admin/subscribers" className="px-2 py-2 font-medium">
            Clear
          </Link>
        ) : null}
      </div>
    </Form>
  );
}
