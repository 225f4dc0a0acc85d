import {
  Notice,
  Panel,
  SubscriptionPage,
  subscriptionMeta,
} from "../../components/subscription-page";
import { ConfirmUnsubscribe, UnsubscribedNotice } from "../../components/unsubscribe-confirm";
import { Link } from "../../lib/page-scripts";
import type { Route } from "./+types/one-click";

export { handle, headers } from "../../components/subscription-page";
export { action, loader } from "./one-click.server";

export const meta: Route.MetaFunction = (args) =>
  subscriptionMeta(args, "Unsubscribe", "unsubscribe");

export default function OneClick({ loaderData, actionData }: Route.ComponentProps) {
  const view = actionData ?? loaderData;
  return (
    <SubscriptionPage title="Unsubscribe" footer="privacy-and-terms">
      <Panel>
        {view.state === "ready" ? (
          <ConfirmUnsubscribe email={view.email} fields={{ "List-Unsubscribe": "One-Click" }} />
        ) : view.state === "done" || view.state === "not-subscribed" ? (
          <UnsubscribedNotice
            email={view.email}
            done={view.state === "done"}
            preferencesPath={view.preferencesPath}
          />
        ) : (
          <>
            <Notice tone="error">{view.message}</Notice>
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
          </>
        )}
      </Panel>
    </SubscriptionPage>
  );
}
