import {
  Notice,
  Panel,
  primaryButton,
  SubscriptionPage,
  secondaryButton,
  subscriptionMeta,
  useCompanyName,
} from "../../components/subscription-page";
import { Link } from "../../lib/page-scripts";
import type { Route } from "./+types/confirm";

export { handle, headers } from "../../components/subscription-page";
export { action, loader } from "./confirm.server";

export const meta: Route.MetaFunction = (args) =>
  subscriptionMeta(
    args,
    args.data?.state === "confirmed"
      ? "Subscription confirmed"
      : args.data?.state === "pending"
        ? "Confirm your subscription"
        : "Confirmation link not valid",
    "confirm",
  );

export default function Confirm({ loaderData, actionData }: Route.ComponentProps) {
  const view = actionData ?? loaderData;
  const companyName = useCompanyName();
  return (
    <SubscriptionPage
      title={view.state === "confirmed" ? "Subscription confirmed" : "Confirm your subscription"}
      footer="privacy-and-site"
    >
      <Panel>
        {view.state === "pending" ? (
          <form method="post" className="space-y-5">
            <p className="break-words">
              Please confirm that <strong>{view.email}</strong> should receive newsletters from{" "}
              {companyName}.
            </p>
            <button type="submit" className={primaryButton} data-busy-label="Confirming…">
              Confirm my subscription
            </button>
            <p className="text-sm">
              If you did not sign up, close this page and nothing will happen.
            </p>
          </form>
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
              <Link to={view.preferencesPath} className={secondaryButton}>
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
