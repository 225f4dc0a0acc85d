// The loader and action of unsubscribe.tsx.
import type { SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, redirect } from "react-router";
import { scopeOf } from "../../../server/http/context";
import { signToken } from "../../../server/mail/tokens";
import { MESSAGES } from "../../../server/subscribers/errors";
import {
  PENDING_CHANGE_LIFETIME_MS,
  signedPreferencesPath,
  subscriberFromToken,
} from "../../../server/subscribers/links";
import type { SubscriberView, SubscriptionContext } from "../../../server/subscribers/subscribers";
import { recordUnsubscribeFeedback, unsubscribe } from "../../../server/subscribers/unsubscribe";
import {
  confirmUnsubscribeSchema,
  feedbackSchema,
  unsubscribeSchema,
} from "../../../shared/schemas/unsubscribe";
import type { Route } from "./+types/unsubscribe";
import {
  failureOf,
  RATE_LIMITED,
  rateKey,
  sendLinkQuietly,
  unsubscribeRateLimit,
} from "./subscription.server";

const PATH = "/subscription/unsubscribe";

/**
 * What the page shows. Without a signed link it only takes an address and mails that address a
 * link (the same words whether or not it is subscribed: docs/decisions/015-subscriber-privacy.md). The signed link in
 * every mail (?token=) unsubscribes with one button. After unsubscribing the page moves to
 * ?done={token}, a short-lived signed token naming the subscriber: a reload shows the same success,
 * and the feedback form carries the token, never a raw subscriber id.
 */
export type UnsubscribeView =
  | { view: "form"; email: string; error: string | null }
  | { view: "sent" }
  | { view: "confirm"; email: string; token: string }
  | { view: "not-subscribed"; email: string }
  | {
      view: "done";
      email: string;
      token: string;
      preferencesPath: string;
      feedback: "none" | "sent" | "already";
    };

const DONE_LIFETIME_MS = PENDING_CHANGE_LIFETIME_MS;

async function unsubscribedBy(ctx: SubscriptionContext, token: string | null) {
  const subscriber = await subscriberFromToken(ctx, token, "unsubscribe");
  return subscriber?.status === "unsubscribed" ? subscriber : null;
}

function doneRedirect(ctx: SubscriptionContext, subscriber: SubscriberView) {
  const done = signToken(ctx.sessionSecret, {
    purpose: "unsubscribe",
    tenantId: ctx.tenant.id,
    subscriberId: subscriber.id,
    expiresAt: Date.now() + DONE_LIFETIME_MS,
  });
  return redirect(`${PATH}?${new URLSearchParams({ done })}`);
}

export async function loader({ url, context }: Route.LoaderArgs) {
  const ctx = scopeOf(context);
  const query = url.searchParams;
  const email = (query.get("email") ?? "").slice(0, 254);
  const show = (view: UnsubscribeView, status = 200) => data<UnsubscribeView>(view, { status });

  const done = query.get("done");
  const doneBy = done ? await unsubscribedBy(ctx, done) : null;
  if (done && doneBy) {
    const feedback = query.get("feedback");
    return show({
      view: "done",
      email: doneBy.email,
      token: done,
      preferencesPath: signedPreferencesPath(ctx, doneBy.id),
      feedback: feedback === "1" ? "sent" : feedback === "already" ? "already" : "none",
    });
  }
  if (query.get("sent") === "1") return show({ view: "sent" });

  const token = query.get("token");
  if (token === null) return show({ view: "form", email, error: null });
  const subscriber = await subscriberFromToken(ctx, token, "unsubscribe");
  if (!subscriber) return show({ view: "form", email, error: MESSAGES.invalidLink }, 400);
  if (subscriber.status === "active") {
    return show({ view: "confirm", email: subscriber.email, token });
  }
  return show({ view: "not-subscribed", email: subscriber.email });
}

export type ActionData =
  | { form: "unsubscribe"; result: SubmissionResult<string[]> }
  | { form: "feedback"; result: SubmissionResult<string[]> };

export async function action({ request, url, context }: Route.ActionArgs) {
  const ctx = scopeOf(context);
  const formData = await request.formData();
  const limited = !(await unsubscribeRateLimit.take(rateKey(ctx, ctx.clientAddress)));
  const intent = formData.get("intent");

  if (intent === "feedback") {
    const submission = parseWithZod(formData, { schema: feedbackSchema });
    const reply = (result: SubmissionResult<string[]>, status: number) =>
      data<ActionData>({ form: "feedback", result }, { status });
    if (submission.status !== "success") return reply(submission.reply(), 400);
    if (limited) return reply(submission.reply({ formErrors: [RATE_LIMITED] }), 429);
    const { done, reason, details } = submission.value;
    const subscriber = await unsubscribedBy(ctx, done);
    if (!subscriber) return reply(submission.reply({ formErrors: [MESSAGES.invalidLink] }), 400);
    const recorded = await recordUnsubscribeFeedback(ctx, {
      subscriberId: subscriber.id,
      reason,
      details,
    });
    const feedback = recorded ? "1" : "already";
    return redirect(`${PATH}?${new URLSearchParams({ done, feedback })}`);
  }

  const reply = (result: SubmissionResult<string[]>, status: number) =>
    data<ActionData>({ form: "unsubscribe", result }, { status });

  if (intent === "confirm") {
    const submission = parseWithZod(formData, { schema: confirmUnsubscribeSchema });
    if (submission.status !== "success") return reply(submission.reply(), 400);
    if (limited) return reply(submission.reply({ formErrors: [RATE_LIMITED] }), 429);
    const subscriber = await subscriberFromToken(ctx, submission.value.token, "unsubscribe");
    if (!subscriber) return reply(submission.reply({ formErrors: [MESSAGES.invalidLink] }), 400);
    if (subscriber.status !== "active") return redirect(`${url.pathname}${url.search}`);
    try {
      const gone = await unsubscribe(ctx, { subscriberId: subscriber.id });
      ctx.logger.info({ subscriberId: gone.id }, "unsubscribed from a signed link");
      return doneRedirect(ctx, gone);
    } catch (error) {
      const failure = failureOf(ctx, error, MESSAGES.unsubscribeFailed);
      return reply(submission.reply({ formErrors: [failure.message] }), failure.status);
    }
  }

  const submission = parseWithZod(formData, { schema: unsubscribeSchema });
  if (submission.status !== "success") return reply(submission.reply(), 400);
  if (limited) return reply(submission.reply({ formErrors: [RATE_LIMITED] }), 429);
  await sendLinkQuietly(ctx, submission.value.email, "unsubscribe");
  return redirect(`${PATH}?sent=1`);
}
