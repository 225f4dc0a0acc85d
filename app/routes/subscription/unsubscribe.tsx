import { getFormProps, type SubmissionResult, useForm } from "@conform-to/react";
import { getZodConstraint, parseWithZod } from "@conform-to/zod/v4";
import { useState } from "react";
import { Form, useNavigation } from "react-router";
import { unsubscribeSchema } from "../../../shared/schemas/unsubscribe";
import {
  Notice,
  Panel,
  primaryButton,
  SubscriptionPage,
  subscriptionHeaders,
  subscriptionMeta,
  useCompanyName,
  useHydrated,
} from "../../components/subscription-page";
import { InputField } from "../../components/ui/form";
import { ConfirmUnsubscribe, UnsubscribedNotice } from "../../components/unsubscribe-confirm";
import { UnsubscribeFeedbackForm } from "../../components/unsubscribe-feedback-form";
import { Link } from "../../lib/page-scripts";
import type { Route } from "./+types/unsubscribe";

export { action, loader } from "./unsubscribe.server";

export const meta: Route.MetaFunction = (args) =>
  subscriptionMeta(
    args,
    args.data?.view === "done" ? "Unsubscribed" : "Unsubscribe",
    "unsubscribe",
  );

export const headers = subscriptionHeaders;

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
  const hydrated = useHydrated();
  const navigation = useNavigation();
  const [form, fields] = useForm({
    id: "unsubscribe",
    lastResult: navigation.state === "idle" ? lastResult : null,
    defaultValue: { email },
    constraint: getZodConstraint(unsubscribeSchema),
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: unsubscribeSchema }),
  });
  // What the field holds: the query's address, or what was typed before the server answered.
  const typedBefore = lastResult?.initialValue?.email;
  const [value, setValue] = useState(typeof typedBefore === "string" ? typedBefore : email);
  const sending = navigation.state === "submitting";
  const errors = [...(linkError ? [linkError] : []), ...(form.errors ?? [])];

  return (
    <Panel>
      <Form method="post" className="space-y-5" {...getFormProps(form)} aria-label="Unsubscribe">
        <input type="hidden" name="intent" value="unsubscribe" />
        {errors.length ? (
          <div id={form.errorId}>
            <Notice tone="error">{errors.join(" ")}</Notice>
          </div>
        ) : null}
        <InputField
          field={fields.email}
          label="Email address"
          hint="We email this address a link to confirm, so nobody else can unsubscribe you."
          type="email"
          autoComplete="email"
          onChange={(event) => setValue(event.currentTarget.value)}
        />
        <button
          type="submit"
          className={primaryButton}
          // SPEC §5: disabled while the field is blank (the server refuses a blank one anyway).
          disabled={hydrated && value.trim() === ""}
          aria-disabled={sending || undefined}
        >
          {sending ? "Sending…" : "Unsubscribe from all newsletters"}
        </button>
      </Form>
      <p className="mt-6 border-t border-black/10 pt-5">
        Only want fewer emails?{" "}
        <Link
          to={
            value.trim()
              ? `/subscription/preferences?${new URLSearchParams({ email: value.trim() })}`
              : "/subscription/preferences"
          }
          className="font-semibold"
        >
          Manage your preferences
        </Link>{" "}
        and keep the newsletters you like.
      </p>
    </Panel>
  );
}
