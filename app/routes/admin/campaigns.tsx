import { formatCount } from "../../../shared/format";
import { CAMPAIGN_STATUSES } from "../../../shared/schemas/campaign";
import { AdminPage, AdminSection } from "../../components/admin-header";
import {
  CampaignProgressBar,
  CampaignStatusBadge,
  useLiveWhile,
} from "../../components/campaign-progress";
import { Pagination } from "../../components/pagination";
import { type Column, DataTable } from "../../components/ui/data-table";
import { noindexMeta } from "../../lib/meta";
import { Link, NavLink } from "../../lib/page-scripts";
import { StaffTime, TimeFact } from "../../lib/time-zone";
import type { Route } from "./+types/campaigns";

export { loader } from "./campaigns.server";

export const meta: Route.MetaFunction = () => noindexMeta("Campaigns");

const count = (value: number) => formatCount(value);
/** A list's figures, from the builtin provider or MailerLite's groups. */
interface ListFigures {
  id: string | number;
  name: string;
  active_count: number;
  sent: number;
  opened: number;
  clicked: number;
}
const LIST_COLUMNS: Column<ListFigures>[] = [
  { header: "List", cell: (group) => group.name },
  { header: "Active", align: "right", cell: (group) => count(group.active_count) },
  { header: "Sent", align: "right", cell: (group) => count(group.sent) },
  { header: "Opened", align: "right", cell: (group) => count(group.opened) },
  { header: "Clicked", align: "right", cell: (group) => count(group.clicked) },
];

type ComparisonRow = Route.ComponentProps["loaderData"]["comparison"][number];

const rate = (part: number, whole: number) =>
  whole > 0 ? `${Math.round((part / whole) * 1000) / 10}%` : "—";

const COMPARISON_COLUMNS: Column<ComparisonRow>[] = [
  {
    header: "Campaign",
    className: "break-words font-medium",
    cell: (row) => <Link to={`/admin/campaigns/${row.id}`}>{row.name}</Link>,
  },
  {
    header: "Sent",
    className: "sm:whitespace-nowrap",
    cell: (row) => (row.startedAt ? <StaffTime iso={row.startedAt} /> : "—"),
  },
  { header: "Messages", align: "right", cell: (row) => formatCount(row.sent) },
  { header: "Open rate", align: "right", cell: (row) => rate(row.opened, row.sent) },
  { header: "Click rate", align: "right", cell: (row) => rate(row.clicked, row.sent) },
  { header: "Unsubscribes", align: "right", cell: (row) => row.unsubscribes },
  { header: "Bounces", align: "right", cell: (row) => row.bounces },
];

export default function Campaigns({ loaderData }: Route.ComponentProps) {
  const { campaigns, groups, status, page, pageCount } = loaderData;
  useLiveWhile(campaigns.some((campaign) => campaign.status === "sending"));
  const filter = ({ isActive }: { isActive: boolean }) =>
    `rounded-brand px-3 py-1 text-sm no-underline ${isActive ? "bg-brand-strong text-on-brand-strong" : "border border-black/20 text-ink"}`;
  return (
    <AdminPage title="Campaigns" className="space-y-10">
      <p className="text-sm">
        To send a newsletter by email, publish it, then choose <strong>Send as email</strong> on its
        card in <Link to="/admin/dashboard">Newsletters</Link>.
      </p>
      <p className="text-sm">
        Mail provider:{" "}
        <strong>
          {loaderData.provider === "mailerlite"
            ? "MailerLite (campaigns are sent and counted by MailerLite)"
            : "Herald's built-in sending engine"}
        </strong>
      </p>
      {loaderData.providerError ? (
        <p
          role="alert"
          className="rounded-brand border border-danger/40 bg-danger/10 p-4 text-danger"
        >
          {loaderData.providerError}
        </p>
      ) : null}
      <nav aria-label="Filter by status">
        <ul className="flex flex-wrap gap-2">
          <li>
            <NavLink
              to="/admin/campaigns"
              end
              className={() => filter({ isActive: status === null })}
            >
              All
            </NavLink>
          </li>
          {CAMPAIGN_STATUSES.map((name) => (
            <li key={name}>
              <NavLink
                to={`/admin/campaigns?status=${name}`}
                className={() => filter({ isActive: status === name })}
              >
                {name}
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>

      {campaigns.length === 0 ? (
        <p className="rounded-brand border border-dashed border-black/20 p-6">
          {status ? `No ${status} campaigns.` : "No campaigns yet."}
        </p>
      ) : (
        <ul className="space-y-4">
          {campaigns.map((campaign) => (
            <li key={campaign.id} className="rounded-brand border border-black/10 p-4 shadow-sm">
              <div className="flex flex-wrap items-baseline justify-between gap-2">
                <h2 className="text-lg font-semibold">
                  {loaderData.provider === "mailerlite" ? (
                    campaign.name
                  ) : (
                    <Link to={`/admin/campaigns/${campaign.id}`}>{campaign.name}</Link>
                  )}
                </h2>
                <CampaignStatusBadge status={campaign.status} />
              </div>
              <p className="mt-1 text-sm opacity-90">
                Created <StaffTime iso={campaign.createdAt} />
                <TimeFact
                  label="sends"
                  iso={campaign.status === "scheduled" ? campaign.scheduledAt : null}
                />
                <TimeFact label="finished" iso={campaign.finishedAt} />
              </p>
              {campaign.progress && campaign.progress.total > 0 ? (
                <div className="mt-3">
                  <CampaignProgressBar progress={campaign.progress} status={campaign.status} />
                </div>
              ) : null}
            </li>
          ))}
        </ul>
      )}
      <Pagination
        page={page}
        pageCount={pageCount}
        href={(to) =>
          `?${new URLSearchParams({ ...(status ? { status } : {}), page: String(to) })}`
        }
      />

      {loaderData.comparison.length > 0 ? (
        <AdminSection id="compare-heading" title="Campaigns compared">
          <p className="mt-1 text-sm">
            Rates are of the messages sent; opens by privacy proxies and mail scanners are not
            counted.
          </p>
          <DataTable
            className="mt-3"
            columns={COMPARISON_COLUMNS}
            rows={loaderData.comparison}
            rowKey={(row) => row.id}
          />
        </AdminSection>
      ) : null}

      <AdminSection id="lists-heading" title="Lists">
        <DataTable
          className="mt-3"
          columns={LIST_COLUMNS}
          rows={groups}
          rowKey={(group) => group.id}
        />
      </AdminSection>
    </AdminPage>
  );
}
