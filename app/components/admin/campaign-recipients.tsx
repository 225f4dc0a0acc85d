/** The campaign report's recipients: who did what, filtered, paged, exported (issue 35, target 4). */
import { Form } from "react-router";
import type { RecipientActivity } from "../../../server/campaigns/recipient-activity";
import { formatCount, plural } from "../../../shared/format";
import { abSubjectLabel } from "../../../shared/schemas/campaign";
import {
  ACTIVITY_FILTER_LABELS,
  ACTIVITY_FILTERS,
  type ActivityFilter,
  type ActivityQuery,
} from "../../../shared/schemas/campaign-activity";
import { Link } from "../../lib/page-scripts";
import { StaffTime } from "../../lib/time-zone";
import { type Column, DataTable } from "../ui/data-table";
import { compactOutlineClass, FilterSearch } from "../ui/form";

export interface RecipientsView {
  query: ActivityQuery;
  counts: Record<ActivityFilter, number>;
  rows: RecipientActivity[];
  next: number | null;
  previous: number | null;
}

const DELIVERY_STATES: Record<RecipientActivity["status"], string> = {
  pending: "Waiting",
  sending: "Sending",
  sent: "Delivered",
  failed: "Failed",
  cancelled: "Not sent (cancelled)",
};

function delivery(row: RecipientActivity) {
  if (row.complainedAt) return "Complaint (marked as spam)";
  if (row.bouncedAt) return "Bounced";
  return DELIVERY_STATES[row.status];
}

const COLUMNS: Column<RecipientActivity>[] = [
  {
    header: "Recipient",
    className: "break-all font-medium sm:break-normal",
    cell: (row) => row.email || "(erased)",
  },
  { header: "Delivery", cell: delivery },
  {
    header: "Opened",
    className: "sm:whitespace-nowrap",
    cell: (row) =>
      row.firstOpenedAt ? (
        <>
          <StaffTime iso={row.firstOpenedAt} />
          {row.opens > 1 ? ` (${row.opens} times)` : ""}
        </>
      ) : (
        "No"
      ),
  },
  {
    header: "Clicked",
    className: "break-all sm:max-w-[20rem]",
    cell: (row) =>
      row.links.length ? (
        <ul>
          {row.links.map((url) => (
            <li key={url}>{url}</li>
          ))}
        </ul>
      ) : (
        "No"
      ),
  },
  {
    header: "Unsubscribed",
    label: "Opted out",
    className: "sm:whitespace-nowrap",
    cell: (row) => (row.unsubscribedAt ? <StaffTime iso={row.unsubscribedAt} /> : "No"),
  },
];

/** Which A/B subject each got, after "Delivery", when the campaign tested subjects (issue 35). */
const WITH_AB_SUBJECT: Column<RecipientActivity>[] = [
  ...COLUMNS.slice(0, 2),
  { header: "Subject", className: "sm:whitespace-nowrap", cell: abSubjectLabel },
  ...COLUMNS.slice(2),
];

/** A link to this page with the query changed (the page's own filter, search and key). */
function hrefWith(query: ActivityQuery, change: Partial<ActivityQuery>) {
  const next = { ...query, after: undefined, before: undefined, ...change };
  const params = new URLSearchParams();
  if (next.filter !== "all") params.set("filter", next.filter);
  if (next.q) params.set("q", next.q);
  if (next.after !== undefined) params.set("after", String(next.after));
  if (next.before !== undefined) params.set("before", String(next.before));
  const search = params.toString();
  return search ? `?${search}#recipients-heading` : "?#recipients-heading";
}

