import type { SubmissionResult } from "@conform-to/react";
import {
  FEEDBACK_DETAILS_MAX as DETAILS_MAX,
  FEEDBACK_REASONS as REASONS,
} from "../../shared/schemas/unsubscribe";
import { FormErrorNotice, Panel, primaryButton } from "./subscription-page";
import { FieldErrors, FieldShell, TextArea } from "./ui/form";
import { submitted } from "./ui/submitted";

/**
 * The optional "why are you leaving?" form after an unsubscribe (SPEC §2 /subscription/unsubscribe).
 * A plain form: without JavaScript the box is always there, labelled for 'Other'; the page's form
 * enhancements show it only when 'Other' is chosen.
 */
export function UnsubscribeFeedbackForm({
  token,
  lastResult,
}: {
  token: string;
  lastResult: SubmissionResult<string[]> | null;
}) {
  const { errors, field, value, formErrorId, formProps } = submitted("feedback", lastResult);
  const reason = field("reason");
  const details = field("details");

  return (
    <Panel labelledBy="feedback-heading">
      <h2 id="feedback-heading" className="text-xl font-bold">
        Would you tell us why?
      </h2>
      <p className="mt-1">Optional, and it helps us send better newsletters.</p>
      <form {...formProps} className="mt-5 space-y-5">
        <input type="hidden" name="intent" value="feedback" />
        <input type="hidden" name="done" value={token} />
        <FormErrorNotice id={formErrorId} errors={errors("")} />
        <fieldset>
          <legend className="font-semibold">Reason for unsubscribing</legend>
          <div className="mt-3 space-y-2">
            {REASONS.map((option, index) => {
              const id = `${reason.id}-${index}`;
              return (
                <label
                  key={option}
                  htmlFor={id}
                  className="flex cursor-pointer items-center gap-3 rounded-brand border border-black/15 px-3 py-2.5 hover:border-brand-strong has-[:checked]:border-brand-strong has-[:checked]:bg-brand/5"
                >
                  <input
                    {...reason}
                    id={id}
                    type="radio"
                    value={option}
                    defaultChecked={value("reason") === option}
                    className="size-5 shrink-0 accent-[var(--brand-primary-strong)]"
                  />
                  {option}
                </label>
              );
            })}
          </div>
          <FieldErrors id={`${reason.id}-error`} errors={errors("reason")} />
        </fieldset>
        <div data-shown-when="reason=Other">
          <FieldShell
            id={details.id}
            label={
              <>
                Tell us more<span data-without-script> (for Other)</span>
              </>
            }
            optional
            errors={errors("details")}
          >
            <TextArea
              {...details}
              rows={4}
              maxLength={DETAILS_MAX}
              defaultValue={value("details")}
            />
          </FieldShell>
        </div>
        <button type="submit" className={primaryButton} data-busy-label="Sending…">
          Send Feedback
        </button>
      </form>
    </Panel>
  );
}
