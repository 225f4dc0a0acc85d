// The loader and action of confirm.tsx.
import { data, redirect } from "react-router";
import { scopeOf } from "../../../server/http/context";
import { MESSAGES } from "../../../server/subscribers/errors";
import { signedPreferencesPath, subscriberFromToken } from "../../../server/subscribers/links";
import { confirmSignup } from "../../../server/subscribers/signup";
import type { Route } from "./+types/confirm";
import { failureOf, GENERIC_FAILURE } from "./subscription.server";

/**
 * /subscription/confirm/{token}: the double opt-in link. The GET only asks; the POST confirms, so
 * a mail scanner fetching the link subscribes nobody.
 */
export type ConfirmState =
  | { state: "pending"; email: string }
  | { state: "confirmed"; email: string; preferencesPath: string }
  | { state: "invalid"; message: string };

const answer = (body: ConfirmState, status = 200) => data<ConfirmState>(body, { status });
const invalid = () => answer({ state: "invalid", message: MESSAGES.invalidLink }, 400);

export async function loader({ params, context }: Route.LoaderArgs) {
  const ctx = scopeOf(context);
  const subscriber = await subscriberFromToken(ctx, params.token, "confirm-signup");
  // Someone who unsubscribed since the link was sent is not signed up again by an old link.
  if (!subscriber || subscriber.status === "unsubscribed") return invalid();
  if (subscriber.status !== "active") return answer({ state: "pending", email: subscriber.email });
  const preferencesPath = signedPreferencesPath(ctx, subscriber.id);
  return answer({ state: "confirmed", email: subscriber.email, preferencesPath });
}

export async function action({ params, url, context }: Route.ActionArgs) {
  const ctx = scopeOf(context);
  try {
    const subscriber = await subscriberFromToken(ctx, params.token, "confirm-signup");
    if (!subscriber || subscriber.status === "unsubscribed") return invalid();
    await confirmSignup(ctx, subscriber.id);
  } catch (error) {
    const failure = failureOf(ctx, error, GENERIC_FAILURE);
    return answer({ state: "invalid", message: failure.message }, failure.status);
  }
  // The page now reads the subscriber as confirmed; a reload does not post again.
  return redirect(url.pathname);
}
