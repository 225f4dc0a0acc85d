import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { FEEDBACK_REASONS } from "../../shared/schemas/unsubscribe";
import { isSuppressed } from "../campaigns/bounces";
import { recordUnsubscribe } from "../campaigns/tracking";
import type { Db } from "../db";
import type { SubscriberRow, SubscriberStatus } from "../db/schema";
import { type EmailContent, renderEmail } from "../emails/templates";
import { replyToHeader } from "../mail/headers";
import { MailNotSentError, sendMail } from "../mail/send";
import { signToken, verifyToken } from "../mail/tokens";
import { pullSubscriber, pushMembership, pushUnsubscribe } from "../providers/mailerlite-mirror";
import type { Scope } from "../scope";
import { DEFAULT_TENANT_ID } from "../tenants/resolve";
import { MESSAGES, SubscriptionError } from "./errors";
import { recordEvent, type SubscriberEventDetail } from "./events";
import { listTenantLists, offeredLists, resolveLists, sendableLists } from "./lists";
import {
  dropPendingChanges,
  findPendingChange,
  insertSubscriber,
  joinLists,
  markUnsubscribed,
  replaceLists,
  savePendingChange,
  spendPendingChange,
  updateSubscriber,
} from "./store";

/** Everything a subscription operation needs: the tenant, its database, its mail and its links. */
export type SubscriptionContext = Pick<
  Scope,
  "db" | "logger" | "transport" | "tenant" | "origin" | "sessionSecret"
>;

export const PENDING_CHANGE_LIFETIME_MS = 86_400_000; // SPEC §9: 24 hours

export interface SubscriberView {
  id: number;
  email: string;
  name: string;
  status: SubscriberStatus;
  subscribedAt: string | null;
  /** keys of the lists the subscriber is on */
  lists: string[];
}

export function normaliseSubscriberEmail(email: string): string {
  return email.trim().toLowerCase();
}

const sha256 = (text: string) => createHash("sha256").update(text).digest();

/** How a subscriber is named: by address (normalised here) or by id. */
type SubscriberKey = { email: string } | { subscriberId: number };

async function findRow(
  ctx: SubscriptionContext,
  who: SubscriberKey,
): Promise<SubscriberRow | undefined> {
  const query = ctx.db
    .selectFrom("subscribers")
    .selectAll()
    .where("tenant_id", "=", ctx.tenant.id)
    .where("erased_at", "is", null);
  return (
    "email" in who
      ? query.where("email", "=", normaliseSubscriberEmail(who.email))
      : query.where("id", "=", who.subscriberId)
  ).executeTakeFirst();
}

async function listKeysOf(ctx: SubscriptionContext, subscriberId: number): Promise<string[]> {
  const rows = await ctx.db
    .selectFrom("subscriptions")
    .innerJoin("lists", "lists.id", "subscriptions.list_id")
    .select("lists.key")
    .where("subscriptions.tenant_id", "=", ctx.tenant.id)
    .where("subscriptions.subscriber_id", "=", subscriberId)
    .where("lists.tenant_id", "=", ctx.tenant.id)
    .orderBy("lists.id")
    .execute();
  return rows.map((row) => row.key);
}

function toView(row: SubscriberRow, lists: string[]): SubscriberView {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    status: row.status,
    subscribedAt: row.subscribed_at,
    lists,
  };
}

export async function findSubscriber(
  ctx: SubscriptionContext,
  email: string,
): Promise<SubscriberView | null> {
  await pullSubscriber(ctx, email, MESSAGES.loadFailed);
  const row = await findRow(ctx, { email });
  return row ? toView(row, await listKeysOf(ctx, row.id)) : null;
}

export async function getSubscriberById(
  ctx: SubscriptionContext,
  id: number,
): Promise<SubscriberView | null> {
  const row = await findRow(ctx, { subscriberId: id });
  return row ? toView(row, await listKeysOf(ctx, row.id)) : null;
}

