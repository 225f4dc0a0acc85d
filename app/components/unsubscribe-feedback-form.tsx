import { getFormProps, getTextareaProps, type SubmissionResult, useForm } from "@conform-to/react";
import { getZodConstraint, parseWithZod } from "@conform-to/zod/v4";
import { useState } from "react";
import { Form, useNavigation } from "react-router";
import {
  FEEDBACK_DETAILS_MAX as DETAILS_MAX,
  feedbackSchema,
  FEEDBACK_REASONS as REASONS,
} from "../../shared/schemas/unsubscribe";
import { Notice, Panel, primaryButton, useHydrated } from "./subscription-page";
import { FieldErrors, FieldShell, TextArea } from "./ui/form";

/** The optional "why are you leaving?" form after an unsubscribe (SPEC §2 /subscription/unsubscribe). */
export function UnsubscribeFeedbackForm({
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
