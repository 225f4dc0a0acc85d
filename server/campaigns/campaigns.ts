import { randomUUID } from "node:crypto";
import type { Db } from "../db";
import type { CampaignRow, CampaignStatus } from "../db/schema";
import { tenantDb } from "../db/tenant-guard";
import { setNewsletterSendState } from "../newsletters/newsletters";
import type { MailingList } from "../subscribers/lists";
import type { SubscriptionContext } from "../subscribers/subscribers";
import { abTestOf, queueTestShare } from "./ab-test";
import { audienceOf, getCampaignRow, senderHeard } from "./campaign-row";
import { type CampaignInput, campaignColumns, futureSendTime, validateCampaign } from "./compose";
import { cancelPendingDeliveries, queueDeliveries } from "./deliveries";
import { CampaignError } from "./errors";
import { refuseCampaignOverMonthlyMails } from "./mail-limit";
import {
  checkStepDelay,
  listSequenceSteps,
  requireRunningStep,
  type SequenceStepInput,
} from "./sequences";

/*
 * The one writer of `campaigns` (issue 13, point 3): campaigns and welcome sequence steps are made,
 * changed and run here; input checked in compose.ts, read in campaign-row, reports, overview, review.
 */

/**
 * Creates a campaign as a draft, as scheduled, or (SPEC §4: 'scheduled' with an immediate date)
 * sends it now: then the delivery rows are written at once and the worker picks them up.
 */
export async function createCampaign(
  ctx: SubscriptionContext,
  input: CampaignInput,
  createdBy: string | null,
): Promise<CampaignRow> {
  const db = tenantDb(ctx.db, ctx.tenant.id);
  const valid = await validateCampaign(ctx, input);
  const mode = input.mode ?? "now";
  const now = new Date();
  let scheduledAt: string | null = null;
  if (mode === "schedule") scheduledAt = futureSendTime(input.scheduledAt, now);
  else if (mode === "now") scheduledAt = now.toISOString();
  if (input.newsletterId) {
    const newsletter = await db
      .selectFrom("newsletters")
      .select("id")
      .where("id", "=", input.newsletterId)
      .executeTakeFirst();
    if (!newsletter)
      throw new CampaignError(`Newsletter with ID ${input.newsletterId} not found`, 404);
  }
  const columns = { ...campaignColumns(ctx, valid), tenant_id: ctx.tenant.id };
  await refuseCampaignOverMonthlyMails(db, columns, mode !== "draft");
  const id = randomUUID();
  const stamp = now.toISOString();
  await db
    .insertInto("campaigns")
    .values({
      id,
      newsletter_id: input.newsletterId ?? null,
      ...columns,
      status: mode === "draft" ? "draft" : "scheduled",
      scheduled_at: scheduledAt,
      created_by: createdBy,
      created_at: stamp,
      updated_at: stamp,
    })
    .execute();
  if (mode === "now") await startCampaign(db, ctx.tenant.id, id);
  return getCampaignRow(db, ctx.tenant.id, id);
}

/**
 * Edits a draft or scheduled campaign (issue 16, point 7): what, to whom, when. Conditional on the
 * status, so an edit that loses the race with the worker (it started) changes nothing and says so.
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
  const db = tenantDb(ctx.db, ctx.tenant.id);
  const campaign = await getCampaignRow(db, ctx.tenant.id, id);
  const editable: CampaignStatus[] = ["draft", "scheduled"];
  const started = () =>
    new CampaignError("This campaign has started sending; it can no longer be edited.", 409);
  if (!editable.includes(campaign.status)) throw started();
  let content = campaign.content;
  if (input.refreshContent && campaign.newsletter_id) {
    const newsletter = await db
      .selectFrom("newsletters")
      .select("content")
      .where("id", "=", campaign.newsletter_id)
      .executeTakeFirst();
    if (newsletter) content = newsletter.content;
  }
  const valid = await validateCampaign(ctx, { ...input, content });
  const now = new Date();
  const scheduledAt = input.mode === "schedule" ? futureSendTime(input.scheduledAt, now) : null;
  const columns = campaignColumns(ctx, valid);
  await refuseCampaignOverMonthlyMails(db, { ...campaign, ...columns }, input.mode === "schedule");
  const result = await db
    .updateTable("campaigns")
    .set({
      ...columns,
      status: input.mode === "draft" ? "draft" : "scheduled",
      scheduled_at: scheduledAt,
      updated_at: now.toISOString(),
    })
    .where("id", "=", id)
    .where("status", "in", editable)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) throw started();
  return getCampaignRow(db, ctx.tenant.id, id);
}

/**
 * Moves a scheduled campaign to 'sending' and writes one delivery row per active subscriber of its
 * lists (each once, however many of the lists they are on), all in one transaction. Only one caller
 * wins the move, so rows are written once even with several workers.
 */
