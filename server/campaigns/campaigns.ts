import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { isValidEmail } from "../../shared/schemas/email";
import type { Db } from "../db";
import type { CampaignRow, CampaignStatus } from "../db/schema";
import { mailContentFor } from "../emails/templates";
import { replyToHeader } from "../mail/headers";
import { sendMail } from "../mail/send";
import { setNewsletterSendState } from "../newsletters/newsletters";
import {
  listTenantLists,
  type MailingList,
  resolveLists,
  sendableLists,
} from "../subscribers/lists";
import { campaignAudience, listSegments, type Segment } from "../subscribers/segments";
import { type SubscriptionContext, tenantLink } from "../subscribers/subscribers";
import { FIXED_SENDER } from "../tenants/config";
import { foreignSenderProblem } from "../tenants/sender-domains";
import { cleanCampaignContent } from "./clean-content";
import { cancelPendingDeliveries, queueDeliveries } from "./deliveries";
import { CampaignError } from "./errors";
import { type CampaignMessageSource, personalise, prepareCampaignMessage } from "./message";
import { type Audience, countRecipients } from "./recipients";
import { extractLinks } from "./tracking-links";

/** SPEC §5 and §8 texts. */
export const CAMPAIGN_MESSAGES = {
  required: "Subject and content are required",
  noGroups: "No valid groups specified",
  badSender: "Invalid sender email format",
  idRequired: "Campaign ID is required",
  notFound: "Campaign not found",
} as const;

export { CAMPAIGN_STATUSES } from "../../shared/schemas/campaign";
export { CampaignError };

export type SendMode = "now" | "schedule" | "draft";

/** SPEC §7 createAndSendCampaign, plus the newsletter it comes from and when to send. */
export interface CampaignInput {
  subject?: string | null;
  content?: string | null;
  senderName?: string | null;
  senderEmail?: string | null;
  /** Reply-To; blank: the tenant's, else none */
  replyTo?: string | null;
  /** list keys, numeric id strings or numbers; none (and no segments) = the tenant's default list */
  groups?: readonly (string | number)[] | null;
  /** segment ids (issue 16, point 4): with the lists, the audience */
  segments?: readonly number[] | null;
  trackOpens?: boolean | null;
  trackClicks?: boolean | null;
  newsletterId?: string | null;
  mode?: SendMode;
  /** ISO time, for mode "schedule" */
  scheduledAt?: string | null;
}

interface ValidCampaign {
  subject: string;
  content: string;
  fromName: string;
  fromEmail: string;
  replyTo: string | null;
  lists: MailingList[];
  segments: Segment[];
  trackOpens: boolean;
  trackClicks: boolean;
}

/** Validation and defaults of SPEC §5/§7: sender from the tenant, then the fixed default. */
export async function validateCampaign(
  ctx: SubscriptionContext,
  input: CampaignInput,
): Promise<ValidCampaign> {
  const subject = input.subject?.trim() ?? "";
  const content = cleanCampaignContent(input.content ?? "");
  if (!subject || !content) throw new CampaignError(CAMPAIGN_MESSAGES.required);
  if (subject.length > 300) throw new CampaignError("Subject must be at most 300 characters");
  const fromEmail = input.senderEmail?.trim() || ctx.tenant.email.senderEmail || FIXED_SENDER.email;
  if (!isValidEmail(fromEmail)) throw new CampaignError(CAMPAIGN_MESSAGES.badSender);
  const foreign = await foreignSenderProblem(ctx.db, ctx.tenant, fromEmail);
  if (foreign) throw new CampaignError(foreign);
  const fromName = (
    input.senderName?.trim() ||
    ctx.tenant.email.senderName ||
    FIXED_SENDER.name
  ).slice(0, 200);
  const replyTo = input.replyTo?.trim() || null;
  if (replyTo && !isValidEmail(replyTo)) throw new CampaignError("Invalid reply-to email format");
  const all = sendableLists(await listTenantLists(ctx.db, ctx.tenant));
  const segmentIds = [...new Set(input.segments ?? [])];
  const segments = segmentIds.length
    ? (await listSegments(ctx.db, ctx.tenant.id)).filter((segment) =>
        segmentIds.includes(segment.id),
      )
    : [];
  if (segments.length !== segmentIds.length)
    throw new CampaignError("Choose segments from the list");
  const requested = input.groups?.length
    ? input.groups
    : segments.length
      ? []
      : [ctx.tenant.emailGroups.default];
  const lists = resolveLists(all, requested);
  if (lists.length === 0 && (segments.length === 0 || requested.length > 0)) {
    throw new CampaignError(CAMPAIGN_MESSAGES.noGroups);
  }
  return {
    subject,
    content,
    fromName,
    fromEmail,
    replyTo,
    lists,
    segments,
    trackOpens: input.trackOpens ?? true,
    trackClicks: input.trackClicks ?? true,
  };
}

