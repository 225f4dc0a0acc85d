// The loader and action of one-click.tsx.
import { data } from "react-router";
import { scopeOf } from "../../../server/http/context";
import { MESSAGES, SubscriptionError } from "../../../server/subscribers/errors";
import { signedPreferencesPath, subscriberFromToken } from "../../../server/subscribers/links";
import { unsubscribe } from "../../../server/subscribers/unsubscribe";
import type { Route } from "./+types/one-click";
import { failureOf } from "./subscription.server";

/**
 * /subscription/one-click/{token}: the List-Unsubscribe link of every list mail (RFC 8058). Mail
 * providers POST `List-Unsubscribe=One-Click` here server to server, with no cookies and no
 * Origin; that POST unsubscribes at once. A GET (a person clicking, or a link scanner) only shows a
 * button that makes the same POST.
 */
export type OneClickState =
  | { state: "ready"; email: string }
  | { state: "not-subscribed"; email: string; preferencesPath: string }
  | { state: "done"; email: string; preferencesPath: string }
  | { state: "invalid" | "failed"; message: string };

const answer = (body: OneClickState, status = 200) => data<OneClickState>(body, { status });
const invalid = () => answer({ state: "invalid", message: MESSAGES.invalidLink }, 400);

export async function loader({ params, context }: Route.LoaderArgs) {
  const ctx = scopeOf(context);
  const subscriber = await subscriberFromToken(ctx, params.token, "unsubscribe");
  if (!subscriber) return invalid();
  if (subscriber.status !== "active") {
    const preferencesPath = signedPreferencesPath(ctx, subscriber.id);
    return answer({ state: "not-subscribed", email: subscriber.email, preferencesPath });
  }
  return answer({ state: "ready", email: subscriber.email });
}

export async function action({ params, context }: Route.ActionArgs) {
  const ctx = scopeOf(context);
  const subscriber = await subscriberFromToken(ctx, params.token, "unsubscribe");
  if (!subscriber) return invalid();
  const preferencesPath = signedPreferencesPath(ctx, subscriber.id);
  try {
    await unsubscribe(ctx, { subscriberId: subscriber.id });
    ctx.logger.info({ subscriberId: subscriber.id }, "one-click unsubscribe");
  } catch (error) {
    // Idempotent (RFC 8058 senders may retry): someone already off every list gets the same 200.
    if (!(error instanceof SubscriptionError && error.status === 409)) {
      failureOf(ctx, error, MESSAGES.unsubscribeFailed);
      return answer({ state: "failed", message: MESSAGES.unsubscribeFailed }, 500);
    }
  }
  return answer({ state: "done", email: subscriber.email, preferencesPath });
}