export async function startCampaign(root: Db, tenantId: string, id: string): Promise<boolean> {
  const db = tenantDb(root, tenantId);
  return db.transaction().execute(async (trx) => {
    const now = new Date().toISOString();
    const moved = await trx
      .updateTable("campaigns")
      .set({ status: "sending", started_at: now, updated_at: now })
      .where("id", "=", id)
      .where("status", "=", "scheduled")
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) !== 1) return false;
    const campaign = await getCampaignRow(trx, tenantId, id);
    const queue = { tenantId, id, audience: await audienceOf(trx, campaign) };
    // An A/B test sends its test share now; the rest waits for the winner (ab-decision.ts).
    const test = abTestOf(campaign);
    const total = test
      ? await queueTestShare(trx, { ...queue, test }, now)
      : await queueDeliveries(trx, queue, now);
    const decideAt = test && new Date(Date.parse(now) + test.waitMinutes * 60_000).toISOString();
    await trx
      .updateTable("campaigns")
      .set({ total, ab_decide_at: decideAt || null })
      .where("id", "=", id)
      .execute();
    // A send to those who did not open leaves the newsletter naming its first campaign.
    if (campaign.newsletter_id && !campaign.unopened_of) {
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
  root: Db,
  campaign: {
    tenant_id: string;
    id: string;
    newsletter_id: string | null;
    unopened_of: string | null;
  },
): Promise<void> {
  const db = tenantDb(root, campaign.tenant_id);
  await db.transaction().execute(async (trx) => {
    const { sent, total } = await trx
      .selectFrom("deliveries")
      .select((eb) => [
        eb.fn.countAll<number>().as("total"),
        eb.fn.sum<number>(eb.case().when("status", "=", "sent").then(1).else(0).end()).as("sent"),
      ])
      .where("campaign_id", "=", campaign.id)
      .executeTakeFirstOrThrow();
    const now = new Date().toISOString();
    const status = Number(total) > 0 && Number(sent ?? 0) === 0 ? "failed" : "sent";
    const moved = await trx
      .updateTable("campaigns")
      .set({ status, finished_at: now, updated_at: now })
      .where("id", "=", campaign.id)
      .where("status", "=", "sending")
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) === 1 && campaign.newsletter_id && !campaign.unopened_of) {
      await setNewsletterSendState(trx, campaign.tenant_id, campaign.newsletter_id, {
        campaignId: campaign.id,
        status,
        sentAt: now,
      });
    }
  });
}

/**
 * An A/B test's winner, chosen once (ab-decision.ts): the update holds only while no winner is
 * set and the campaign still sends (or is paused), so of two workers deciding at once one writes;
 * then `queueRest` queues the remainder in the same transaction and the total is counted again.
 */
export async function recordAbWinner(
  trx: Db,
  campaign: { tenantId: string; id: string },
  winner: { variant: number; decision: string; statuses: readonly CampaignStatus[] },
  queueRest: () => Promise<number>,
): Promise<boolean> {
  const db = tenantDb(trx, campaign.tenantId);
  const now = new Date().toISOString();
  const chosen = await db
    .updateTable("campaigns")
    .set({ ab_winner: winner.variant, ab_decided_at: now, ab_decision: winner.decision })
    .where("id", "=", campaign.id)
    .where("ab_winner", "is", null)
    .where("status", "in", winner.statuses)
    .executeTakeFirst();
  if (Number(chosen.numUpdatedRows) !== 1) return false;
  const total = await queueRest();
  await db.updateTable("campaigns").set({ total }).where("id", "=", campaign.id).execute();
  return true;
}