export function CampaignRecipients({
  campaignId,
  view,
}: {
  campaignId: string;
  view: RecipientsView;
}) {
  const { query, counts } = view;
  if (counts.all === 0)
    return <p className="mt-2 text-sm">Nobody has been sent this campaign yet.</p>;
  const exportParams = new URLSearchParams();
  if (query.filter !== "all") exportParams.set("filter", query.filter);
  if (query.q) exportParams.set("q", query.q);
  const exportHref = `/admin/campaigns/${campaignId}/recipients.csv${exportParams.size ? `?${exportParams}` : ""}`;
  return (
    <>
      <nav aria-label="Show recipients who" className="mt-3 flex flex-wrap gap-2 text-sm">
        {ACTIVITY_FILTERS.map((filter) => (
          <Link
            key={filter}
            to={hrefWith(query, { filter })}
            aria-current={filter === query.filter ? "page" : undefined}
            className={`rounded-brand border-2 px-3 py-1 font-semibold no-underline ${filter === query.filter ? "border-brand-strong bg-brand-strong text-white" : "border-black/20 text-ink"}`}
          >
            {ACTIVITY_FILTER_LABELS[filter]} ({formatCount(counts[filter])})
          </Link>
        ))}
      </nav>
      <Form
        method="get"
        role="search"
        aria-label="Find a recipient"
        className="mt-3 flex flex-wrap items-end gap-3"
      >
        {query.filter !== "all" ? <input type="hidden" name="filter" value={query.filter} /> : null}
        <FilterSearch
          id="recipients-q"
          label="Email contains"
          defaultValue={query.q}
          maxLength={200}
          className="min-w-0 grow sm:max-w-sm"
        />
        <button type="submit" className={compactOutlineClass}>
          Search
        </button>
        <a href={exportHref} className={compactOutlineClass} download>
          Export CSV
        </a>
      </Form>
      {view.rows.length === 0 ? (
        <p className="mt-3 text-sm">No recipients match.</p>
      ) : (
        <DataTable
          className="mt-3"
          caption={
            query.q
              ? `${ACTIVITY_FILTER_LABELS[query.filter]}, addresses containing “${query.q}”`
              : `${ACTIVITY_FILTER_LABELS[query.filter]}: ${plural(counts[query.filter], "recipient")}`
          }
          columns={view.rows.some((row) => row.abVariant !== null) ? WITH_AB_SUBJECT : COLUMNS}
          rows={view.rows}
          rowKey={(row) => row.deliveryId}
        />
      )}
      {view.previous !== null || view.next !== null ? (
        <nav
          aria-label="Pages of recipients"
          className="mt-3 flex justify-between text-sm font-semibold"
        >
          {view.previous !== null ? (
            <Link to={hrefWith(query, { before: view.previous })} rel="prev">
              ← Previous
            </Link>
          ) : (
            <span />
          )}
          {view.next !== null ? (
            <Link to={hrefWith(query, { after: view.next })} rel="next">
              Next →
            </Link>
          ) : (
            <span />
          )}
        </nav>
      ) : null}
    </>
  );
}

/**
 * "Send to those who did not open": a button that makes the draft (or the link to the one made),
 * offered once a campaign with tracked opens has finished.
 */
export function ResendUnopened({
  campaign,
  unopened,
  resend,
}: {
  campaign: { status: string; trackOpens: boolean };
  unopened: number;
  resend: { id: string; status: string } | null;
}) {
  if (resend) {
    return (
      <p className="mt-3 text-sm">
        <Link to={`/admin/campaigns/${resend.id}`}>
          The campaign to those who did not open ({resend.status})
        </Link>
      </p>
    );
  }
  if (campaign.status !== "sent" || !campaign.trackOpens || unopened === 0) return null;
  return (
    <Form method="post" className="mt-3 flex flex-wrap items-center gap-3">
      <input type="hidden" name="action" value="resend-unopened" />
      <button type="submit" className={compactOutlineClass}>
        Send to those who did not open
      </button>
      <span className="text-sm">
        Makes a draft to the {plural(unopened, "recipient")} who did not open it (fewer if some
        open, leave or bounce before it goes); you review it before it is sent.
      </span>
    </Form>
  );
}
