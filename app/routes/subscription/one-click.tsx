import { data, Form, Link, useNavigation } from "react-router";
import { scopeOf } from "../../../server/http/context";
import { verifyToken } from "../../../server/mail/tokens";
import { MESSAGES, SubscriptionError } from "../../../server/subscribers/errors";
import {
  getSubscriberById,
  type SubscriptionContext,
  unsubscribe,
} from "../../../server/subscribers/subscribers";
import {
  Notice,
  Panel,
  primaryButton,
  SubscriptionPage,
  subscriptionHeaders,
  subscriptionMeta,
  useCompanyName,
} from "../../components/subscription-page";
import type { Route } from "./+types/one-click";
import { failureOf } from "./subscription.server";

/**
 * /subscription/one-click/{token}: the List-Unsubscribe link of every list mail (RFC 8058). Mail
 * providers POST `List-Unsubscribe=One-Click` here server to server, with no cookies and no
 * Origin; that POST unsubscribes at once. A GET (a person clicking, or a link scanner) only shows a
 * button that makes the same POST.
 */
function subscriberIdOf(ctx: SubscriptionContext, token: string | undefined): number | null {
  const payload = verifyToken(ctx.sessionSecret, token, "unsubscribe");
  return payload && payload.tenantId === ctx.tenant.id ? payload.subscriberId : null;
}

type OneClickState =
  | { state: "ready"; email: string }
  | { state: "not-subscribed"; email: string | null }
  | { state: "done"; email: string | null }
  | { state: "invalid" | "failed"; message: string };

const answer = (body: OneClickState, status = 200) => data<OneClickState>(body, { status });

export const meta: Route.MetaFunction = (args) =>
  subscriptionMeta(args, {
    title: "Unsubscribe",
    description: "Stop receiving all newsletters sent to your email address.",
  });

export const headers = subscriptionHeaders;

export async function loader({ params, context }: Route.LoaderArgs) {
  const ctx = scopeOf(context);
  const subscriberId = subscriberIdOf(ctx, params.token);
  if (subscriberId === null)
    return answer({ state: "invalid", message: MESSAGES.invalidLink }, 400);
  const subscriber = await getSubscriberById(ctx, subscriberId);
  if (subscriber?.status !== "active") {
    return answer({ state: "not-subscribed", email: subscriber?.email ?? null });
  }
  return answer({ state: "ready", email: subscriber.email });
}

export async function action({ params, context }: Route.ActionArgs) {
  const ctx = scopeOf(context);
  const subscriberId = subscriberIdOf(ctx, params.token);
  if (subscriberId === null)
    return answer({ state: "invalid", message: MESSAGES.invalidLink }, 400);
  try {
    const subscriber = await unsubscribe(ctx, { subscriberId });
    ctx.logger.info({ subscriberId }, "one-click unsubscribe");
    return answer({ state: "done", email: subscriber.email });
  } catch (error) {
    // Idempotent (RFC 8058 senders may retry): someone already off every list gets the same 200.
    if (error instanceof SubscriptionError && (error.status === 404 || error.status === 409)) {
      return answer({ state: "done", email: null });
    }
    failureOf(ctx, error, MESSAGES.unsubscribeFailed);
    return answer({ state: "failed", message: MESSAGES.unsubscribeFailed }, 500);
  }
}

export default function OneClick({ loaderData, actionData }: Route.ComponentProps) {
  const view = actionData ?? loaderData;
  const companyName = useCompanyName();
  const navigation = useNavigation();
  const sending = navigation.state === "submitting";
  return (
    <SubscriptionPage title="Unsubscribe" footer="privacy-and-terms">
      <Panel>
        {view.state === "ready" ? (
          <Form method="post" className="space-y-5">
            <p className="break-words">
              Stop all newsletters from {companyName} to <strong>{view.email}</strong>?
            </p>
            <input type="hidden" name="List-Unsubscribe" value="One-Click" />
            <button type="submit" className={primaryButton} aria-disabled={sending || undefined}>
              {sending ? "Unsubscribing…" : "Unsubscribe from all newsletters"}
            </button>
          </Form>
        ) : view.state === "done" || view.state === "not-subscribed" ? (
          <Notice
            tone="ok"
            title={view.state === "done" ? "Unsubscribed Successfully" : "You are not subscribed"}
            testId="unsubscribed"
          >
            <p className="break-words">
              {view.email ? <strong>{view.email}</strong> : "This address"} will not receive
              newsletters from {companyName}.
            </p>
          </Notice>
        ) : (
          <Notice tone="error">{view.message}</Notice>
        )}
        {view.state === "done" || view.state === "not-subscribed" ? (
          <p className="mt-5">
            Changed your mind?{" "}
            <Link
              to={
                view.email
                  ? `/subscription/preferences?${new URLSearchParams({ email: view.email })}`
                  : "/subscription/preferences"
              }
              className="font-semibold"
            >
              Choose your newsletters again
            </Link>
            .
          </p>
        ) : view.state !== "ready" ? (
          <p className="mt-5">
            <Link to="/subscription/unsubscribe" className="font-semibold">
              Unsubscribe with your email address
            </Link>{" "}
            or{" "}
            <Link to="/subscription/preferences" className="font-semibold">
              manage your preferences
            </Link>
            .
          </p>
        ) : null}
      </Panel>
    </SubscriptionPage>
  );
}
