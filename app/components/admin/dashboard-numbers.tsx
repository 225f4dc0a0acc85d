import type { DashboardNumbers } from "../../../server/tenants/dashboard-numbers";
import { formatCount, plural } from "../../../shared/format";
import { Link } from "../../lib/page-scripts";

/** A share of the messages sent, as a whole percent ("–" before anything was sent). */
function rate(count: number, sent: number): string {
  return sent > 0 ? `${Math.round((count / sent) * 100)}%` : "–";
}

function Figure({
  id,
  label,
  value,
  children,
}: {
  id: string;
  label: string;
  value: string;
  children: React.ReactNode;
}) {
  return (
    <div
      className="rounded-brand border border-black/10 bg-surface p-4 shadow-sm"
      data-testid={`dashboard-${id}`}
    >
      <dt className="text-sm font-semibold text-ink/75">{label}</dt>
      <dd className="mt-1 text-3xl font-bold tabular-nums">{value}</dd>
      <dd className="mt-1 text-sm">{children}</dd>
    </div>
  );
}

/** The dashboard's figures above the newsletters (issue 35): each one links to its page. */
export function DashboardFigures({ numbers }: { numbers: DashboardNumbers }) {
  const { subscribers, growth, lastCampaign, drafts } = numbers;
  const signed = growth.net > 0 ? `+${formatCount(growth.net)}` : formatCount(growth.net);
  return (
    <section aria-labelledby="numbers-heading" className="mb-8">
      <h2 id="numbers-heading" className="sr-only">
        At a glance
      </h2>
      <dl className="grid grid-cols-2 gap-3 sm:gap-4 lg:grid-cols-4">
        <Figure id="subscribers" label="Active subscribers" value={formatCount(subscribers.active)}>
          <Link to="/admin/subscribers">{formatCount(subscribers.total)} in all</Link>
        </Figure>
        <Figure id="growth" label={`Growth, last ${growth.days} days`} value={signed}>
          {`${plural(growth.new, "sign-up")}, ${formatCount(growth.unsubscribed)} unsubscribed`}
        </Figure>
        <Figure
          id="last-campaign"
          label="Last campaign opens"
          value={lastCampaign ? rate(lastCampaign.opened, lastCampaign.sent) : "–"}
        >
          {lastCampaign ? (
            <>
              <Link to={`/admin/campaigns/${lastCampaign.id}`} className="font-semibold">
                {lastCampaign.name}
              </Link>
              {`: ${formatCount(lastCampaign.opened)} opened, ${formatCount(lastCampaign.clicked)} clicked (${rate(lastCampaign.clicked, lastCampaign.sent)}) of ${formatCount(lastCampaign.sent)} sent`}
            </>
          ) : (
            "No campaign sent yet."
          )}
        </Figure>
        <Figure id="drafts" label="Drafts waiting" value={formatCount(drafts.newsletters)}>
          <Link to="/admin/dashboard?status=draft">
            {plural(drafts.newsletters, "newsletter draft")}
          </Link>
          ,{" "}
          <Link to="/admin/campaigns?status=draft">
            {plural(drafts.campaigns, "campaign draft")}
          </Link>
        </Figure>
      </dl>
    </section>
  );
}
