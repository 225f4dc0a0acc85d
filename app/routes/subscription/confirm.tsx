import { data, Form, Link, redirect, useNavigation } from "react-router";
import { scopeOf } from "../../../server/http/context";
import { verifyToken } from "../../../server/mail/tokens";
import { MESSAGES } from "../../../server/subscribers/errors";
import {
  confirmSignup,
  getSubscriberById,
  type SubscriptionContext,
} from "../../../server/subscribers/subscribers";
import {
  Notice,
  Panel,
  primaryButton,
  SubscriptionPage,
  secondaryButton,
  subscriptionHeaders,
  subscriptionMeta,
  useCompanyName,
} from "../../components/subscription-page";
import type { Route } from "./+types/confirm";
import { failureOf, GENERIC_FAILURE } from "./subscription.server";

/**
 * /subscription/confirm/{token}: the double opt-in link. The GET only asks; the POST confirms, so
 * a mail scanner fetching the link subscribes nobody.
 */
function subscriberIdOf(ctx: SubscriptionContext, token: string | undefined): number | null {
  const payload = verifyToken(ctx.sessionSecret, token, "confirm-signup");
  return payload && payload.tenantId === ctx.tenant.id ? payload.subscriberId : null;
}

type ConfirmState =
  | { state: "pending"; email: string }
  | { state: "confirmed"; email: string }
  | { state: "invalid"; message: string };

const answer = (body: ConfirmState, status = 200) => data<ConfirmState>(body, { status });
const invalid = () => answer({ state: "invalid", message: MESSAGES.invalidLink }, 400);

export const meta: Route.MetaFunction = (args) =>
  subscriptionMeta(args, {
    title:
      args.data?.state === "confirmed"
        ? "Subscription confirmed"
        : args.data?.state === "pending"
          ? "Confirm your subscription"
          : "Confirmation link not valid",
    description: "Confirm that you want to receive our newsletters.",
  });

export const headers = subscriptionHeaders;

export async function loader({ params, context }: Route.LoaderArgs) {
  const ctx = scopeOf(context);
  const subscriberId = subscriberIdOf(ctx, params.token);
  if (subscriberId === null) return invalid();
  const subscriber = await getSubscriberById(ctx, subscriberId);
  // Someone who unsubscribed since the link was sent is not signed up again by an old link.
  if (!subscriber || subscriber.status === "unsubscribed") return invalid();
  return answer({
    state: subscriber.status === "active" ? "confirmed" : "pending",
    email: subscriber.email,
  });
}

export async function action({ params, request, context }: Route.ActionArgs) {
  const ctx = scopeOf(context);
  const subscriberId = subscriberIdOf(ctx, params.token);
  if (subscriberId === null) return invalid();
  try {
    const subscriber = await getSubscriberById(ctx, subscriberId);
    if (!subscriber || subscriber.status === "unsubscribed") return invalid();
    await confirmSignup(ctx, subscriberId);
  } catch (error) {
    const failure = failureOf(ctx, error, GENERIC_FAILURE);
    return answer({ state: "invalid", message: failure.message }, failure.status);
  }
  // The page now reads the subscriber as confirmed; a reload does not post again.
  return redirect(new URL(request.url).pathname);
}

export default function Confirm({ loaderData, actionData }: Route.ComponentProps) {
  const view = actionData ?? loaderData;
  const companyName = useCompanyName();
  const navigation = useNavigation();
  const confirming = navigation.state === "submitting";
  return (
    <SubscriptionPage
      title={view.state === "confirmed" ? "Subscription confirmed" : "Confirm your subscription"}
      footer="privacy-and-site"
    >
      <Panel>
        {view.state === "pending" ? (
          <Form method="post" className="space-y-5">
            <p className="break-words">
              Please confirm that <strong>{view.email}</strong> should receive newsletters from{" "}
              {companyName}.
            </p>
            <button type="submit" className={primaryButton} aria-disabled={confirming || undefined}>
              {confirming ? "Confirming…" : "Confirm my subscription"}
            </button>
            <p className="text-sm opacity-85">
              If you did not sign up, close this page and nothing will happen.
            </p>
          </Form>
        ) : view.state === "confirmed" ? (
          <div className="space-y-5">
            <Notice tone="ok" title="Your subscription is confirmed." testId="confirmed">
              <p className="break-words">
                Newsletters from {companyName} will arrive at <strong>{view.email}</strong>.
              </p>
            </Notice>
            <div className="flex flex-col gap-3 sm:flex-row">
              <Link to="/newsletter" className={primaryButton}>
                Read the latest newsletters
              </Link>
              <Link
                to={`/subscription/preferences?${new URLSearchParams({ email: view.email })}`}
                className={secondaryButton}
              >
                Manage your preferences
              </Link>
            </div>
          </div>
        ) : (
          <div className="space-y-5">
            <Notice tone="error">{view.message}</Notice>
            <p>
              <Link to="/newsletter" className="font-semibold">
                Sign up again
              </Link>{" "}
              to get a new confirmation link.
            </p>
          </div>
        )}
      </Panel>
    </SubscriptionPage>
  );
}
