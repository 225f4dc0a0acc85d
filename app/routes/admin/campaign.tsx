import { Form, Link } from "react-router";
import { formatDateTime } from "../../../shared/format";
import { AdminHeader } from "../../components/admin-header";
import {
  CampaignProgressBar,
  CampaignStatusBadge,
  useLiveWhile,
} from "../../components/campaign-progress";
import type { Route } from "./+types/campaign";

export { action, loader } from "./campaign.server";

export const meta: Route.MetaFunction = ({ loaderData }) => [
  { title: loaderData ? `${loaderData.campaign.name} | Campaigns` : "Campaign" },
  { name: "robots", content: "noindex" },
];

function percent(part: number, whole: number) {
  return whole > 0 ? `${Math.round((part / whole) * 1000) / 10}%` : "—";
}

/** Opens and clicks per hour as grouped bars (inline SVG: no chart library for two series). */
function ActivityChart({
  timeline,
}: {
  timeline: { hour: string; opens: number; clicks: number }[];
}) {
  if (timeline.length === 0) return <p className="text-sm">No opens or clicks yet.</p>;
  const max = Math.max(1, ...timeline.flatMap((point) => [point.opens, point.clicks]));
  const slot = 28;
  const height = 140;
  const width = Math.max(timeline.length * slot, 200);
  return (
    <figure>
      <svg
        viewBox={`0 0 ${width} ${height + 20}`}
        className="h-48 w-full max-w-3xl"
        role="img"
        aria-label={`Opens and clicks per hour: ${timeline.map((p) => `${formatDateTime(p.hour)} ${p.opens} opens, ${p.clicks} clicks`).join("; ")}`}
      >
        {timeline.map((point, index) => {
          const x = index * slot + 4;
          const opens = (point.opens / max) * height;
          const clicks = (point.clicks / max) * height;
          return (
            <g key={point.hour}>
              <rect
                x={x}
                y={height - opens}
                width={10}
                height={opens}
                className="fill-brand-strong"
              />
              <rect
                x={x + 11}
                y={height - clicks}
                width={10}
                height={clicks}
                className="fill-secondary"
              />
              <text x={x} y={height + 14} fontSize="9" className="fill-ink">
                {point.hour.slice(11, 13)}h
              </text>
            </g>
          );
        })}
      </svg>
      <figcaption className="mt-1 flex gap-4 text-sm">
        <span>
          <span aria-hidden="true" className="mr-1 inline-block size-3 bg-brand-strong" />
          Opens
        </span>
        <span>
          <span aria-hidden="true" className="mr-1 inline-block size-3 bg-secondary" />
          Clicks
        </span>
        <span>per hour (UTC)</span>
      </figcaption>
    </figure>
  );
}