/**
 * An absolute link to a page of this tenant's site. A tenant without a domain shares APP_URL with
 * the default tenant, so its links name it with `subdomain=` (which selects it on localhost; on a
 * real host the tenant comes from the host name anyway).
 */
export function tenantLink(
  ctx: Pick<SubscriptionContext, "origin" | "tenant">,
  path: string,
): string {
  const url = new URL(path, ctx.origin);
  if (!ctx.tenant.domain && ctx.tenant.id !== DEFAULT_TENANT_ID)
    url.searchParams.set("subdomain", ctx.tenant.id);
  return url.toString();
}

/** Links that go into every list mail: the preference page for this subscriber, and one-click unsubscribe. */
export function subscriberLinks(
  ctx: SubscriptionContext,
  subscriber: { id: number; email: string },
) {
  const token = (purpose: "preferences" | "unsubscribe") =>
    signToken(ctx.sessionSecret, { purpose, tenantId: ctx.tenant.id, subscriberId: subscriber.id });
  const unsubscribeToken = token("unsubscribe");
  return {
    preferencesUrl: tenantLink(ctx, `/preferences/${token("preferences")}`),
    unsubscribeUrl: tenantLink(ctx, unsubscribePath(subscriber.email, unsubscribeToken)),
    oneClickUrl: tenantLink(ctx, `/subscription/one-click/${unsubscribeToken}`),
  };
}

/** SPEC's fixed unsubscribe link, signed: the page unsubscribes the token's subscriber in one step. */
const unsubscribePath = (email: string, token: string) =>
  `/unsubscribe?${new URLSearchParams({ email, token })}`;

/** How long a link sent from the unsubscribe or preference page works (SPEC §9's 24 hours). */
export const SUBSCRIBER_LINK_LIFETIME_MS = 86_400_000;

/**
 * The subscriber a signed link names (its purpose, this tenant, not expired), or null. Signed links
 * are the only way a visitor reaches a subscriber's status or lists (docs/decisions/015-subscriber-privacy.md).
 */
export async function subscriberFromToken(
  ctx: SubscriptionContext,
  token: string | null | undefined,
  purpose: "unsubscribe" | "preferences" | "confirm-signup",
): Promise<SubscriberView | null> {
  const payload = verifyToken(ctx.sessionSecret, token, purpose);
  if (!payload || payload.tenantId !== ctx.tenant.id) return null;
  return getSubscriberById(ctx, payload.subscriberId);
}

/** A preference-centre path for a subscriber who has just proved who they are (24 hours). */
export function signedPreferencesPath(ctx: SubscriptionContext, subscriberId: number): string {
  const token = signToken(ctx.sessionSecret, {
    purpose: "preferences",
    tenantId: ctx.tenant.id,
    subscriberId,
    expiresAt: Date.now() + SUBSCRIBER_LINK_LIFETIME_MS,
  });
  return `/preferences/${token}`;
}

/**
 * The unsubscribe and preference pages' answer to a typed address: that address gets a signed link
 * (to confirm the unsubscribe, or to its preference centre) when it is a subscriber here — an active
 * one, for unsubscribing — and nothing happens otherwise. The page says the same words either way,
 * so it tells nobody who is subscribed. Returns whether a link went out (for logs and tests only).
 */
export async function mailSubscriberLink(
  ctx: SubscriptionContext,
  input: { email: string; purpose: "unsubscribe" | "preferences" },
): Promise<boolean> {
  const subscriber = await findSubscriber(ctx, input.email);
  if (!subscriber || (input.purpose === "unsubscribe" && subscriber.status !== "active")) {
    return false;
  }
  const token = signToken(ctx.sessionSecret, {
    purpose: input.purpose,
    tenantId: ctx.tenant.id,
    subscriberId: subscriber.id,
    expiresAt: Date.now() + SUBSCRIBER_LINK_LIFETIME_MS,
  });
  const url = tenantLink(
    ctx,
    input.purpose === "unsubscribe"
      ? unsubscribePath(subscriber.email, token)
      : `/preferences/${token}`,
  );
  await mailTo(ctx, subscriber.email, { kind: `${input.purpose}-link`, url });
  return true;
}

