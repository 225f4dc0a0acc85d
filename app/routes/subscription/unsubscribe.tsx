import type { SubmissionResult } from "@conform-to/react";
import { EmailLinkForm } from "../../components/email-link-form";
import {
  Notice,
  Panel,
  SubscriptionPage,
  subscriptionMeta,
  useCompanyName,
} from "../../components/subscription-page";
import { submitted } from "../../components/ui/submitted";
import { ConfirmUnsubscribe, UnsubscribedNotice } from "../../components/unsubscribe-confirm";
import { UnsubscribeFeedbackForm } from "../../components/unsubscribe-feedback-form";
import { Link } from "../../lib/page-scripts";
import type { Route } from "./+types/unsubscribe";

export { handle, headers } from "../../components/subscription-page";
export { action, loader } from "./unsubscribe.server";

export const meta: Route.MetaFunction = (args) =>
  subscriptionMeta(
    args,
    args.data?.view === "done" ? "Unsubscribed" : "Unsubscribe",
    "unsubscribe",
  );

export default function Unsubscribe({ loaderData, actionData }: Route.ComponentProps) {
  const companyName = useCompanyName();
  const page = loaderData;
  const lastResult = actionData?.form === "unsubscribe" ? actionData.result : null;
  if (page.view === "done") {
    return (
      <SubscriptionPage title="Unsubscribe" footer="privacy-and-terms">
        <UnsubscribedNotice email={page.email} done preferencesPath={page.preferencesPath} />
        {page.feedback === "none" ? (
          <UnsubscribeFeedbackForm
            token={page.token}
            lastResult={actionData?.form === "feedback" ? actionData.result : null}
          />
        ) : (
          <Notice tone="ok" title="Thank you for your feedback." testId="feedback-thanks">
            {page.feedback === "sent"
              ? "It helps us send better newsletters."
              : "We already have your answer for this unsubscribe."}
          </Notice>
        )}
      </SubscriptionPage>
    );
  }
  return (
    <SubscriptionPage
      title="Unsubscribe"
      lead={
        page.view === "form"
          ? `Enter your email address to stop receiving all newsletters from ${companyName}.`
          : undefined
      }
      footer="privacy-and-terms"
    >
      {page.view === "sent" ? (
        <Panel>
          <Notice tone="ok" title="Check your inbox" testId="link-sent">
            If that address is subscribed, we have sent it a link to confirm that you want to
            unsubscribe. The link works for 24 hours.
          </Notice>
        </Panel>
      ) : page.view === "confirm" ? (
        <Panel>
          {lastResult?.error?.[""] ? (
            <Notice tone="error">{lastResult.error[""].join(" ")}</Notice>
          ) : null}
          <ConfirmUnsubscribe
            email={page.email}
            fields={{ intent: "confirm", token: page.token }}
          />
        </Panel>
      ) : page.view === "not-subscribed" ? (
        <UnsubscribedNotice email={page.email} done={false} preferencesPath={null} />
      ) : (
        <UnsubscribeForm email={page.email} linkError={page.error} lastResult={lastResult} />
      )}
    </SubscriptionPage>
  );
}

function UnsubscribeForm({
  email,
  linkError,
  lastResult,
}: {
  email: string;
  /** the signed link this page was opened with did not hold */
  linkError: string | null;
  lastResult: SubmissionResult<string[]> | null;
}) {
  const form = submitted("unsubscribe", lastResult);
  // What the field holds: the query's address, or what was typed before the server answered.
  const typed = form.value("email") ?? email;

  return (
    <Panel>
      <EmailLinkForm
        form={form}
        intent="unsubscribe"
        formErrors={[...(linkError ? [linkError] : []), ...(form.errors("") ?? [])]}
        email={email}
        hint="We email this address a link to confirm, so nobody else can unsubscribe you."
        disabledWhenBlank
        className="space-y-5"
        aria-label="Unsubscribe"
      >
        Unsubscribe from all newsletters
      </EmailLinkForm>
      <p className="mt-6 border-t border-black/10 pt-5">
        Only want fewer emails?{" "}
        <Link
          to={
            typed.trim()
              ? `/subscription/preferences?${new URLSearchParams({ email: typed.trim() })}`
              : "/subscription/preferences"
          }
          data-email-from={form.field("email").id}
          className="font-semibold"
        >
          Manage your preferences
        </Link>{" "}
        and keep the newsletters you like.
      </p>
    </Panel>
  );
}