/** Staff actions on the admin page. */
export async function changeCampaignState(
  ctx: Pick<SubscriptionContext, "db" | "tenant">,
  id: string,
  action: "pause" | "resume" | "cancel" | "send",
): Promise<CampaignRow> {
  const db = tenantDb(ctx.db, ctx.tenant.id);
  const campaign = await getCampaignRow(db, ctx.tenant.id, id);
  const now = new Date().toISOString();
  const move = async (from: CampaignStatus[], to: CampaignStatus, extra = {}) => {
    const result = await db
      .updateTable("campaigns")
      .set({ status: to, updated_at: now, ...extra })
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
      await refuseCampaignOverMonthlyMails(db, campaign, campaign.status !== "sending");
      await move(["draft", "scheduled"], "scheduled", { scheduled_at: now });
      await startCampaign(db, ctx.tenant.id, id);
      break;
    case "cancel":
      await db.transaction().execute(async (trx) => {
        const result = await trx
          .updateTable("campaigns")
          .set({ status: "cancelled", updated_at: now, finished_at: now })
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
  return getCampaignRow(db, ctx.tenant.id, id);
}

/**
 * "Send to those who did not open" (resend-unopened.ts): a draft of `original` as it was sent, to
 * those of its recipients who did not open it. One per original (a unique column): a second press
 * gets the first draft back.
 */
export async function createUnopenedDraft(
  root: Db,
  original: CampaignRow,
  createdBy: string | null,
): Promise<CampaignRow> {
  const db = tenantDb(root, original.tenant_id);
  const stamp = new Date().toISOString();
  await db
    .insertInto("campaigns")
    .values({
      id: randomUUID(),
      tenant_id: original.tenant_id,
      newsletter_id: original.newsletter_id,
      name: `${original.name} (to those who did not open)`.slice(0, 400),
      subject: original.subject,
      from_name: original.from_name,
      from_email: original.from_email,
      reply_to: original.reply_to,
      content: original.content,
      list_ids: original.list_ids,
      segment_ids: original.segment_ids,
      links: original.links,
      track_opens: original.track_opens,
      track_clicks: original.track_clicks,
      status: "draft",
      scheduled_at: null,
      unopened_of: original.id,
      created_by: createdBy,
      created_at: stamp,
      updated_at: stamp,
    })
    .onConflict((oc) => oc.column("unopened_of").doNothing())
    .execute();
  return db
    .selectFrom("campaigns")
    .selectAll()
    .where("unopened_of", "=", original.id)
    .executeTakeFirstOrThrow();
}

/** Adds a step to a list's sequence; it starts at once, for people who join from now on. */
export async function createSequenceStep(
  ctx: SubscriptionContext,
  list: MailingList,
  input: SequenceStepInput,
  createdBy: string | null,
): Promise<CampaignRow> {
  const db = tenantDb(ctx.db, ctx.tenant.id);
  checkStepDelay(input.delayDays);
  const valid = await validateCampaign(ctx, { ...input, groups: [list.key] });
  const existing = await listSequenceSteps(db, ctx.tenant.id, list.id);
  if (existing.length >= 20) throw new CampaignError("A sequence has at most 20 steps");
  const id = randomUUID();
  const stamp = new Date().toISOString();
  await db
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
  return getCampaignRow(db, ctx.tenant.id, id);
}

/** A step's new subject, content or delay: messages not yet queued use them. */
export async function updateSequenceStep(
  ctx: SubscriptionContext,
  id: string,
  list: MailingList,
  input: SequenceStepInput,
): Promise<void> {
  const db = tenantDb(ctx.db, ctx.tenant.id);
  await requireRunningStep(db, ctx.tenant.id, id);
  checkStepDelay(input.delayDays);
  const valid = await validateCampaign(ctx, { ...input, groups: [list.key] });
  await db
    .updateTable("campaigns")
    .set({
      ...campaignColumns(ctx, valid),
      sequence_delay_days: input.delayDays,
      updated_at: new Date().toISOString(),
    })
    .where("id", "=", id)
    .execute();
}

/** Pause (nothing more goes out, nobody is skipped: they get it on resume), resume, or stop. */
export async function changeSequenceStep(
  ctx: Pick<SubscriptionContext, "db" | "tenant">,
  id: string,
  action: "pause" | "resume" | "stop",
): Promise<void> {
  const db = tenantDb(ctx.db, ctx.tenant.id);
  const step = await requireRunningStep(db, ctx.tenant.id, id);
  const now = new Date().toISOString();
  const to: CampaignStatus =
    action === "pause" ? "paused" : action === "resume" ? "sending" : "cancelled";
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable("campaigns")
      .set({ status: to, updated_at: now, ...(action === "stop" ? { finished_at: now } : {}) })
      .where("id", "=", step.id)
      .execute();
    if (action === "stop") await cancelPendingDeliveries(trx, ctx.tenant.id, { campaignId: id });
  });
  await senderHeard();
}
