import { anonymiseDeliveries } from "../campaigns/deliveries";
import type { SubscriberStatus } from "../db/schema";
import { tenantDb } from "../db/tenant-guard";
import { forgetRecipients } from "../mail/send";
import { providerNameFor } from "../providers/choice";
import { pushUnsubscribe } from "../providers/mailerlite-mirror";
import { clearEvents, recordEvents } from "./events";
import { clearFieldValues } from "./fields";
import { listTenantLists } from "./lists";
import { ProfileError } from "./profiles";
import {
  chunks,
  eraseSubscriberRows,
  joinLists,
  leaveListMany,
  markUnsubscribed,
  type SubscriberChunkWrite,
  writeInChunks,
} from "./store";
import { listKeysBySubscriber, type SubscriptionContext } from "./subscribers";
import { anonymiseFeedback } from "./unsubscribe";

/*
 * Staff's bulk actions on a selection (issue 16, points 2 and 5): a list joined or left,
 * unsubscribing, and erasure (GDPR Art. 17), each one transaction with every change on the
 * subscribers' timelines.
 */

/**
 * A bulk action (issue 16, point 2): adds the subscribers to a list, or takes them off it, with
 * the change on each one's timeline. Answers how many changed.
 */
export async function changeListMembership(
  ctx: SubscriptionContext,
  by: string,
  ids: readonly number[],
  change: { listKey: string; action: "add" | "remove" },
): Promise<number> {
  if (providerNameFor(ctx.tenant) === "mailerlite") {
    throw new ProfileError(
      "This tenant's audience is in MailerLite: change lists there, or one subscriber at a time here.",
      409,
    );
  }
  const list = (await listTenantLists(ctx.db, ctx.tenant)).find(
    (each) => each.key === change.listKey,
  );
  if (!list || (change.action === "add" && list.archived)) {
    throw new ProfileError("Choose a list", 400, { list: ["Choose a list"] });
  }
  const members = new Set<number>();
  for (const part of chunks(ids)) {
    const rows = await tenantDb(ctx.db, ctx.tenant.id)
      .selectFrom("subscriptions")
      .select("subscriber_id")
      .where("list_id", "=", list.id)
      .where("subscriber_id", "in", part)
      .execute();
    for (const row of rows) members.add(Number(row.subscriber_id));
  }
  const targets = ids.filter((id) => (change.action === "add") !== members.has(id));
  const now = new Date().toISOString();
  await ctx.db.transaction().execute(async (trx) => {
    if (change.action === "add") {
      await joinLists(
        trx,
        ctx.tenant.id,
        targets.map((subscriberId) => ({ subscriberId, listId: list.id })),
        now,
      );
    } else {
      await leaveListMany(trx, ctx.tenant.id, list.id, targets);
    }
    await recordEvents(
      trx,
      ctx.tenant.id,
      targets.map((subscriberId) => ({
        subscriberId,
        kind: "lists-changed" as const,
        detail: {
          by,
          added: change.action === "add" ? [list.key] : [],
          removed: change.action === "remove" ? [list.key] : [],
        },
      })),
      now,
    );
  });
  return targets.length;
}

/** The subscribers (not erased) of a selection, read in chunks: a selection may be large. */
async function selectedRows(ctx: SubscriptionContext, ids: readonly number[]) {
  const rows: { id: number; email: string; status: SubscriberStatus }[] = [];
  for (const part of chunks(ids)) {
    rows.push(
      ...(await tenantDb(ctx.db, ctx.tenant.id)
        .selectFrom("subscribers")
        .select(["id", "email", "status"])
        .where("id", "in", part)
        .where("erased_at", "is", null)
        .execute()),
    );
  }
  return rows;
}

/** Staff unsubscribe someone (they asked by mail, say): off every list, on their timeline. */
export async function unsubscribeByStaff(
  ctx: SubscriptionContext,
  by: string,
  ids: readonly number[],
): Promise<number> {
  const rows = (await selectedRows(ctx, ids)).filter(
    (row) => row.status === "active" || row.status === "unconfirmed",
  );
  const listKeys = await listKeysBySubscriber(
    ctx,
    rows.map((row) => row.id),
  );
  for (const row of rows) {
    await pushUnsubscribe(ctx, row.email, "Failed to unsubscribe. Please try again.");
  }
  const now = new Date().toISOString();
  await ctx.db.transaction().execute(async (trx) => {
    for (const row of rows) {
      await markUnsubscribed(trx, ctx.tenant.id, row.id, now);
    }
    await recordEvents(
      trx,
      ctx.tenant.id,
      rows.map((row) => ({
        subscriberId: row.id,
        kind: "unsubscribed" as const,
        detail: { via: "staff" as const, by, lists: listKeys.get(row.id) ?? [] },
      })),
      now,
    );
  });
  return rows.length;
}

/**
 * What erasure does to the other tables that keep a subscriber's id, each written by its owner: the
 * deliveries and the unsubscribe feedback become anonymous, field values and timelines go.
 */
const ERASE_ELSEWHERE: readonly SubscriberChunkWrite[] = [
  anonymiseDeliveries,
  anonymiseFeedback,
  clearFieldValues,
  clearEvents,
];

/**
 * Erases subscribers (GDPR Art. 17), in one transaction: address, name, field values, timeline and
 * consent record, pending changes, the mail sent to them and their feedback's free text go; their
 * deliveries and opens stay as anonymous counts. MailerLite is told to unsubscribe them first.
 */
export async function eraseSubscribers(
  ctx: SubscriptionContext,
  ids: readonly number[],
): Promise<number> {
  const rows = await selectedRows(ctx, ids);
  for (const row of rows.filter((each) => each.status === "active")) {
    await pushUnsubscribe(ctx, row.email, "Failed to unsubscribe. Please try again.");
  }
  const found = rows.map((row) => row.id);
  const now = new Date().toISOString();
  await ctx.db.transaction().execute(async (trx) => {
    await forgetRecipients(
      trx,
      ctx.tenant.id,
      rows.map((row) => row.email),
    );
    for (const erase of ERASE_ELSEWHERE) await writeInChunks(trx, ctx.tenant.id, found, erase);
    await eraseSubscriberRows(trx, ctx.tenant.id, found, now);
  });
  ctx.logger.info({ tenantId: ctx.tenant.id, count: found.length }, "subscribers erased");
  return found.length;
}