/**
 * Creates a campaign as a draft, as scheduled, or (SPEC §4: 'scheduled' with an immediate date)
 * sends it now: then the delivery rows are written at once and the worker picks them up.
 */
export async function createCampaign(
  ctx: SubscriptionContext,
  input: CampaignInput,
  createdBy: string | null,
): Promise<CampaignRow> {
  const valid = await validateCampaign(ctx, input);
  const mode = input.mode ?? "now";
  const now = new Date();
  let scheduledAt: string | null = null;
  if (mode === "schedule") scheduledAt = futureSendTime(input.scheduledAt, now);
  else if (mode === "now") scheduledAt = now.toISOString();
  if (input.newsletterId) {
    const newsletter = await ctx.db
      .selectFrom("newsletters")
      .select("id")
      .where("id", "=", input.newsletterId)
      .where("tenant_id", "=", ctx.tenant.id)
      .executeTakeFirst();
    if (!newsletter)
      throw new CampaignError(`Newsletter with ID ${input.newsletterId} not found`, 404);
  }
  const id = randomUUID();
  const stamp = now.toISOString();
  await ctx.db
    .insertInto("campaigns")
    .values({
      id,
      tenant_id: ctx.tenant.id,
      newsletter_id: input.newsletterId ?? null,
      ...campaignColumns(ctx, valid),
      status: mode === "draft" ? "draft" : "scheduled",
      scheduled_at: scheduledAt,
      created_by: createdBy,
      created_at: stamp,
      updated_at: stamp,
    })
    .execute();
  if (mode === "now") await startCampaign(ctx.db, ctx.tenant.id, id);
  return getCampaignRow(ctx.db, ctx.tenant.id, id);
}

/** What a campaign says and to whom, as its row stores it (creating and editing alike). */
function campaignColumns(ctx: SubscriptionContext, valid: ValidCampaign) {
  return {
    name: valid.subject,
    subject: valid.subject,
    from_name: valid.fromName,
    from_email: valid.fromEmail,
    reply_to: valid.replyTo,
    content: valid.content,
    list_ids: JSON.stringify(valid.lists.map((list) => list.id)),
    segment_ids: JSON.stringify(valid.segments.map((segment) => segment.id)),
    track_opens: valid.trackOpens ? 1 : 0,
    track_clicks: valid.trackClicks ? 1 : 0,
    // Links as the mail carries them (relative ones made absolute), so each can be tracked.
    links: JSON.stringify(extractLinks(mailContentFor(ctx.tenant, valid.content, ctx.origin))),
  };
}

/** A send time staff chose: a valid instant, not in the past (a minute's grace for the form). */
function futureSendTime(iso: string | null | undefined, now: Date): string {
  const at = iso ? new Date(iso) : null;
  if (!at || Number.isNaN(at.getTime())) throw new CampaignError("Choose when to send it");
  if (at.getTime() < now.getTime() - 60_000)
    throw new CampaignError("The send time must be in the future");
  return at.toISOString();
}

/**
 * Edits a draft or scheduled campaign (issue 16, point 7): what it says, to whom, and when. It
 * holds until the campaign starts: the update is conditional on the status, so an edit that loses
 * the race with the worker changes nothing and says so.
 */
export async function updateCampaign(
  ctx: SubscriptionContext,
  id: string,
  input: Omit<CampaignInput, "content" | "newsletterId" | "mode"> & {
    mode: "schedule" | "draft";
    /** take the newsletter's content as it is now */
    refreshContent?: boolean;
  },
): Promise<CampaignRow> {
  const campaign = await getCampaignRow(ctx.db, ctx.tenant.id, id);
  const editable: CampaignStatus[] = ["draft", "scheduled"];
  const started = () =>
    new CampaignError("This campaign has started sending; it can no longer be edited.", 409);
  if (!editable.includes(campaign.status)) throw started();
  let content = campaign.content;
  if (input.refreshContent && campaign.newsletter_id) {
    const newsletter = await ctx.db
      .selectFrom("newsletters")
      .select("content")
      .where("tenant_id", "=", ctx.tenant.id)
      .where("id", "=", campaign.newsletter_id)
      .executeTakeFirst();
    if (newsletter) content = newsletter.content;
  }
  const valid = await validateCampaign(ctx, { ...input, content });
  const now = new Date();
  const scheduledAt = input.mode === "schedule" ? futureSendTime(input.scheduledAt, now) : null;
  const result = await ctx.db
    .updateTable("campaigns")
    .set({
      ...campaignColumns(ctx, valid),
      status: input.mode === "draft" ? "draft" : "scheduled",
      scheduled_at: scheduledAt,
      updated_at: now.toISOString(),
    })
    .where("tenant_id", "=", ctx.tenant.id)
    .where("id", "=", id)
    .where("status", "in", editable)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) throw started();
  return getCampaignRow(ctx.db, ctx.tenant.id, id);
}