export default function Campaign({ loaderData, actionData }: Route.ComponentProps) {
  const { campaign, progress, report } = loaderData;
  useLiveWhile(campaign.status === "sending" || campaign.status === "scheduled");
  const button =
    "rounded-brand border-2 border-brand-strong px-4 py-2 font-semibold text-brand-strong";
  const actions: { action: string; label: string; when: string[] }[] = [
    { action: "send", label: "Send now", when: ["draft", "scheduled"] },
    { action: "pause", label: "Pause", when: ["sending"] },
    { action: "resume", label: "Resume", when: ["paused"] },
    {
      action: "cancel",
      label: "Cancel campaign",
      when: ["draft", "scheduled", "sending", "paused"],
    },
  ];
  const figures: [string, string | number][] = [
    ["Recipients", progress.total],
    ["Sent", progress.sent],
    ["Failed", progress.failed],
    ["Unique opens", `${report.opens.unique} (${percent(report.opens.unique, progress.sent)})`],
    ["Total opens", report.opens.total],
    ["Unique clicks", `${report.clicks.unique} (${percent(report.clicks.unique, progress.sent)})`],
    ["Total clicks", report.clicks.total],
    ["Unsubscribes", report.unsubscribes],
    ["Bounces", report.bounces],
    ["Complaints", report.complaints],
  ];
  return (
    <main>
      <AdminHeader
        title="Campaign"
        tenantName={loaderData.tenantName}
        isSuperAdmin={loaderData.isSuperAdmin}
      />
      <div className="mx-auto max-w-5xl space-y-8 px-4 py-8 sm:px-6">
        <p>
          <Link to="/admin/campaigns" className="font-semibold">
            ← All campaigns
          </Link>
        </p>
        <section aria-labelledby="campaign-name" className="space-y-3">
          <div className="flex flex-wrap items-center gap-3">
            <h2 id="campaign-name" className="text-2xl font-bold break-words">
              {campaign.name}
            </h2>
            <CampaignStatusBadge status={campaign.status} />
          </div>
          <p className="text-sm">
            From {campaign.from} · created {formatDateTime(campaign.createdAt)}
            {campaign.scheduledAt
              ? ` · ${campaign.status === "scheduled" ? "sends" : "scheduled"} ${formatDateTime(campaign.scheduledAt)}`
              : ""}
            {campaign.finishedAt ? ` · finished ${formatDateTime(campaign.finishedAt)}` : ""}
            {campaign.newsletterId ? (
              <>
                {" · "}
                <Link to={`/newsletter/${campaign.newsletterId}`}>View the newsletter</Link>
              </>
            ) : null}
          </p>
          <p className="text-sm">
            Tracking: opens {campaign.trackOpens ? "on" : "off"}, clicks{" "}
            {campaign.trackClicks ? "on" : "off"}
          </p>
          {actionData?.error ? (
            <p role="alert" className="font-medium text-danger">
              {actionData.error}
            </p>
          ) : null}
          <div className="flex flex-wrap gap-3">
            {actions
              .filter((item) => item.when.includes(campaign.status))
              .map((item) => (
                <Form key={item.action} method="post">
                  <input type="hidden" name="action" value={item.action} />
                  <button type="submit" className={button}>
                    {item.label}
                  </button>
                </Form>
              ))}
          </div>
          {progress.total > 0 || campaign.status === "sending" ? (
            <CampaignProgressBar progress={progress} status={campaign.status} />
          ) : null}
        </section>

        <section aria-labelledby="figures-heading">
          <h2 id="figures-heading" className="text-xl font-bold">
            Report
          </h2>
          <dl className="mt-3 grid grid-cols-2 gap-3 sm:grid-cols-3">
            {figures.map(([label, value]) => (
              <div key={label} className="rounded-brand border border-black/10 p-3">
                <dt className="text-sm">{label}</dt>
                <dd className="text-xl font-bold">
                  {typeof value === "number" ? value.toLocaleString("en-US") : value}
                </dd>
              </div>
            ))}
          </dl>
        </section>

        <section aria-labelledby="activity-heading">
          <h2 id="activity-heading" className="text-xl font-bold">
            Opens and clicks over time
          </h2>
          <div className="mt-3">
            <ActivityChart timeline={report.timeline} />
          </div>
        </section>

        <section aria-labelledby="links-heading">
          <h2 id="links-heading" className="text-xl font-bold">
            Top links
          </h2>
          {report.topLinks.length === 0 ? (
            <p className="mt-2 text-sm">No clicks yet.</p>
          ) : (
            <table className="mt-3 w-full text-left text-sm">
              <thead>
                <tr className="border-b border-black/20">
                  <th className="py-2 pr-4">Link</th>
                  <th className="py-2 pr-4 text-right">Clicks</th>
                  <th className="py-2 text-right">People</th>
                </tr>
              </thead>
              <tbody>
                {report.topLinks.map((link) => (
                  <tr key={link.url} className="border-b border-black/10">
                    <td className="max-w-[20rem] truncate py-2 pr-4">{link.url}</td>
                    <td className="py-2 pr-4 text-right">{link.clicks}</td>
                    <td className="py-2 text-right">{link.unique}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>

        <section aria-labelledby="feedback-heading">
          <h2 id="feedback-heading" className="text-xl font-bold">
            Bounces and complaints
          </h2>
          {report.feedback.length === 0 ? (
            <p className="mt-2 text-sm">No bounces or complaints.</p>
          ) : (
            <>
              <p className="mt-2 text-sm">
                These addresses get no more mail from {loaderData.tenantName} until they sign up
                again and confirm.
              </p>
              <table className="mt-3 w-full text-left text-sm">
                <thead>
                  <tr className="border-b border-black/20">
                    <th className="py-2 pr-4">Address</th>
                    <th className="py-2 pr-4">What happened</th>
                    <th className="py-2 pr-4">When</th>
                    <th className="py-2">Report</th>
                  </tr>
                </thead>
                <tbody>
                  {report.feedback.map((row) => (
                    <tr key={row.email} className="border-b border-black/10">
                      <td className="py-2 pr-4 break-all">{row.email}</td>
                      <td className="py-2 pr-4">
                        {row.kind === "complaint" ? "Complaint (marked as spam)" : "Hard bounce"}
                      </td>
                      <td className="py-2 pr-4 whitespace-nowrap">{formatDateTime(row.at)}</td>
                      <td className="max-w-[24rem] py-2 break-words">{row.detail ?? "—"}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </>
          )}
        </section>
      </div>
    </main>
  );
}
