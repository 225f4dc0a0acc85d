import { Form, useNavigation } from "react-router";
import { formatCount, plural } from "../../../shared/format";
import { AbTestSection } from "../../components/admin/ab-test-report";
import { ActivityChart } from "../../components/admin/activity-chart";
import { ConfirmCancel, NotNow } from "../../components/admin/campaign-confirm";
import { CampaignRecipients, ResendUnopened } from "../../components/admin/campaign-recipients";
import { FEEDBACK_COLUMNS, LINK_COLUMNS, percent } from "../../components/admin/campaign-report";
import { CampaignReview } from "../../components/admin/campaign-review";
import { ViewSourcesSection } from "../../components/admin/view-sources";
import { AdminPage, AdminSection, BackLink } from "../../components/admin-header";
import {
  CampaignProgressBar,
  CampaignStatusBadge,
  useLiveWhile,
} from "../../components/campaign-progress";
import { DataTable } from "../../components/ui/data-table";
import { FormNotice } from "../../components/ui/form";
import { noindexMeta } from "../../lib/meta";
import { Link } from "../../lib/page-scripts";
import { StaffTime, TimeFact } from "../../lib/time-zone";
import type { Route } from "./+types/campaign";

export { action, loader } from "./campaign.server";

export const meta: Route.MetaFunction = ({ loaderData }) =>
  noindexMeta(loaderData ? `${loaderData.campaign.name} | Campaigns` : "Campaign");

export default function Campaign({ loaderData, actionData }: Route.ComponentProps) {
  const { campaign, progress, report } = loaderData;
  const navigation = useNavigation();
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
    ["Machine opens (not counted)", report.machineOpens],
    ["Unique clicks", `${report.clicks.unique} (${percent(report.clicks.unique, progress.sent)})`],
    ["Total clicks", report.clicks.total],
    ["Unsubscribes", report.unsubscribes],
    ["Bounces", report.bounces],
    ["Complaints", report.complaints],
  ];
  return (
    <AdminPage title="Campaign" width="wide" className="space-y-8">
      <BackLink to="/admin/campaigns">All campaigns</BackLink>
      <section aria-labelledby="campaign-name" className="space-y-3">
        <div className="flex flex-wrap items-center gap-3">
          <h2 id="campaign-name" className="text-2xl font-bold break-words">
            {campaign.name}
          </h2>
          <CampaignStatusBadge status={campaign.status} />
        </div>
        <p className="text-sm">
          From {campaign.from} · created <StaffTime iso={campaign.createdAt} />
          <TimeFact
            label={campaign.status === "scheduled" ? "sends" : "scheduled"}
            iso={campaign.scheduledAt}
          />
          <TimeFact label="finished" iso={campaign.finishedAt} />
          {campaign.newsletterId ? (
            <>
              {" · "}
              <Link to={`/newsletter/${campaign.newsletterId}`}>View the newsletter</Link>
            </>
          ) : null}
        </p>
        <p className="text-sm">
          To {campaign.lists.join(", ") || "no list"}
          {loaderData.original ? (
            <>
              {", only those who did not open "}
              <Link to={`/admin/campaigns/${loaderData.original.id}`}>
                {loaderData.original.name}
              </Link>
            </>
          ) : null}
          {campaign.recipients !== null
            ? ` · ${plural(campaign.recipients, "recipient")} if it were sent now (unsubscribed, bounced and complained addresses left out)`
            : ""}
        </p>
        <p className="text-sm">
          Tracking: opens {campaign.trackOpens ? "on" : "off"}, clicks{" "}
          {campaign.trackClicks ? "on" : "off"}
        </p>
        <FormNotice message={loaderData.saved && !actionData && "Changes saved."} />
        {actionData?.error ? (
          <p role="alert" className="font-medium text-danger">
            {actionData.error}
          </p>
        ) : null}
        {actionData && "confirm" in actionData && actionData.confirm ? (
          <ConfirmCancel recipients={actionData.confirm.recipients} />
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
          {campaign.status === "draft" || campaign.status === "scheduled" ? (
            <Link to={`/admin/campaigns/${campaign.id}/edit`} className={`${button} no-underline`}>
              Edit campaign
            </Link>
          ) : null}
        </div>
        {progress.total > 0 || campaign.status === "sending" ? (
          <CampaignProgressBar progress={progress} status={campaign.status} />
        ) : null}
      </section>

      {actionData && "review" in actionData && actionData.review ? (
        <Form method="post" id="campaign-send">
          <input type="hidden" name="action" value="send" />
          <CampaignReview
            review={actionData.review}
            scheduled={false}
            busy={navigation.state === "submitting"}
            form="campaign-send"
            send={{ name: "action", value: "send" }}
          >
            <NotNow>Not now</NotNow>
          </CampaignReview>
        </Form>
      ) : null}

      <AdminSection id="figures-heading" title="Report">
        <dl className="mt-3 grid grid-cols-2 gap-3 sm:grid-cols-3">
          {figures.map(([label, value]) => (
            <div key={label} className="rounded-brand border border-black/10 p-3">
              <dt className="text-sm">{label}</dt>
              <dd className="text-xl font-bold">
                {typeof value === "number" ? formatCount(value) : value}
              </dd>
            </div>
          ))}
        </dl>
      </AdminSection>

      {loaderData.abTest ? (
        <AbTestSection test={loaderData.abTest} status={campaign.status} />
      ) : null}
      {loaderData.sources ? <ViewSourcesSection sources={loaderData.sources} /> : null}

      <AdminSection id="recipients-heading" title="Recipients">
        <ResendUnopened
          campaign={campaign}
          unopened={loaderData.activity.counts["not-opened"]}
          resend={loaderData.resend}
        />
        <CampaignRecipients campaignId={campaign.id} view={loaderData.activity} />
      </AdminSection>

      <AdminSection id="activity-heading" title="Opens and clicks over time">
        <div className="mt-3">
          <ActivityChart timeline={report.timeline} />
        </div>
      </AdminSection>

      <AdminSection id="links-heading" title="Top links">
        {report.topLinks.length === 0 ? (
          <p className="mt-2 text-sm">No clicks yet.</p>
        ) : (
          <DataTable
            className="mt-3"
            columns={LINK_COLUMNS}
            rows={report.topLinks}
            rowKey={(link) => link.url}
          />
        )}
      </AdminSection>

      <AdminSection id="feedback-heading" title="Bounces and complaints">
        {report.feedback.length === 0 ? (
          <p className="mt-2 text-sm">No bounces or complaints.</p>
        ) : (
          <>
            <p className="mt-2 text-sm">
              These addresses get no more mail from {loaderData.tenantName} until they sign up again
              and confirm.
            </p>
            <DataTable
              className="mt-3"
              columns={FEEDBACK_COLUMNS}
              rows={report.feedback}
              rowKey={(row) => row.email}
            />
          </>
        )}
      </AdminSection>
    </AdminPage>
  );
}
