import { getFormProps, type SubmissionResult, useForm } from "@conform-to/react";
import { getZodConstraint, parseWithZod } from "@conform-to/zod/v4";
import { useState } from "react";
import { Form, Link, useNavigation } from "react-router";
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
import { UnsubscribeFeedbackForm } from "../../components/unsubscribe-feedback-form";
import type { Route } from "./+types/unsubscribe";

export { action, loader } from "./unsubscribe.server";

export const meta: Route.MetaFunction = (args) =>
  subscriptionMeta(args, {
    title: args.data?.done ? "Unsubscribed" : "Unsubscribe",
    description: "Stop receiving all newsletters sent to your email address.",
  });

export const headers = subscriptionHeaders;

export default function Unsubscribe({ loaderData, actionData }: Route.ComponentProps) {
  const { email, done } = loaderData;
  const companyName = useCompanyName();
  if (done) {
    return (
      <SubscriptionPage title="Unsubscribe" footer="privacy-and-terms">
        <Notice tone="ok" title="Unsubscribed Successfully" testId="unsubscribed">
          <p className="break-words">
            <strong>{email}</strong> will no longer receive newsletters from {companyName}. Changed
            your mind?{" "}
            <Link to={`/subscription/preferences?${new URLSearchParams({ email })}`}>
              Choose your newsletters again
            </Link>
            .
          </p>
        </Notice>
        {done.feedbackSent ? (
          <Notice tone="ok" title="Thank you for your feedback." testId="feedback-thanks">
            It helps us send better newsletters.
          </Notice>
        ) : (
          <UnsubscribeFeedbackForm
            token={done.token}
            lastResult={actionData?.form === "feedback" ? actionData.result : null}
          />
        )}
      </SubscriptionPage>
    );
  }
  return (
    <SubscriptionPage
      title="Unsubscribe"
      lead={`Enter your email address to stop receiving all newsletters from ${companyName}.`}
      footer="privacy-and-terms"
    >
      <UnsubscribeForm
        email={email}
        lastResult={actionData?.form === "unsubscribe" ? actionData.result : null}
      />
    </SubscriptionPage>
  );
}

function UnsubscribeForm({
  email,
  lastResult,
}: {
  email: string;
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

  return (
    <Panel>
      <Form method="post" className="space-y-5" {...getFormProps(form)} aria-label="Unsubscribe">
        <input type="hidden" name="intent" value="unsubscribe" />
        {form.errors?.length ? (
          <div id={form.errorId}>
            <Notice tone="error">{form.errors.join(" ")}</Notice>
          </div>
        ) : null}
        <InputField
          field={fields.email}
          label="Email address"
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
          {sending ? "Unsubscribing…" : "Unsubscribe from all newsletters"}
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
