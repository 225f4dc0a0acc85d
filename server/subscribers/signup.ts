import { isSuppressed } from "../campaigns/bounces";
import type { SubscriberStatus } from "../db/schema";
import { tenantDb } from "../db/tenant-guard";
import { MailNotSentError } from "../mail/send";
import { signToken } from "../mail/tokens";
import { pushMembership } from "../providers/mailerlite-mirror";
import { MESSAGES, SubscriptionError } from "./errors";
import { recordEvent, type SubscriberEventDetail } from "./events";
import {
  listUnsubscribeHeaders,
  PENDING_CHANGE_LIFETIME_MS,
  subscriberLinks,
  tenantLink,
} from "./links";
import { listTenantLists, offeredLists, resolveLists, sendableLists } from "./lists";
import { insertSubscriber, joinLists, updateSubscriber } from "./store";
import { mailSubscriber } from "./subscriber-mail";
import {
  findSubscriberRow,
  getSubscriberById,
  listKeysOfSubscriber,
  normaliseSubscriberEmail,
  type SubscriberView,
  type SubscriptionContext,
} from "./subscribers";

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
  const known = await findSubscriberRow(ctx, { email });
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

  const { subscriberId, wasActive } = await tenantDb(ctx.db, ctx.tenant.id)
    .transaction()
    .execute(async (trx) => {
      const existing = await trx
        .selectFrom("subscribers")
        .selectAll()
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
              nextStatus === "active" && existing.status !== "active"
                ? now
                : existing.subscribed_at,
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
    await mailSubscriber(ctx, email, {
      kind: "confirm-signup",
      confirmUrl: tenantLink(ctx, `/subscription/confirm/${token}`),
      listNames,
    });
    return { outcome: "confirmation-sent", subscriberId };
  }
  const links = subscriberLinks(ctx, { id: subscriberId, email });
  await mailSubscriber(
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
  const row = await findSubscriberRow(ctx, { subscriberId });
  if (!row) throw new SubscriptionError(MESSAGES.invalidLink, 404);
  if (row.status === "unconfirmed" || isSuppressed(row.status)) {
    await pushMembership(
      ctx,
      {
        email: row.email,
        name: row.name,
        lists: await listKeysOfSubscriber(ctx, row.id),
        replace: false,
      },
      MESSAGES.failed,
    );
    const now = new Date().toISOString();
    const lists = await listKeysOfSubscriber(ctx, row.id);
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
    const keys = await listKeysOfSubscriber(ctx, row.id);
    const listNames = all.filter((list) => keys.includes(list.key)).map((list) => list.name);
    const links = subscriberLinks(ctx, row);
    try {
      await mailSubscriber(
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
