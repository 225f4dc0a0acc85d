// The loader and action of campaign-edit.tsx.
import { parseWithZod } from "@conform-to/zod/v4";
import { data, redirect } from "react-router";
import { requireTenantAccess } from "../../../server/auth/guards";
import { updateCampaign } from "../../../server/campaigns/campaigns";
import { CampaignError } from "../../../server/campaigns/errors";
import { scopeOf } from "../../../server/http/context";
import {
  campaignEditSchema,
  campaignFormValues,
  splitFormErrors,
} from "../../../shared/schemas/campaign";
import { utcToZonedLocal } from "../../../shared/time-zone";
import type { Route } from "./+types/campaign-edit";
import {
  campaignChoices,
  campaignSettings,
  loadCampaign,
  savedAbTestValues,
} from "./campaign-form.server";

/** /admin/campaigns/:id/edit — a draft or scheduled campaign, until it starts (issue 16, point 7). */
export async function loader({ params, context }: Route.LoaderArgs) {
  requireTenantAccess(context);
  const { tenant } = scopeOf(context);
  const campaign = await loadCampaign(context, params.id);
  const { lists, segments } = await campaignChoices(context);
  const listIds = JSON.parse(campaign.list_ids) as number[];
  return {
    campaign: {
      id: campaign.id,
      name: campaign.name,
      status: campaign.status,
      editable: campaign.status === "draft" || campaign.status === "scheduled",
      fromNewsletter: campaign.newsletter_id !== null,
    },
    lists,
    segments,
    abTest: savedAbTestValues(campaign),
    values: {
      subject: campaign.subject,
      senderName: campaign.from_name,
      senderEmail: campaign.from_email,
      replyTo: campaign.reply_to ?? "",
      lists: lists.filter((list) => listIds.includes(list.id)).map((list) => list.key),
      segments: (JSON.parse(campaign.segment_ids) as number[]).map(String),
      trackOpens: campaign.track_opens === 1,
      trackClicks: campaign.track_clicks === 1,
      mode: campaign.status === "scheduled" ? "schedule" : "draft",
      scheduledAt:
        campaign.status === "scheduled" && campaign.scheduled_at
          ? utcToZonedLocal(campaign.scheduled_at, tenant.timeZone)
          : "",
    },
  };
}

export async function action({ request, params, context }: Route.ActionArgs) {
  requireTenantAccess(context);
  const formData = await request.formData();
  const values = campaignFormValues(formData);
  const fail = (fields: Record<string, string[]>, form: string[], status = 400) =>
    data({ fields, form, values }, { status });
  const submission = parseWithZod(formData, { schema: campaignEditSchema });
  if (submission.status !== "success") {
    const { fields, form } = splitFormErrors(submission.error);
    return fail(fields, form);
  }
  const form = submission.value;
  const scope = scopeOf(context);
  try {
    await updateCampaign(scope, params.id, {
      ...campaignSettings(form, scope.tenant.timeZone),
      refreshContent: form.refreshContent,
    });
  } catch (error) {
    if (error instanceof CampaignError) return fail({}, [error.message], error.status);
    throw error;
  }
  scope.worker?.poke();
  throw redirect(`/admin/campaigns/${params.id}?saved=1`, 303);
}