/** RFC 8058 headers for list mail: a signed one-click URL and a mailto. */
export function listUnsubscribeHeaders(
  ctx: SubscriptionContext,
  subscriber: { id: number; email: string },
  // The sender has the links already: signing them again costs a campaign 2 HMACs a message.
  { oneClickUrl }: { oneClickUrl: string } = subscriberLinks(ctx, subscriber),
) {
  return {
    "List-Unsubscribe": `<${oneClickUrl}>, <mailto:${ctx.tenant.email.senderEmail}?subject=unsubscribe>`,
    "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
  };
}

/**
 * Mails a subscriber of this tenant, unless the address is suppressed (bounced or complained): then
 * nothing is sent and the caller answers as it would anyway. The confirmation link of a new sign-up
 * is the one exception, because confirming it is how a suppressed address comes back.
 */
async function mailTo(
  ctx: SubscriptionContext,
  to: string,
  content: EmailContent,
  headers: Record<string, string> = {},
  options: { retryLater?: boolean } = {},
): Promise<void> {
  if (content.kind !== "confirm-signup") {
    const row = await findRow(ctx, { email: to });
    if (row && isSuppressed(row.status)) {
      ctx.logger.info(
        { subscriberId: row.id, status: row.status, kind: content.kind },
        "mail to a suppressed address not sent",
      );
      return;
    }
  }
  const email = await renderEmail(ctx.tenant, content, ctx.origin);
  await sendMail(
    { db: ctx.db, transport: ctx.transport, logger: ctx.logger },
    {
      ...email,
      to,
      headers: { ...replyToHeader(ctx.tenant.email.replyTo), ...headers },
      tenantId: ctx.tenant.id,
      kind: content.kind,
    },
    options,
  );
}

/**
 * SPEC's completeNewsletterSignup: creates or reactivates the subscriber, joins the lists and sends
 * the welcome email — or, with the tenant's doubleOptIn, a confirmation link first. The answer is the
 * same whether or not the address was known.
 */
