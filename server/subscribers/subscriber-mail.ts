import { isSuppressed } from "../campaigns/bounces";
import { type EmailContent, renderEmail } from "../emails/templates";
import { isDefaultWelcome, publishingCadence } from "../emails/welcome";
import { replyToHeader } from "../mail/headers";
import { sendMail } from "../mail/send";
import { signToken } from "../mail/tokens";
import { listPublishedNewsletters } from "../newsletters/listing";
import { SUBSCRIBER_LINK_LIFETIME_MS, tenantLink, unsubscribePath } from "./links";
import { findSubscriber, findSubscriberRow, type SubscriptionContext } from "./subscribers";

/**
 * Mails a subscriber of this tenant, unless the address is suppressed (bounced or complained): then
 * nothing is sent and the caller answers as it would anyway. The confirmation link of a new sign-up
 * is the one exception, because confirming it is how a suppressed address comes back.
 */
export async function mailSubscriber(
  ctx: SubscriptionContext,
  to: string,
  content: EmailContent,
  headers: Record<string, string> = {},
  options: { retryLater?: boolean } = {},
): Promise<void> {
  if (content.kind !== "confirm-signup") {
    const row = await findSubscriberRow(ctx, { email: to });
    if (row && isSuppressed(row.status)) {
      ctx.logger.info(
        { subscriberId: row.id, status: row.status, kind: content.kind },
        "mail to a suppressed address not sent",
      );
      return;
    }
  }
  const email = await renderEmail(ctx.tenant, await withLatestIssue(ctx, content), ctx.origin);
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
  await mailSubscriber(ctx, subscriber.email, { kind: `${input.purpose}-link`, url });
  return true;
}

/** The default welcome links the newest issue and says how often they come: looked up for it only. */
async function withLatestIssue(
  ctx: SubscriptionContext,
  content: EmailContent,
): Promise<EmailContent> {
  if (content.kind !== "welcome" || content.issues !== undefined) return content;
  if (!isDefaultWelcome(ctx.tenant.emailTemplates.welcomeEmail)) return content;
  const { items } = await listPublishedNewsletters(
    { db: ctx.db, tenantId: ctx.tenant.id },
    { page: 1, pageSize: 6 },
  );
  const newest = items[0];
  return {
    ...content,
    issues: {
      latest: newest
        ? { title: newest.title, url: tenantLink(ctx, `/newsletter/${newest.slug ?? newest.id}`) }
        : null,
      cadence: publishingCadence(items.map((item) => item.date)),
    },
  };
}
