import type { SubmissionResult } from "@conform-to/react";
import { PREFERENCES_PATH as PATH } from "../../../shared/schemas/preferences";
import { EmailLinkForm } from "../../components/email-link-form";
import {
  Notice,
  Panel,
  primaryButton,
  SubscriptionPage,
  subscriptionMeta,
} from "../../components/subscription-page";
import { submitted } from "../../components/ui/submitted";
import { Link } from "../../lib/page-scripts";
import type { Route } from "./+types/preferences";

export { handle, headers } from "../../components/subscription-page";
export { action, loader } from "./preferences.server";

export const meta: Route.MetaFunction = (args) =>
  subscriptionMeta(
    args,
    args.data?.view === "apply" ? "Confirm your changes" : "Manage your subscription",
    "preferences",
  );

export default function Preferences({ loaderData, actionData }: Route.ComponentProps) {
  if (loaderData.view === "apply") {
    return (
      <ApplyChanges
        email={loaderData.email}
        token={loaderData.token}
        error={loaderData.error ?? (actionData?.intent === "apply" ? actionData.error : null)}
      />
    );
  }
  const lookup = actionData?.intent === "lookup" ? actionData.result : null;
  return (
    <SubscriptionPage
      title="Manage your subscription"
      lead="Choose which of our newsletters you receive. Changes take effect once you confirm them from the email we send you."
      footer="privacy-and-site"
    >
      {loaderData.sent ? (
        <Notice tone="ok" title="Check your inbox" testId="link-sent">
          If that address has a subscription here, we have sent it a link to your preferences. The
          link works for 24 hours.
        </Notice>
      ) : (
        <Lookup lastResult={lookup} email={loaderData.email} />
      )}
    </SubscriptionPage>
  );
}

function Lookup({
  lastResult,
  email,
}: {
  lastResult: SubmissionResult<string[]> | null;
  email: string;
}) {
  return (
    <Panel labelledBy="lookup-heading">
      <h2 id="lookup-heading" className="text-xl font-bold sm:text-2xl">
        Find Your Subscription
      </h2>
      <p className="mt-1">
        Enter the email address you subscribed with. We email it a link to your preferences, so
        nobody else can see or change them.
      </p>
      <EmailLinkForm
        form={submitted("lookup", lastResult)}
        intent="lookup"
        email={email}
        inline
        action={PATH}
        className="mt-4 space-y-4"
      >
        Find Subscription
      </EmailLinkForm>
    </Panel>
  );
}

/** The emailed verification link: one POST applies the pending change (SPEC §4). */
function ApplyChanges({
  email,
  token,
  error,
}: {
  email: string;
  token: string;
  error: string | null;
}) {
  return (
    <SubscriptionPage
      title="Confirm your changes"
      lead="You asked to change which newsletters you receive. One click applies the change."
      footer="privacy-and-site"
    >
      <Panel labelledBy="apply-heading">
        <h2 id="apply-heading" className="text-xl font-bold sm:text-2xl">
          Apply your new preferences
        </h2>
        {email ? (
          <p className="mt-2 break-words">
            For <strong>{email}</strong>
          </p>
        ) : null}
        {error ? (
          <div className="mt-5 space-y-4">
            <Notice tone="error">{error}</Notice>
            <p>
              <Link
                to={email ? `${PATH}?${new URLSearchParams({ email })}` : PATH}
                className="font-semibold"
              >
                Find Your Subscription
              </Link>{" "}
              to make your changes again; we will send you a new link.
            </p>
          </div>
        ) : (
          <form method="post" className="mt-5">
            <input type="hidden" name="intent" value="apply" />
            <input type="hidden" name="email" value={email} />
            <input type="hidden" name="token" value={token} />
            <button type="submit" className={primaryButton} data-busy-label="Applying…">
              Confirm my changes
            </button>
            <p className="mt-4 text-sm">
              We ask for this click so that programs which open links in your mailbox cannot change
              your subscriptions for you.
            </p>
          </form>
        )}
      </Panel>
    </SubscriptionPage>
  );
}