export async function signUp(
  ctx: SubscriptionContext,
  input: {
    email: string;
    name?: string;
    lists?: readonly (string | number)[];
    /** how they signed up, kept on their timeline as consent evidence (issue 16, point 3) */
    consent?: SubscriberEventDetail["signed-up"];
  },
): Promise<{
  outcome: "subscribed" | "confirmation-sent" | "already-subscribed";
  subscriberId: number;
}> {
  const email = normaliseSubscriberEmail(input.email);
  const staffInvite = input.consent?.source === "staff";
  // Visitors join public lists only (issue 16, point 1); staff invite people to private ones too.
  const all = (staffInvite ? sendableLists : offeredLists)(
    await listTenantLists(ctx.db, ctx.tenant),
  );
  const requested = input.lists?.length ? input.lists : [ctx.tenant.emailGroups.default];
  const lists = resolveLists(all, requested);
  if (lists.length === 0) throw new SubscriptionError(MESSAGES.noGroups);
  const now = new Date().toISOString();
  const known = await findRow(ctx, { email });
  // A suppressed address (bounced, complained) comes back only through the emailed confirmation.
  const doubleOptIn =
    staffInvite || ctx.tenant.features.doubleOptIn || (known ? isSuppressed(known.status) : false);
  if (known?.status === "active" || !doubleOptIn) {
    await pushMembership(
      ctx,
      { email, name: input.name, lists: lists.map((list) => list.key), replace: false },
      MESSAGES.failed,
    );
  }

  const { subscriberId, wasActive } = await ctx.db.transaction().execute(async (trx) => {
    const existing = await trx
      .selectFrom("subscribers")
      .selectAll()
      .where("tenant_id", "=", ctx.tenant.id)
      .where("email", "=", email)
      .executeTakeFirst();
    let id: number;
    if (existing) {
      id = existing.id;
      // A suppressed subscriber stays suppressed until the confirmation link is opened.
      const nextStatus: SubscriberStatus =
        existing.status === "active" || isSuppressed(existing.status)
          ? existing.status
          : doubleOptIn
            ? "unconfirmed"
            : "active";
      await updateSubscriber(
        trx,
        ctx.tenant.id,
        id,
        {
          status: nextStatus,
          name: input.name?.trim() || existing.name,
          subscribed_at:
            nextStatus === "active" && existing.status !== "active" ? now : existing.subscribed_at,
          unsubscribed_at: nextStatus === "active" ? null : existing.unsubscribed_at,
        },
        now,
      );
    } else {
      id = await insertSubscriber(
        trx,
        ctx.tenant.id,
        {
          email,
          name: input.name?.trim() ?? "",
          status: doubleOptIn ? "unconfirmed" : "active",
          subscribed_at: doubleOptIn ? null : now,
          unsubscribed_at: null,
        },
        now,
      );
    }
    const subscriberId = id;
    await joinLists(
      trx,
      ctx.tenant.id,
      lists.map((list) => ({ subscriberId, listId: list.id })),
      now,
    );
    if (existing?.status !== "active") {
      await recordEvent(trx, ctx.tenant.id, {
        subscriberId,
        kind: "signed-up",
        detail: {
          source: "form",
          ...input.consent,
          lists: lists.map((list) => list.key),
          active: !doubleOptIn,
        },
      });
    }
    return { subscriberId: id, wasActive: existing?.status === "active" };
  });

  if (wasActive) return { outcome: "already-subscribed", subscriberId };
  const listNames = lists.map((list) => list.name);
  if (doubleOptIn) {
    const token = signToken(ctx.sessionSecret, {
      purpose: "confirm-signup",
      tenantId: ctx.tenant.id,
      subscriberId,
      expiresAt: Date.now() + 7 * PENDING_CHANGE_LIFETIME_MS,
    });
    await mailTo(ctx, email, {
      kind: "confirm-signup",
      confirmUrl: tenantLink(ctx, `/subscription/confirm/${token}`),
      listNames,
    });
    return { outcome: "confirmation-sent", subscriberId };
  }
  const links = subscriberLinks(ctx, { id: subscriberId, email });
  await mailTo(
    ctx,
    email,
    { kind: "welcome", listNames, links },
    listUnsubscribeHeaders(ctx, { id: subscriberId, email }),
  );
  return { outcome: "subscribed", subscriberId };
}

