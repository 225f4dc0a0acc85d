import { afterAnswer } from "../../../server/http/after-answer";
import { createRateLimit, RATE_LIMITED_MESSAGE } from "../../../server/http/rate-limit";
import { MESSAGES, SubscriptionError } from "../../../server/subscribers/errors";
import { listTenantLists, offeredLists } from "../../../server/subscribers/lists";
import { requestPreferenceChange } from "../../../server/subscribers/preferences";
import { mailSubscriberLink } from "../../../server/subscribers/subscriber-mail";
import type { SubscriberView, SubscriptionContext } from "../../../server/subscribers/subscribers";
import type { CentreData } from "../../components/preference-centre";

/**
 * Server-side pieces shared by the subscription pages (DESIGN.md §8: look-ups and unsubscribes are
 * rate-limited per client address and tenant; see docs/decisions/003 for why they live in memory).
 */
export const lookupRateLimit = createRateLimit({ name: "lookup", points: 30, windowSeconds: 600 });
/** Each verification request sends a mail: fewer per address, so nobody is flooded through us. */
export const verificationRateLimit = createRateLimit({
  name: "verification",
  points: 10,
  windowSeconds: 600,
});
export const unsubscribeRateLimit = createRateLimit({
  name: "unsubscribe",
  points: 20,
  windowSeconds: 600,
});

/** Links mailed to one address: a few an hour, so nobody's inbox is flooded through these forms. */
const linkMailRateLimit = createRateLimit({
  name: "subscriber-link",
  points: 3,
  windowSeconds: 3600,
});

/**
 * A typed address on the unsubscribe or preference page: a signed link goes to it when it is a
 * subscriber (mailSubscriberLink). The work runs after the page has answered, so neither the answer
 * nor its timing tells whether the address is subscribed; a failure is logged, not shown.
 */
export async function sendLinkQuietly(
  ctx: SubscriptionContext,
  email: string,
  purpose: "unsubscribe" | "preferences",
): Promise<void> {
  const address = email.trim().toLowerCase();
  if (!(await linkMailRateLimit.take(`${ctx.tenant.id}:${purpose}:${address}`))) return;
  afterAnswer(
    ctx.logger,
    "subscriber link requested",
    () => mailSubscriberLink(ctx, { email: address, purpose }),
    { purpose },
  );
}

export const RATE_LIMITED = RATE_LIMITED_MESSAGE;
/** SPEC §8, for failures that have no message of their own. */
export const GENERIC_FAILURE = "An error occurred while processing your request.";

export const rateKey = (ctx: SubscriptionContext, clientAddress: string) =>
  `${ctx.tenant.id}:${clientAddress}`;

/** The visitor-facing message and status of a failure: SubscriptionError's own, else `fallback` (500). */
export function failureOf(
  ctx: SubscriptionContext,
  error: unknown,
  fallback: string,
): { message: string; status: number } {
  if (error instanceof SubscriptionError) return { message: error.message, status: error.status };
  ctx.logger.error({ err: error }, fallback);
  return { message: fallback, status: 500 };
}

/**
 * The preference centre for a subscriber, in the step the URL asks for (see CentreData):
 * intent=edit|review carries the edited selection as repeated `list` fields, intent=unsubscribe-all
 * proposes no lists, sent=1 and updated=1 report what just happened.
 */
export async function loadCentre(
  ctx: SubscriptionContext,
  subscriber: SubscriberView,
  query: URLSearchParams,
): Promise<CentreData> {
  const lists = offeredLists(await listTenantLists(ctx.db, ctx.tenant));
  const keys = lists.map((list) => list.key);
  const intent = query.get("intent");
  const chosen = [...new Set(query.getAll("list"))].filter((key) => keys.includes(key));
  const selection =
    intent === "unsubscribe-all"
      ? []
      : intent === "review" || intent === "edit"
        ? chosen
        : subscriber.lists;
  const step: CentreData["step"] =
    intent === "review" || intent === "unsubscribe-all"
      ? "review"
      : query.get("sent") === "1"
        ? "sent"
        : query.get("updated") === "1"
          ? "updated"
          : "edit";
  return {
    email: subscriber.email,
    status: subscriber.status,
    lists: lists.map(({ key, name, description }) => ({ key, name, description })),
    current: subscriber.lists.filter((key) => keys.includes(key)),
    selection: keys.filter((key) => selection.includes(key)),
    step,
  };
}

/**
 * 'Send Verification Email': stores the wanted lists as a pending change and mails the link
 * (requestPreferenceChange). Resolves to null on success, else the message and status to show.
 */
export async function sendVerification(
  ctx: SubscriptionContext,
  clientAddress: string,
  input: { email: string; activeLists: string[] },
): Promise<{ message: string; status: number } | null> {
  if (!(await verificationRateLimit.take(rateKey(ctx, clientAddress)))) {
    return { message: RATE_LIMITED, status: 429 };
  }
  try {
    await requestPreferenceChange(ctx, input);
    return null;
  } catch (error) {
    return failureOf(ctx, error, MESSAGES.verificationNotSent);
  }
}