/** A campaign's audience: its lists, and its segments' rules as they are now. */
export function audienceOf(
  db: Db,
  campaign: Pick<CampaignRow, "tenant_id" | "list_ids" | "segment_ids">,
): Promise<Audience> {
  return campaignAudience(db, campaign.tenant_id, {
    listIds: JSON.parse(campaign.list_ids) as number[],
    segmentIds: JSON.parse(campaign.segment_ids) as number[],
  });
}

/** Just the campaign's status (the sender asks before each message). */
export async function campaignStatusOf(
  db: Db,
  tenantId: string,
  id: string,
): Promise<CampaignStatus> {
  const row = await db
    .selectFrom("campaigns")
    .select("status")
    .where("tenant_id", "=", tenantId)
    .where("id", "=", id)
    .executeTakeFirst();
  // A campaign deleted under the sender (its tenant removed) sends nothing more.
  return row?.status ?? "cancelled";
}

export async function getCampaignRow(db: Db, tenantId: string, id: string): Promise<CampaignRow> {
  if (!id) throw new CampaignError(CAMPAIGN_MESSAGES.idRequired);
  const row = await db
    .selectFrom("campaigns")
    .selectAll()
    .where("id", "=", id)
    .where("tenant_id", "=", tenantId)
    .executeTakeFirst();
  if (!row) throw new CampaignError(CAMPAIGN_MESSAGES.notFound, 404);
  return row;
}

/**
 * Moves a scheduled campaign to 'sending' and writes one delivery row per active subscriber of its
 * lists (each once, however many of the lists they are on), all in one transaction. Only one caller
 * wins the move, so rows are written once even with several workers.
 */
export async function startCampaign(db: Db, tenantId: string, id: string): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const now = new Date().toISOString();
    const moved = await trx
      .updateTable("campaigns")
      .set({ status: "sending", started_at: now, updated_at: now })
      .where("tenant_id", "=", tenantId)
      .where("id", "=", id)
      .where("status", "=", "scheduled")
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) !== 1) return false;
    const campaign = await trx
      .selectFrom("campaigns")
      .selectAll()
      .where("tenant_id", "=", tenantId)
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    const total = await queueDeliveries(
      trx,
      { tenantId, id, audience: await audienceOf(trx, campaign) },
      now,
    );
    await trx
      .updateTable("campaigns")
      .set({ total })
      .where("tenant_id", "=", tenantId)
      .where("id", "=", id)
      .execute();
    if (campaign.newsletter_id) {
      await setNewsletterSendState(trx, tenantId, campaign.newsletter_id, {
        campaignId: id,
        status: "sending",
      });
    }
    return true;
  });
}

/**
 * A sending campaign with nothing left to send: sent, or failed when nothing got through; its
 * newsletter records the outcome (SPEC §4: sending sets sentAt, campaignId and sendStatus).
 */
export async function finishCampaign(
  db: Db,
  campaign: { tenant_id: string; id: string; newsletter_id: string | null },
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const { sent, total } = await trx
      .selectFrom("deliveries")
      .select((eb) => [
        eb.fn.countAll<number>().as("total"),
        eb.fn.sum<number>(eb.case().when("status", "=", "sent").then(1).else(0).end()).as("sent"),
      ])
      .where("tenant_id", "=", campaign.tenant_id)
      .where("campaign_id", "=", campaign.id)
      .executeTakeFirstOrThrow();
    const now = new Date().toISOString();
    const status = Number(total) > 0 && Number(sent ?? 0) === 0 ? "failed" : "sent";
    const moved = await trx
      .updateTable("campaigns")
      .set({ status, finished_at: now, updated_at: now })
      .where("tenant_id", "=", campaign.tenant_id)
      .where("id", "=", campaign.id)
      .where("status", "=", "sending")
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) === 1 && campaign.newsletter_id) {
      await setNewsletterSendState(trx, campaign.tenant_id, campaign.newsletter_id, {
        campaignId: campaign.id,
        status,
        sentAt: now,
      });
    }
  });
}

/**
 * How old a campaign's status may be when a sender hands a message to SMTP: senders re-read it at
 * most this often, not once per message (server/campaigns/worker.ts).
 */
export const CAMPAIGN_STATE_MS = 200;

/**
 * Pause and Cancel answer once every sender has seen them, so that after the answer only messages
 * already handed to SMTP go out (issue 14: they took effect only after the batch in hand).
 */
const senderHeard = () => new Promise((resolve) => setTimeout(resolve, CAMPAIGN_STATE_MS));

