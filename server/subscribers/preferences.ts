import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Db } from "../db";
import type { SubscriberStatus } from "../db/schema";
import { tenantDb } from "../db/tenant-guard";
import { MailNotSentError } from "../mail/send";
import { pushMembership, pushUnsubscribe } from "../providers/mailerlite-mirror";
import { MESSAGES, SubscriptionError } from "./errors";
import { recordEvent } from "./events";
import { PENDING_CHANGE_LIFETIME_MS, subscriberLinks, tenantLink } from "./links";
import { listTenantLists, offeredLists, resolveLists } from "./lists";
import {
  dropPendingChanges,
  findPendingChange,
  replaceLists,
  savePendingChange,
  spendPendingChange,
  updateSubscriber,
} from "./store";
import { mailSubscriber } from "./subscriber-mail";
import {
  findSubscriber,
  findSubscriberRow,
  getSubscriberById,
  listKeysOfSubscriber,
  type SubscriberView,
  type SubscriptionContext,
} from "./subscribers";

/*
 * The preference centre's change of lists (SPEC §4): asked for on the page, applied only through
 * the single-use link mailed to the address.
 */

const sha256 = (text: string) => createHash("sha256").update(text).digest();

/**
 * SPEC §4 preference flow, step 1: store the wanted change with a hashed, single-use token that
 * lives 24 hours (one per subscriber; a new request replaces the old one) and email the link.
 */
export async function requestPreferenceChange(
  ctx: SubscriptionContext,
  input: { email: string; activeLists: readonly string[] },
): Promise<void> {
  const subscriber = await findSubscriber(ctx, input.email);
  if (!subscriber) throw new SubscriptionError(MESSAGES.notFound, 404);
  // The centre offers public lists only: memberships of private or archived lists stay as they
  // are, unless nothing is chosen, which unsubscribes from everything.
  const all = await listTenantLists(ctx.db, ctx.tenant);
  const offered = offeredLists(all);
  const chosen = resolveLists(offered, input.activeLists).map((list) => list.key);
  const kept = subscriber.lists.filter((key) => !offered.some((list) => list.key === key));
  const wanted = chosen.length > 0 ? [...chosen, ...kept] : [];
  const inactive = all.map((list) => list.key).filter((key) => !wanted.includes(key));
  const token = randomBytes(32).toString("base64url");
  const now = Date.now();
  await savePendingChange(ctx.db, ctx.tenant.id, subscriber.id, {
    tokenHash: sha256(token).toString("hex"),
    activeLists: wanted,
    inactiveLists: inactive,
    createdAt: new Date(now).toISOString(),
    expiresAt: new Date(now + PENDING_CHANGE_LIFETIME_MS).toISOString(),
  });
  const name = (key: string) => all.find((list) => list.key === key)?.name ?? key;
  const verifyUrl = tenantLink(
    ctx,
    `/subscription/preferences?email=${encodeURIComponent(subscriber.email)}&token=${token}`,
  );
  try {
    // Not retried later: the change is dropped below, so a late copy would carry a dead link.
    await mailSubscriber(
      ctx,
      subscriber.email,
      {
        kind: "verification",
        verifyUrl,
        joining: wanted.filter((key) => !subscriber.lists.includes(key)).map(name),
        leaving: subscriber.lists.filter((key) => !wanted.includes(key)).map(name),
      },
      {},
      { retryLater: false },
    );
  } catch (error) {
    // Nothing half-done: a change whose link never left is dropped.
    await dropPendingChanges(ctx.db, ctx.tenant.id, [subscriber.id]);
    if (error instanceof MailNotSentError)
      throw new SubscriptionError(MESSAGES.verificationNotSent, 503);
    throw error;
  }
}

