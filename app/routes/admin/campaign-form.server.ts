// What the campaign pages' loaders and actions share (campaign.server.ts, campaign-edit.server.ts,
// newsletter-send.server.ts).
import { data, type RouterContextProvider } from "react-router";
import { abTestOf } from "../../../server/campaigns/ab-test";
import { audienceSizes } from "../../../server/campaigns/audience-sizes";
import { getCampaignRow } from "../../../server/campaigns/campaign-row";
import { CampaignError } from "../../../server/campaigns/errors";
import { scopeOf } from "../../../server/http/context";
import { listTenantLists, sendableLists } from "../../../server/subscribers/lists";
import { listSegments } from "../../../server/subscribers/segments";
import {
  type AB_EXTRA_SUBJECTS,
  abTestFromForm,
  type CampaignForm,
} from "../../../shared/schemas/campaign";
import { zonedLocalToUtc } from "../../../shared/time-zone";
import { type AbTestValues, NO_AB_TEST } from "../../components/admin/ab-test-fields";

/** The campaign of a staff page's `:id`, or the page's answer when there is none (404) for this tenant. */
export async function loadCampaign(context: Readonly<RouterContextProvider>, id: string) {
  const { db, tenant } = scopeOf(context);
  try {
    return await getCampaignRow(db, tenant.id, id);
  } catch (error) {
    if (error instanceof CampaignError)
      throw data({ message: error.message }, { status: error.status });
    throw error;
  }
}

/**
 * The lists and segments a campaign form offers, each with its active subscribers (issue 35: the
 * numbers before the review).
 */
export async function campaignChoices(context: Readonly<RouterContextProvider>) {
  const { db, tenant } = scopeOf(context);
  const [lists, segments] = await Promise.all([
    listTenantLists(db, tenant).then(sendableLists),
    listSegments(db, tenant.id),
  ]);
  const sizes = await audienceSizes(db, tenant.id, {
    listIds: lists.map((list) => list.id),
    segments,
  });
  return {
    lists: lists.map(({ id, key, name }) => ({ id, key, name, active: sizes.lists.get(id) ?? 0 })),
    segments: segments.map(({ id, name }) => ({ id, name, active: sizes.segments.get(id) ?? 0 })),
  };
}

type CampaignFields = Pick<
  CampaignForm,
  | "subject"
  | "senderName"
  | "senderEmail"
  | "replyTo"
  | "lists"
  | "segments"
  | "trackOpens"
  | "trackClicks"
  | "scheduledAt"
  | "abTest"
  | "abShare"
  | "abWinnerBy"
  | "abWaitHours"
  | (typeof AB_EXTRA_SUBJECTS)[number]
>;

/**
 * The send and edit forms' answers as a campaign's settings: the ticked lists are its groups, and
 * the send time, typed in the tenant's time zone, is stored in UTC.
 */
export function campaignSettings<Mode extends string>(
  form: CampaignFields & { mode: Mode },
  timeZone: string,
) {
  return {
    subject: form.subject,
    senderName: form.senderName,
    senderEmail: form.senderEmail,
    replyTo: form.replyTo,
    groups: form.lists,
    segments: form.segments,
    trackOpens: form.trackOpens,
    trackClicks: form.trackClicks,
    mode: form.mode,
    scheduledAt: form.scheduledAt ? zonedLocalToUtc(form.scheduledAt, timeZone) : null,
    abTest: abTestFromForm(form),
  };
}

/** A saved campaign's A/B test as the edit form shows it. */
export function savedAbTestValues(campaign: Parameters<typeof abTestOf>[0]): AbTestValues {
  const test = abTestOf(campaign);
  if (!test) return NO_AB_TEST;
  return {
    abTest: true,
    others: test.subjects.slice(1),
    abShare: String(test.sharePercent),
    abWinnerBy: test.winnerBy,
    abWaitHours: String(Math.round(test.waitMinutes / 60)),
  };
}