/** Staff actions on the admin page. */
export async function changeCampaignState(
  ctx: Pick<SubscriptionContext, "db" | "tenant">,
  id: string,
  action: "pause" | "resume" | "cancel" | "send",
): Promise<CampaignRow> {
  const campaign = await getCampaignRow(ctx.db, ctx.tenant.id, id);
  const now = new Date().toISOString();
  const move = async (from: CampaignStatus[], to: CampaignStatus, extra = {}) => {
    const result = await ctx.db
      .updateTable("campaigns")
      .set({ status: to, updated_at: now, ...extra })
      .where("tenant_id", "=", ctx.tenant.id)
      .where("id", "=", id)
      .where("status", "in", from)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1)
      throw new CampaignError(`A ${campaign.status} campaign cannot be changed that way`, 409);
  };
  switch (action) {
    case "pause":
      await move(["sending"], "paused");
      await senderHeard();
      break;
    case "resume":
      await move(["paused"], "sending");
      break;
    case "send":
      await move(["draft", "scheduled"], "scheduled", { scheduled_at: now });
      await startCampaign(ctx.db, ctx.tenant.id, id);
      break;
    case "cancel":
      await ctx.db.transaction().execute(async (trx) => {
        const result = await trx
          .updateTable("campaigns")
          .set({ status: "cancelled", updated_at: now, finished_at: now })
          .where("tenant_id", "=", ctx.tenant.id)
          .where("id", "=", id)
          .where("status", "in", ["draft", "scheduled", "sending", "paused"])
          .executeTakeFirst();
        if (Number(result.numUpdatedRows) !== 1)
          throw new CampaignError(`A ${campaign.status} campaign cannot be cancelled`, 409);
        // What waits is never sent; rows a sender holds it cancels itself before their turn.
        await cancelPendingDeliveries(trx, ctx.tenant.id, { campaignId: id });
      });
      await senderHeard();
      break;
  }
  return getCampaignRow(ctx.db, ctx.tenant.id, id);
}

export interface CampaignProgress {
  total: number;
  sent: number;
  failed: number;
  pending: number;
  cancelled: number;
  /** messages a second over the last minute */
  rate: number;
  /** seconds left at that rate, when sending */
  secondsLeft: number | null;
}

export async function campaignProgress(db: Db, campaign: CampaignRow): Promise<CampaignProgress> {
  const counts = await db
    .selectFrom("deliveries")
    .select(["status", (eb) => eb.fn.countAll<number>().as("count")])
    .where("tenant_id", "=", campaign.tenant_id)
    .where("campaign_id", "=", campaign.id)
    .groupBy("status")
    .execute();
  const count = (status: string) => Number(counts.find((row) => row.status === status)?.count ?? 0);
  const since = new Date(Date.now() - 60_000).toISOString();
  const recent = await db
    .selectFrom("deliveries")
    .select((eb) => [eb.fn.countAll<number>().as("count"), eb.fn.min("sent_at").as("first")])
    .where("tenant_id", "=", campaign.tenant_id)
    .where("campaign_id", "=", campaign.id)
    .where("status", "=", "sent")
    .where("sent_at", ">=", since)
    .executeTakeFirstOrThrow();
  const recentCount = Number(recent.count);
  const window = recent.first
    ? Math.max(1, (Date.now() - Date.parse(String(recent.first))) / 1000)
    : 0;
  const rate = window ? recentCount / window : 0;
  const pending = count("pending") + count("sending");
  return {
    total: Number(campaign.total),
    sent: count("sent"),
    failed: count("failed"),
    pending,
    cancelled: count("cancelled"),
    rate: Math.round(rate * 10) / 10,
    secondsLeft: campaign.status === "sending" && rate > 0 ? Math.ceil(pending / rate) : null,
  };
}

export interface CampaignListItem {
  campaign: CampaignRow;
  progress: CampaignProgress;
}

/** SPEC §7 getCampaigns: limit 25, page 1 by default, optional status filter. */
export async function listCampaigns(
  ctx: Pick<SubscriptionContext, "db" | "tenant">,
  options: { limit?: number; page?: number; status?: CampaignStatus | null } = {},
): Promise<{ items: CampaignListItem[]; total: number; limit: number; page: number }> {
  const limit = Math.min(Math.max(Math.trunc(options.limit ?? 25), 1), 100);
  const page = Math.max(Math.trunc(options.page ?? 1), 1);
  // Welcome-sequence steps are listed with their list (/admin/lists/:id), not here.
  let query = ctx.db
    .selectFrom("campaigns")
    .where("tenant_id", "=", ctx.tenant.id)
    .where("sequence_list_id", "is", null);
  if (options.status) query = query.where("status", "=", options.status);
  const [{ total }, rows] = await Promise.all([
    query.select((eb) => eb.fn.countAll<number>().as("total")).executeTakeFirstOrThrow(),
    query
      .selectAll()
      .orderBy("created_at", "desc")
      .orderBy("id")
      .limit(limit)
      .offset((page - 1) * limit)
      .execute(),
  ]);
  const items = await Promise.all(
    rows.map(async (campaign) => ({
      campaign,
      progress: await campaignProgress(ctx.db, campaign),
    })),
  );
  return { items, total: Number(total), limit, page };
}