/** Double opt-in: the emailed link activates the subscriber and sends the welcome email. */
export async function confirmSignup(
  ctx: SubscriptionContext,
  subscriberId: number,
): Promise<SubscriberView> {
  const row = await findRow(ctx, { subscriberId });
  if (!row) throw new SubscriptionError(MESSAGES.invalidLink, 404);
  if (row.status === "unconfirmed" || isSuppressed(row.status)) {
    await pushMembership(
      ctx,
      { email: row.email, name: row.name, lists: await listKeysOf(ctx, row.id), replace: false },
      MESSAGES.failed,
    );
    const now = new Date().toISOString();
    const lists = await listKeysOf(ctx, row.id);
    await ctx.db.transaction().execute(async (trx) => {
      await updateSubscriber(
        trx,
        ctx.tenant.id,
        row.id,
        { status: "active", subscribed_at: now, unsubscribed_at: null },
        now,
      );
      await recordEvent(trx, ctx.tenant.id, {
        subscriberId: row.id,
        kind: "confirmed",
        detail: { lists },
      });
    });
    const all = await listTenantLists(ctx.db, ctx.tenant);
    const keys = await listKeysOf(ctx, row.id);
    const listNames = all.filter((list) => keys.includes(list.key)).map((list) => list.name);
    const links = subscriberLinks(ctx, row);
    try {
      await mailTo(
        ctx,
        row.email,
        { kind: "welcome", listNames, links },
        listUnsubscribeHeaders(ctx, row),
      );
    } catch (error) {
      // The subscription is confirmed either way; the welcome mail is retried from mail_log.
      if (!(error instanceof MailNotSentError)) throw error;
    }
  }
  return (await getSubscriberById(ctx, row.id)) as SubscriberView;
}

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
    await mailTo(
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
  const subscriber = await findRow(ctx, { email: input.email });
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
  const listsBefore = await listKeysOf(ctx, subscriber.id);
  const applied = await ctx.db.transaction().execute(async (trx) => {
    const pending = await checkPendingChange(trx, ctx.tenant.id, subscriber.id, input.token, now);
    if ("error" in pending) return pending;
    const { wanted } = pending;
    const lists = await trx
      .selectFrom("lists")
      .select(["id", "key"])
      .where("tenant_id", "=", ctx.tenant.id)
      .execute();
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
    await mailTo(ctx, view.email, {
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

/** SPEC §5: the subscriber must exist and be active; afterwards they are on no list. */
export async function unsubscribe(
  ctx: SubscriptionContext,
  who: SubscriberKey,
): Promise<SubscriberView> {
  const row = await findRow(ctx, who);
  if (!row) throw new SubscriptionError(MESSAGES.notFound, 404);
  if (row.status !== "active") throw new SubscriptionError(MESSAGES.notActive, 409);
  await pushUnsubscribe(ctx, row.email, MESSAGES.unsubscribeFailed);
  const now = new Date().toISOString();
  const lists = await listKeysOf(ctx, row.id);
  await ctx.db.transaction().execute(async (trx) => {
    await markUnsubscribed(trx, ctx.tenant.id, row.id, now);
    await recordUnsubscribe(trx, ctx.tenant.id, row.id, now);
    await recordEvent(
      trx,
      ctx.tenant.id,
      { subscriberId: row.id, kind: "unsubscribed", detail: { via: "link", lists } },
      now,
    );
  });
  return { ...toView(row, []), status: "unsubscribed" };
}

export { FEEDBACK_REASONS };

/**
 * The feedback form's answer, once per unsubscribe (the unique index of migration 0016 holds it
 * even for two answers at once). False when this unsubscribe already has its answer.
 */
export async function recordUnsubscribeFeedback(
  ctx: SubscriptionContext,
  input: {
    subscriberId: number;
    reason: (typeof FEEDBACK_REASONS)[number];
    details?: string;
  },
): Promise<boolean> {
  const subscriber = await ctx.db
    .selectFrom("subscribers")
    .select("unsubscribed_at")
    .where("tenant_id", "=", ctx.tenant.id)
    .where("id", "=", input.subscriberId)
    .executeTakeFirst();
  const unsubscribedAt = subscriber?.unsubscribed_at ?? null;
  if (!unsubscribedAt) return false;
  const inserted = await ctx.db
    .insertInto("unsubscribe_feedback")
    .values({
      tenant_id: ctx.tenant.id,
      subscriber_id: input.subscriberId,
      reason: input.reason,
      details: input.reason === "Other" ? (input.details?.trim() ?? null) : null,
      unsubscribed_at: unsubscribedAt,
      created_at: new Date().toISOString(),
    })
    .onConflict((conflict) =>
      conflict.columns(["tenant_id", "subscriber_id", "unsubscribed_at"]).doNothing(),
    )
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** Unsubscribe answers of erased subscribers: the reason stays as an anonymous count. */
export async function anonymiseFeedback(
  db: Db,
  tenantId: string,
  subscriberIds: readonly number[],
): Promise<void> {
  for (let start = 0; start < subscriberIds.length; start += 500) {
    await db
      .updateTable("unsubscribe_feedback")
      .set({ subscriber_id: null, details: null })
      .where("tenant_id", "=", tenantId)
      .where("subscriber_id", "in", subscriberIds.slice(start, start + 500))
      .execute();
  }
}
