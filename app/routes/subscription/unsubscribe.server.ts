// The loader and action of unsubscribe.tsx.
import type { SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, redirect } from "react-router";
import { scopeOf } from "../../../server/http/context";
import { signToken, verifyToken } from "../../../server/mail/tokens";
import { MESSAGES } from "../../../server/subscribers/errors";
import {
  getSubscriberById,
  PENDING_CHANGE_LIFETIME_MS,
  recordUnsubscribeFeedback,
  type SubscriptionContext,
  unsubscribe,
} from "../../../server/subscribers/subscribers";
import { feedbackSchema, unsubscribeSchema } from "../../../shared/schemas/unsubscribe";
import type { Route } from "./+types/unsubscribe";
import { failureOf, RATE_LIMITED, rateKey, unsubscribeRateLimit } from "./subscription.server";

const PATH = "/subscription/unsubscribe";

/**
 * After unsubscribing, the page moves to ?done={token}: a short-lived signed "unsubscribe" token
 * naming the subscriber. A reload shows the same success without unsubscribing again, and the
 * feedback form carries the token, never a raw subscriber id.
 */
const DONE_LIFETIME_MS = PENDING_CHANGE_LIFETIME_MS;

async function unsubscribedBy(ctx: SubscriptionContext, token: string | null) {
  const payload = verifyToken(ctx.sessionSecret, token, "unsubscribe");
  if (!payload || payload.tenantId !== ctx.tenant.id) return null;
  const subscriber = await getSubscriberById(ctx, payload.subscriberId);
  return subscriber?.status === "unsubscribed" ? subscriber : null;
}

const doneHref = (email: string, done: string, extra: Record<string, string> = {}) =>
  `${PATH}?${new URLSearchParams({ email, done, ...extra })}`;

export async function loader({ request, context }: Route.LoaderArgs) {
  const ctx = scopeOf(context);
  const query = new URL(request.url).searchParams;
  const email = (query.get("email") ?? "").slice(0, 254);
  const token = query.get("done");
  if (token) {
    const subscriber = await unsubscribedBy(ctx, token);
    if (subscriber) {
      return {
        email: subscriber.email,
        done: { token, feedbackSent: query.get("feedback") === "1" },
      };
    }
  }
  return { email, done: null };
}

export type ActionData =
  | { form: "unsubscribe"; result: SubmissionResult<string[]> }
  | { form: "feedback"; result: SubmissionResult<string[]> };

export async function action({ request, context }: Route.ActionArgs) {
  const ctx = scopeOf(context);
  const scope = scopeOf(context);
  const formData = await request.formData();
  const limited = !(await unsubscribeRateLimit.take(rateKey(ctx, scope.clientAddress)));

  if (formData.get("intent") === "feedback") {
    const submission = parseWithZod(formData, { schema: feedbackSchema });
    const reply = (result: SubmissionResult<string[]>, status: number) =>
      data<ActionData>({ form: "feedback", result }, { status });
    if (submission.status !== "success") return reply(submission.reply(), 400);
    if (limited) return reply(submission.reply({ formErrors: [RATE_LIMITED] }), 429);
    const { done, reason, details } = submission.value;
    const subscriber = await unsubscribedBy(ctx, done);
    if (!subscriber) return reply(submission.reply({ formErrors: [MESSAGES.invalidLink] }), 400);
    await recordUnsubscribeFeedback(ctx, { subscriberId: subscriber.id, reason, details });
    return redirect(doneHref(subscriber.email, done, { feedback: "1" }));
  }

  const submission = parseWithZod(formData, { schema: unsubscribeSchema });
  const reply = (result: SubmissionResult<string[]>, status: number) =>
    data<ActionData>({ form: "unsubscribe", result }, { status });
  if (submission.status !== "success") return reply(submission.reply(), 400);
  if (limited) return reply(submission.reply({ formErrors: [RATE_LIMITED] }), 429);
  try {
    const subscriber = await unsubscribe(ctx, { email: submission.value.email });
    const done = signToken(ctx.sessionSecret, {
      purpose: "unsubscribe",
      tenantId: ctx.tenant.id,
      subscriberId: subscriber.id,
      expiresAt: Date.now() + DONE_LIFETIME_MS,
    });
    scope.logger.info({ subscriberId: subscriber.id }, "unsubscribed from the unsubscribe page");
    return redirect(doneHref(subscriber.email, done));
  } catch (error) {
    const failure = failureOf(ctx, error, MESSAGES.unsubscribeFailed);
    return reply(submission.reply({ formErrors: [failure.message] }), failure.status);
  }
}