export interface CampaignReport {
  /** people's opens: machine opens (privacy proxies, scanners) are not among them */
  opens: { unique: number; total: number };
  /** recipients whose mail a machine opened (and nobody else, as far as anyone can tell) */
  machineOpens: number;
  clicks: { unique: number; total: number };
  unsubscribes: number;
  bounces: number;
  complaints: number;
  /** who bounced or complained (the first FEEDBACK_LIST_LIMIT, newest first) */
  feedback: { email: string; kind: "bounce" | "complaint"; at: string; detail: string | null }[];
  topLinks: { url: string; clicks: number; unique: number }[];
  /** events per hour since the start: [hour ISO, opens, clicks] */
  timeline: { hour: string; opens: number; clicks: number }[];
}

export const FEEDBACK_LIST_LIMIT = 200;

export async function campaignReport(db: Db, campaign: CampaignRow): Promise<CampaignReport> {
  const byKind = await db
    .selectFrom("campaign_events")
    .select([
      "kind",
      (eb) => eb.fn.countAll<number>().as("total"),
      (eb) => eb.fn.count<number>("delivery_id").distinct().as("unique"),
    ])
    .where("tenant_id", "=", campaign.tenant_id)
    .where("campaign_id", "=", campaign.id)
    .where("machine", "=", 0)
    .groupBy("kind")
    .execute();
  const kind = (name: string) => byKind.find((row) => row.kind === name);
  const machine = await db
    .selectFrom("campaign_events")
    .select((eb) => eb.fn.count<number>("delivery_id").distinct().as("unique"))
    .where("tenant_id", "=", campaign.tenant_id)
    .where("campaign_id", "=", campaign.id)
    .where("machine", "=", 1)
    .executeTakeFirstOrThrow();
  const links = await db
    .selectFrom("campaign_events")
    .select([
      "url",
      (eb) => eb.fn.countAll<number>().as("clicks"),
      (eb) => eb.fn.count<number>("delivery_id").distinct().as("unique"),
    ])
    .where("tenant_id", "=", campaign.tenant_id)
    .where("campaign_id", "=", campaign.id)
    .where("kind", "=", "click")
    .groupBy("url")
    .orderBy("clicks", "desc")
    .limit(10)
    .execute();
  // ISO text times on both databases: the first 13 characters are the hour.
  const hour = sql<string>`substr(created_at, 1, 13)`;
  const timeline = await db
    .selectFrom("campaign_events")
    .select([
      hour.as("hour"),
      (eb) =>
        eb.fn.sum<number>(eb.case().when("kind", "=", "open").then(1).else(0).end()).as("opens"),
      (eb) =>
        eb.fn.sum<number>(eb.case().when("kind", "=", "click").then(1).else(0).end()).as("clicks"),
    ])
    .where("tenant_id", "=", campaign.tenant_id)
    .where("campaign_id", "=", campaign.id)
    .where("kind", "in", ["open", "click"])
    .where("machine", "=", 0)
    .groupBy(hour)
    .orderBy(hour)
    .execute();
  const feedback = await db
    .selectFrom("deliveries")
    .select(["email", "bounced_at", "complained_at", "feedback"])
    .where("tenant_id", "=", campaign.tenant_id)
    .where("campaign_id", "=", campaign.id)
    .where((eb) => eb.or([eb("bounced_at", "is not", null), eb("complained_at", "is not", null)]))
    .orderBy("id")
    .limit(FEEDBACK_LIST_LIMIT)
    .execute();
  return {
    opens: { unique: Number(kind("open")?.unique ?? 0), total: Number(kind("open")?.total ?? 0) },
    machineOpens: Number(machine.unique ?? 0),
    clicks: {
      unique: Number(kind("click")?.unique ?? 0),
      total: Number(kind("click")?.total ?? 0),
    },
    unsubscribes: Number(kind("unsubscribe")?.unique ?? 0),
    bounces: Number(kind("bounce")?.unique ?? 0),
    complaints: Number(kind("complaint")?.unique ?? 0),
    feedback: feedback.map((row) => ({
      email: row.email,
      kind: row.complained_at ? ("complaint" as const) : ("bounce" as const),
      at: row.complained_at ?? row.bounced_at ?? "",
      detail: row.feedback,
    })),
    topLinks: links.map((row) => ({
      url: row.url ?? "",
      clicks: Number(row.clicks),
      unique: Number(row.unique),
    })),
    timeline: timeline.map((row) => ({
      hour: `${row.hour}:00:00.000Z`,
      opens: Number(row.opens),
      clicks: Number(row.clicks),
    })),
  };
}

