// The loader and action of campaign.tsx.
import { data, redirect } from "react-router";
import { requireTenantAccess } from "../../../server/auth/guards";
import { decideAbTest } from "../../../server/campaigns/ab-decision";
import { audienceOf } from "../../../server/campaigns/campaign-row";
import { changeCampaignState } from "../../../server/campaigns/campaigns";
import { CampaignError } from "../../../server/campaigns/errors";
import {
  activityCounts,
  recipientActivityPage,
} from "../../../server/campaigns/recipient-activity";
import { countRecipients } from "../../../server/campaigns/recipients";
import { abTestReport, campaignProgress, campaignReport } from "../../../server/campaigns/reports";
import { resendToUnopened, unopenedResendOf } from "../../../server/campaigns/resend-unopened";
import { reviewSavedCampaign } from "../../../server/campaigns/review";
import { scopeOf, userContext } from "../../../server/http/context";
import { viewSourcesOf } from "../../../server/newsletters/view-sources";
import { listTenantLists } from "../../../server/subscribers/lists";
import { listSegments } from "../../../server/subscribers/segments";
import { readActivityQuery } from "../../../shared/schemas/campaign-activity";
import { z } from "../../../shared/zod";
import type { Route } from "./+types/campaign";
import { loadCampaign } from "./campaign-form.server";

/** /admin/campaigns/:id — progress while sending, the report when done, and the staff actions. */
export async function loader({ url, params, context }: Route.LoaderArgs) {
  requireTenantAccess(context);
  const { db } = scopeOf(context);
  const campaign = await loadCampaign(context, params.id);
  const waiting = campaign.status === "draft" || campaign.status === "scheduled";
  const listIds = JSON.parse(campaign.list_ids) as number[];
  const segmentIds = JSON.parse(campaign.segment_ids) as number[];
  const query = readActivityQuery(url.searchParams);
  const [
    progress,
    report,
    lists,
    segments,
    recipients,
    counts,
    page,
    resend,
    original,
    abTest,
    sources,
  ] = await Promise.all([
    campaignProgress(db, campaign),
    campaignReport(db, campaign),
    listTenantLists(db, scopeOf(context).tenant),
    listSegments(db, campaign.tenant_id),
    waiting ? countRecipients(db, campaign.tenant_id, await audienceOf(db, campaign)) : null,
    activityCounts(db, campaign.id),
    recipientActivityPage(db, campaign.id, query),
    unopenedResendOf({ db }, campaign.id),
    campaign.unopened_of ? unopenedResendOrigin(context, campaign.unopened_of) : null,
    abTestReport(db, campaign),
    campaign.newsletter_id ? viewSourcesOf(scopeOf(context), campaign.newsletter_id) : null,
  ]);
  return {
    tenantName: scopeOf(context).tenant.branding.companyName,
    campaign: {
      id: campaign.id,
      name: campaign.name,
      subject: campaign.subject,
      from: `${campaign.from_name} <${campaign.from_email}>`,
      status: campaign.status,
      newsletterId: campaign.newsletter_id,
      trackOpens: campaign.track_opens === 1,
      trackClicks: campaign.track_clicks === 1,
      createdAt: campaign.created_at,
      scheduledAt: campaign.scheduled_at,
      startedAt: campaign.started_at,
      finishedAt: campaign.finished_at,
      lists: [
        ...lists.filter((list) => listIds.includes(list.id)).map((list) => list.name),
        ...segments
          .filter((segment) => segmentIds.includes(segment.id))
          .map((segment) => `${segment.name} (segment)`),
      ],
      /** before it starts: how many would get it now, after suppression */
      recipients,
    },
    saved: url.searchParams.get("saved") === "1",
    progress,
    report,
    /** the newsletter's views by source (decision 047), beside the opens and clicks */
    sources,
    activity: { query, counts, ...page },
    /** "Send to those who did not open": the campaign made so, or the one this was made from */
    resend,
    original,
    /** the A/B test's arms, winner and remainder; null without a test */
    abTest,
  };
}

async function unopenedResendOrigin(context: Route.LoaderArgs["context"], id: string) {
  const { id: originalId, name } = await loadCampaign(context, id);
  return { id: originalId, name };
}

const actionSchema = z.object({
  action: z.enum(["pause", "resume", "cancel", "send", "resend-unopened", "pick-winner"]),
  confirmed: z.literal("yes").optional(),
  /** what the review showed: "Send to N recipients" sends only while both still hold */
  confirmedRecipients: z.coerce.number().int().min(0).optional(),
  confirmedAudience: z.string().max(2_000).optional(),
});

/** Cancelling asks first (issue 16, point 7), in the states that allow it. */
const ASKS_FIRST: Partial<Record<string, readonly string[]>> = {
  cancel: ["draft", "scheduled", "sending", "paused"],
};

/** "Send now" goes through the review (issue 32, finding 16), in the states that allow it. */
const REVIEWED_FIRST: readonly string[] = ["draft", "scheduled"];

export async function action({ request, params, context }: Route.ActionArgs) {
  requireTenantAccess(context);
  const parsed = actionSchema.safeParse(Object.fromEntries(await request.formData()));
  if (!parsed.success) return data({ error: "Unknown action" }, { status: 400 });
  const scope = scopeOf(context);
  const { action, confirmed, confirmedRecipients, confirmedAudience } = parsed.data;
  try {
    if (action === "resend-unopened") {
      const draft = await resendToUnopened(scope, params.id, context.get(userContext)?.id ?? null);
      throw redirect(`/admin/campaigns/${draft.id}`, 303);
    }
    if (action === "pick-winner") {
      // "Pick winner now" (A/B subject lines): chosen once, whoever asks first (ab-decision.ts).
      const decided = await decideAbTest(scope.db, scope.tenant.id, params.id, "staff");
      if (!decided) {
        return data(
          { error: "The winner was already chosen, or the campaign no longer sends." },
          { status: 409 },
        );
      }
      scope.worker?.poke();
      return { error: null };
    }
    if (action === "send") {
      const campaign = await loadCampaign(context, params.id);
      if (REVIEWED_FIRST.includes(campaign.status)) {
        // Before a review, or when the audience changed since, the review is shown (again).
        const review = await reviewSavedCampaign(scope, campaign);
        if (confirmedRecipients !== review.recipients || confirmedAudience !== review.audience) {
          return { error: null, review: { ...review, changed: confirmedRecipients !== undefined } };
        }
      }
    } else if (!confirmed && ASKS_FIRST[action]) {
      const campaign = await loadCampaign(context, params.id);
      if (ASKS_FIRST[action]?.includes(campaign.status)) {
        const recipients = (await campaignProgress(scope.db, campaign)).pending;
        return { error: null, confirm: { action: "cancel" as const, recipients } };
      }
    }
    await changeCampaignState({ db: scope.db, tenant: scopeOf(context).tenant }, params.id, action);
    scope.worker?.poke();
    return { error: null };
  } catch (error) {
    if (error instanceof CampaignError)
      return data({ error: error.message }, { status: error.status });
    throw error;
  }
}