/** The pending change a preference link may apply: it exists, is unused, unexpired and its token. */
async function checkPendingChange(
  db: Db,
  tenantId: string,
  subscriberId: number,
  token: string,
  now: Date,
): Promise<{ wanted: string[] } | { error: string }> {
  const pending = await findPendingChange(db, tenantId, subscriberId);
  if (!pending || pending.used_at) return { error: "No pending changes found" };
  if (pending.expires_at <= now.toISOString()) return { error: "Pending changes have expired" };
  const expected = Buffer.from(pending.token_hash, "hex");
  const actual = sha256(token);
  if (expected.length !== actual.length || !timingSafeEqual(expected, actual))
    return { error: "Invalid token" };
  return { wanted: JSON.parse(pending.active_lists) as string[] };
}

/**
 * Step 2: the link's token is checked (hash, unused, unexpired, this subscriber), the change is
 * applied and the token spent in one transaction, then the confirmation email goes out.
 */
export async function applyPreferenceChange(
  ctx: SubscriptionContext,
  input: { email: string; token: string },
  now = new Date(),
): Promise<SubscriberView> {
  const subscriber = await findSubscriberRow(ctx, { email: input.email });
  if (!subscriber) throw new SubscriptionError(MESSAGES.invalidLink);
  const refuse = (reason: string) => {
    ctx.logger.info({ subscriberId: subscriber.id, reason }, "preference link refused");
    return new SubscriptionError(MESSAGES.invalidLink);
  };
  // Checked before MailerLite hears of it, and again below where the token is spent.
  const before = await checkPendingChange(ctx.db, ctx.tenant.id, subscriber.id, input.token, now);
  if ("error" in before) throw refuse(before.error);
  if (before.wanted.length > 0) {
    await pushMembership(
      ctx,
      { email: subscriber.email, lists: before.wanted, replace: true },
      MESSAGES.failed,
    );
  } else {
    await pushUnsubscribe(ctx, subscriber.email, MESSAGES.failed);
  }
  // The lists they were on, for the timeline and growth per list.
  const listsBefore = await listKeysOfSubscriber(ctx, subscriber.id);
  const applied = await tenantDb(ctx.db, ctx.tenant.id)
    .transaction()
    .execute(async (trx) => {
      const pending = await checkPendingChange(trx, ctx.tenant.id, subscriber.id, input.token, now);
      if ("error" in pending) return pending;
      const { wanted } = pending;
      const lists = await trx.selectFrom("lists").select(["id", "key"]).execute();
      const wantedIds = lists.filter((list) => wanted.includes(list.key)).map((list) => list.id);
      const stamp = now.toISOString();
      await replaceLists(trx, ctx.tenant.id, subscriber.id, wantedIds, stamp);
      const status: SubscriberStatus = wantedIds.length > 0 ? "active" : "unsubscribed";
      await updateSubscriber(
        trx,
        ctx.tenant.id,
        subscriber.id,
        {
          status,
          subscribed_at:
            status === "active" ? (subscriber.subscribed_at ?? stamp) : subscriber.subscribed_at,
          unsubscribed_at: status === "unsubscribed" ? stamp : null,
        },
        stamp,
      );
      await spendPendingChange(trx, ctx.tenant.id, subscriber.id, stamp);
      await recordEvent(
        trx,
        ctx.tenant.id,
        status === "active"
          ? {
              subscriberId: subscriber.id,
              kind: "preferences-changed",
              detail: {
                lists: wanted,
                added: wanted.filter((key) => !listsBefore.includes(key)),
                removed: listsBefore.filter((key) => !wanted.includes(key)),
              },
            }
          : {
              subscriberId: subscriber.id,
              kind: "unsubscribed",
              detail: { via: "preference-centre", lists: listsBefore },
            },
        stamp,
      );
      return { ok: true as const };
    });
  if ("error" in applied) throw refuse(applied.error);
  const view = (await getSubscriberById(ctx, subscriber.id)) as SubscriberView;
  const all = await listTenantLists(ctx.db, ctx.tenant);
  try {
    await mailSubscriber(ctx, view.email, {
      kind: "confirmation",
      listNames: all.filter((list) => view.lists.includes(list.key)).map((list) => list.name),
      links: subscriberLinks(ctx, view),
    });
  } catch (error) {
    // The change stands; the confirmation is retried from mail_log.
    if (!(error instanceof MailNotSentError)) throw error;
  }
  return view;
}