export function messageSource(campaign: CampaignRow): CampaignMessageSource {
  return {
    id: campaign.id,
    newsletterId: campaign.newsletter_id,
    subject: campaign.subject,
    fromName: campaign.from_name,
    fromEmail: campaign.from_email,
    content: campaign.content,
    trackOpens: campaign.track_opens === 1,
    trackClicks: campaign.track_clicks === 1,
    links: JSON.parse(campaign.links) as string[],
    listIds: JSON.parse(campaign.list_ids) as number[],
    replyTo: campaign.reply_to ?? null,
  };
}

/** What the compose form shows before anything is saved: the real email, without tracking. */
export async function previewCampaign(
  ctx: SubscriptionContext,
  input: CampaignInput,
): Promise<{ subject: string; from: string; html: string; text: string }> {
  const valid = await validateCampaign(ctx, input);
  const prepared = await prepareCampaignMessage(ctx, {
    id: "preview",
    newsletterId: input.newsletterId ?? null,
    subject: valid.subject,
    fromName: valid.fromName,
    fromEmail: valid.fromEmail,
    content: valid.content,
    trackOpens: false,
    trackClicks: false,
    links: [],
    listIds: valid.lists.map((list) => list.id),
    replyTo: valid.replyTo,
  });
  // Sample links: the pages themselves, without a subscriber's token.
  const message = personalise(ctx, prepared, {
    deliveryId: 0,
    subscriberId: 0,
    email: "reader@example.com",
  });
  return {
    subject: message.subject,
    from: `${valid.fromName} <${valid.fromEmail}>`,
    html: message.html.replaceAll(
      /href="[^"]*\/preferences\/[^"]*"/g,
      `href="${tenantLink(ctx, "/subscription/preferences")}"`,
    ),
    text: message.text,
  };
}

/** The review before sending (issue 16, point 7): the real email, its audience and how many get it. */
export async function reviewCampaign(
  ctx: SubscriptionContext,
  input: CampaignInput,
): Promise<{
  subject: string;
  from: string;
  replyTo: string | null;
  html: string;
  lists: string[];
  /** the lists' ids, in order: what a confirmation must name to send to this audience */
  audience: string;
  recipients: number;
}> {
  const valid = await validateCampaign(ctx, input);
  const [preview, recipients] = await Promise.all([
    previewCampaign(ctx, input),
    countRecipients(
      ctx.db,
      ctx.tenant.id,
      await campaignAudience(ctx.db, ctx.tenant.id, {
        listIds: valid.lists.map((list) => list.id),
        segmentIds: valid.segments.map((segment) => segment.id),
      }),
    ),
  ]);
  const ids = (items: { id: number }[]) =>
    items
      .map((item) => item.id)
      .sort((a, b) => a - b)
      .join(",");
  return {
    subject: preview.subject,
    from: preview.from,
    replyTo: valid.replyTo || ctx.tenant.email.replyTo || null,
    html: preview.html,
    lists: [
      ...valid.lists.map((list) => list.name),
      ...valid.segments.map((segment) => `${segment.name} (segment)`),
    ],
    audience: valid.segments.length
      ? `${ids(valid.lists)}|${ids(valid.segments)}`
      : ids(valid.lists),
    recipients,
  };
}

/**
 * The review of a saved campaign (issue 32, finding 16): a draft's or scheduled campaign's "Send
 * now" shows the compose form's review, read from the campaign as saved, and sends only with the
 * audience and count that review showed.
 */
export function reviewSavedCampaign(ctx: SubscriptionContext, campaign: CampaignRow) {
  return reviewCampaign(ctx, {
    newsletterId: campaign.newsletter_id,
    subject: campaign.subject,
    content: campaign.content,
    senderName: campaign.from_name,
    senderEmail: campaign.from_email,
    replyTo: campaign.reply_to,
    groups: JSON.parse(campaign.list_ids) as number[],
    segments: JSON.parse(campaign.segment_ids) as number[],
    trackOpens: campaign.track_opens === 1,
    trackClicks: campaign.track_clicks === 1,
  });
}

/** 'Send a test to myself': the real message, to one staff address, marked as a test. */
export async function sendCampaignTest(
  ctx: SubscriptionContext,
  input: CampaignInput,
  to: string,
): Promise<void> {
  const preview = await previewCampaign(ctx, input);
  const valid = await validateCampaign(ctx, input);
  await sendMail(
    { db: ctx.db, transport: ctx.transport, logger: ctx.logger },
    {
      from: { name: valid.fromName, email: valid.fromEmail },
      to,
      subject: `[Test] ${preview.subject}`,
      html: preview.html,
      text: preview.text,
      headers: replyToHeader(valid.replyTo || ctx.tenant.email.replyTo),
      tenantId: ctx.tenant.id,
      kind: "campaign-test",
    },
    { retryLater: false },
  );
}

/** SPEC's Group fields per list: active subscribers, and sent / opened / clicked over its campaigns. */
export interface GroupStats {
  id: number;
  key: string;
  name: string;
  active_count: number;
  sent: number;
  opened: number;
  clicked: number;
}

