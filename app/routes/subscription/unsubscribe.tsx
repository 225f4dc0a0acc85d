import {
  getFormProps,
  getInputProps,
  getTextareaProps,
  type SubmissionResult,
  useForm,
} from "@conform-to/react";
import { getZodConstraint, parseWithZod } from "@conform-to/zod/v4";
import { useState } from "react";
import { Form, Link, useNavigation } from "react-router";
import {
  FEEDBACK_DETAILS_MAX as DETAILS_MAX,
  feedbackSchema,
  FEEDBACK_REASONS as REASONS,
  unsubscribeSchema,
} from "../../../shared/schemas/unsubscribe";
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
import { FieldErrors, FieldShell, TextArea, TextInput } from "../../components/ui/form";
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
          <Feedback
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
        <FieldShell id={fields.email.id} label="Email address" errors={fields.email.errors}>
          <TextInput
            {...getInputProps(fields.email, { type: "email" })}
            autoComplete="email"
            onChange={(event) => setValue(event.currentTarget.value)}
          />
        </FieldShell>
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

function Feedback({
  token,
  lastResult,
}: {
  token: string;
  lastResult: SubmissionResult<string[]> | null;
}) {
  const hydrated = useHydrated();
  const navigation = useNavigation();
  const [form, fields] = useForm({
    id: "feedback",
    lastResult: navigation.state === "idle" ? lastResult : null,
    constraint: getZodConstraint(feedbackSchema),
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: feedbackSchema }),
  });
  const [reason, setReason] = useState(String(fields.reason.initialValue ?? ""));
  const sending = navigation.state === "submitting";
  const reasonErrorId = fields.reason.errorId;
  // Without JavaScript the box is always there; with it, it appears when 'Other' is chosen.
  const showDetails = !hydrated || reason === "Other";

  return (
    <Panel labelledBy="feedback-heading">
      <h2 id="feedback-heading" className="text-xl font-bold">
        Would you tell us why?
      </h2>
      <p className="mt-1">Optional, and it helps us send better newsletters.</p>
      <Form method="post" className="mt-5 space-y-5" {...getFormProps(form)}>
        <input type="hidden" name="intent" value="feedback" />
        <input type="hidden" name="done" value={token} />
        {form.errors?.length ? (
          <div id={form.errorId}>
            <Notice tone="error">{form.errors.join(" ")}</Notice>
          </div>
        ) : null}
        <fieldset>
          <legend className="font-semibold">Reason for unsubscribing</legend>
          <div className="mt-3 space-y-2">
            {REASONS.map((option, index) => {
              const id = `${fields.reason.id}-${index}`;
              return (
                <label
                  key={option}
                  htmlFor={id}
                  className="flex cursor-pointer items-center gap-3 rounded-brand border border-black/15 px-3 py-2.5 hover:border-brand-strong has-[:checked]:border-brand-strong has-[:checked]:bg-brand/5"
                >
                  <input
                    id={id}
                    type="radio"
                    name={fields.reason.name}
                    value={option}
                    defaultChecked={fields.reason.initialValue === option}
                    onChange={() => setReason(option)}
                    aria-invalid={fields.reason.errors ? true : undefined}
                    aria-describedby={fields.reason.errors ? reasonErrorId : undefined}
                    className="size-5 shrink-0 accent-[var(--brand-primary-strong)]"
                  />
                  {option}
                </label>
              );
            })}
          </div>
          <FieldErrors id={reasonErrorId} errors={fields.reason.errors} />
        </fieldset>
        {showDetails ? (
          <FieldShell
            id={fields.details.id}
            label={hydrated ? "Tell us more" : "Tell us more (for Other)"}
            optional
            errors={fields.details.errors}
          >
            <TextArea {...getTextareaProps(fields.details)} rows={4} maxLength={DETAILS_MAX} />
          </FieldShell>
        ) : null}
        <button type="submit" className={primaryButton} aria-disabled={sending || undefined}>
          {sending ? "Sending…" : "Send Feedback"}
        </button>
      </Form>
    </Panel>
  );
}