export async function listGroupStats(
  ctx: Pick<SubscriptionContext, "db" | "tenant">,
): Promise<GroupStats[]> {
  const { db, tenant } = ctx;
  const lists = await listTenantLists(db, tenant);
  const active = await db
    .selectFrom("subscriptions")
    .innerJoin("subscribers", "subscribers.id", "subscriptions.subscriber_id")
    .select(["subscriptions.list_id", (eb) => eb.fn.countAll<number>().as("count")])
    .where("subscriptions.tenant_id", "=", tenant.id)
    .where("subscribers.tenant_id", "=", tenant.id)
    .where("subscribers.status", "=", "active")
    .groupBy("subscriptions.list_id")
    .execute();
  const campaigns = await db
    .selectFrom("campaigns")
    .select(["id", "list_ids"])
    .where("tenant_id", "=", tenant.id)
    .where("status", "in", ["sending", "paused", "sent", "failed", "cancelled"])
    .execute();
  const sent = await db
    .selectFrom("deliveries")
    .select(["campaign_id", (eb) => eb.fn.countAll<number>().as("count")])
    .where("tenant_id", "=", tenant.id)
    .where("status", "=", "sent")
    .groupBy("campaign_id")
    .execute();
  const events = await db
    .selectFrom("campaign_events")
    .select([
      "campaign_id",
      "kind",
      (eb) => eb.fn.count<number>("delivery_id").distinct().as("count"),
    ])
    .where("tenant_id", "=", tenant.id)
    .where("kind", "in", ["open", "click"])
    .where("machine", "=", 0)
    .groupBy(["campaign_id", "kind"])
    .execute();
  return lists.map((list) => {
    const mine = campaigns.filter((campaign) =>
      (JSON.parse(campaign.list_ids) as number[]).includes(list.id),
    );
    const sum = (rows: { campaign_id: string; count: number }[]) =>
      rows
        .filter((row) => mine.some((campaign) => campaign.id === row.campaign_id))
        .reduce((total, row) => total + Number(row.count), 0);
    return {
      id: list.id,
      key: list.key,
      name: list.name,
      active_count: Number(active.find((row) => row.list_id === list.id)?.count ?? 0),
      sent: sum(sent),
      opened: sum(events.filter((row) => row.kind === "open")),
      clicked: sum(events.filter((row) => row.kind === "click")),
    };
  });
}

/** One row of the campaign comparison (issue 16, point 8): rates are of the messages sent. */
export interface CampaignComparison {
  id: string;
  name: string;
  startedAt: string | null;
  sent: number;
  opened: number;
  clicked: number;
  unsubscribes: number;
  bounces: number;
}

/** The tenant's campaigns that went out, newest first, side by side (people's opens only). */
export async function compareCampaigns(
  ctx: Pick<SubscriptionContext, "db" | "tenant">,
  limit = 50,
): Promise<CampaignComparison[]> {
  const { db, tenant } = ctx;
  const campaigns = await db
    .selectFrom("campaigns")
    .select(["id", "name", "started_at"])
    .where("tenant_id", "=", tenant.id)
    .where("status", "in", ["sending", "paused", "sent", "failed", "cancelled"])
    .where("started_at", "is not", null)
    .where("sequence_list_id", "is", null)
    .orderBy("started_at", "desc")
    .limit(limit)
    .execute();
  if (campaigns.length === 0) return [];
  const ids = campaigns.map((campaign) => campaign.id);
  const [sent, events] = await Promise.all([
    db
      .selectFrom("deliveries")
      .select(["campaign_id", (eb) => eb.fn.countAll<number>().as("count")])
      .where("tenant_id", "=", tenant.id)
      .where("campaign_id", "in", ids)
      .where("status", "=", "sent")
      .groupBy("campaign_id")
      .execute(),
    db
      .selectFrom("campaign_events")
      .select([
        "campaign_id",
        "kind",
        (eb) => eb.fn.count<number>("delivery_id").distinct().as("count"),
      ])
      .where("tenant_id", "=", tenant.id)
      .where("campaign_id", "in", ids)
      .where("machine", "=", 0)
      .groupBy(["campaign_id", "kind"])
      .execute(),
  ]);
  const eventCount = (id: string, kind: string) =>
    Number(events.find((row) => row.campaign_id === id && row.kind === kind)?.count ?? 0);
  return campaigns.map((campaign) => ({
    id: campaign.id,
    name: campaign.name,
    startedAt: campaign.started_at,
    sent: Number(sent.find((row) => row.campaign_id === campaign.id)?.count ?? 0),
    opened: eventCount(campaign.id, "open"),
    clicked: eventCount(campaign.id, "click"),
    unsubscribes: eventCount(campaign.id, "unsubscribe"),
    bounces: eventCount(campaign.id, "bounce"),
  }));
}

/*
 * Welcome sequences (issue 16, point 6): each step is a campaign row naming its list, its place and
 * its delay in days. It stays 'sending' while the sequence runs (the engine never finishes it) and
 * is 'paused' while staff pause it; enrolSequenceSteps (deliveries.ts) queues it for each subscriber
 * of the list who joined after the step began, once their delay has passed.
 */

export interface SequenceStepInput {
  subject: string;
  content: string;
  delayDays: number;
  senderName?: string | null;
  senderEmail?: string | null;
}

export interface SequenceStep {
  id: string;
  position: number;
  delayDays: number;
  subject: string;
  status: CampaignStatus;
  startedAt: string | null;
}

export async function listSequenceSteps(
  db: Db,
  tenantId: string,
  listId: number,
): Promise<SequenceStep[]> {
  const rows = await db
    .selectFrom("campaigns")
    .select(["id", "sequence_position", "sequence_delay_days", "subject", "status", "started_at"])
    .where("tenant_id", "=", tenantId)
    .where("sequence_list_id", "=", listId)
    .where("status", "in", ["sending", "paused"])
    .orderBy("sequence_delay_days")
    .orderBy("sequence_position")
    .execute();
  return rows.map((row) => ({
    id: row.id,
    position: row.sequence_position ?? 0,
    delayDays: row.sequence_delay_days ?? 0,
    subject: row.subject,
    status: row.status,
    startedAt: row.started_at,
  }));
}

function checkDelay(delayDays: number): void {
  if (!Number.isInteger(delayDays) || delayDays < 0 || delayDays > 365) {
    throw new CampaignError("The delay must be a whole number of days from 0 to 365");
  }
}

/** Adds a step to a list's sequence; it starts at once, for people who join from now on. */
export async function createSequenceStep(
  ctx: SubscriptionContext,
  list: MailingList,
  input: SequenceStepInput,
  createdBy: string | null,
): Promise<CampaignRow> {
  checkDelay(input.delayDays);
  const valid = await validateCampaign(ctx, { ...input, groups: [list.key] });
  const existing = await listSequenceSteps(ctx.db, ctx.tenant.id, list.id);
  if (existing.length >= 20) throw new CampaignError("A sequence has at most 20 steps");
  const id = randomUUID();
  const stamp = new Date().toISOString();
  await ctx.db
    .insertInto("campaigns")
    .values({
      id,
      tenant_id: ctx.tenant.id,
      newsletter_id: null,
      ...campaignColumns(ctx, valid),
      status: "sending",
      scheduled_at: stamp,
      started_at: stamp,
      sequence_list_id: list.id,
      sequence_position: Math.max(0, ...existing.map((step) => step.position)) + 1,
      sequence_delay_days: input.delayDays,
      created_by: createdBy,
      created_at: stamp,
      updated_at: stamp,
    })
    .execute();
  return getCampaignRow(ctx.db, ctx.tenant.id, id);
}

async function requireStep(db: Db, tenantId: string, id: string): Promise<CampaignRow> {
  const row = await getCampaignRow(db, tenantId, id);
  if (row.sequence_list_id === null || !["sending", "paused"].includes(row.status)) {
    throw new CampaignError("Step not found", 404);
  }
  return row;
}

/** A step's new subject, content or delay: messages not yet queued use them. */
export async function updateSequenceStep(
  ctx: SubscriptionContext,
  id: string,
  list: MailingList,
  input: SequenceStepInput,
): Promise<void> {
  await requireStep(ctx.db, ctx.tenant.id, id);
  checkDelay(input.delayDays);
  const valid = await validateCampaign(ctx, { ...input, groups: [list.key] });
  await ctx.db
    .updateTable("campaigns")
    .set({
      ...campaignColumns(ctx, valid),
      sequence_delay_days: input.delayDays,
      updated_at: new Date().toISOString(),
    })
    .where("tenant_id", "=", ctx.tenant.id)
    .where("id", "=", id)
    .execute();
}

/** Pause (nothing more goes out, nobody is skipped: they get it on resume), resume, or stop. */
export async function changeSequenceStep(
  ctx: Pick<SubscriptionContext, "db" | "tenant">,
  id: string,
  action: "pause" | "resume" | "stop",
): Promise<void> {
  const step = await requireStep(ctx.db, ctx.tenant.id, id);
  const now = new Date().toISOString();
  const to: CampaignStatus =
    action === "pause" ? "paused" : action === "resume" ? "sending" : "cancelled";
  await ctx.db.transaction().execute(async (trx) => {
    await trx
      .updateTable("campaigns")
      .set({ status: to, updated_at: now, ...(action === "stop" ? { finished_at: now } : {}) })
      .where("tenant_id", "=", ctx.tenant.id)
      .where("id", "=", step.id)
      .execute();
    if (action === "stop") await cancelPendingDeliveries(trx, ctx.tenant.id, { campaignId: id });
  });
  await senderHeard();
}
