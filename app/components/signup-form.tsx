import type { SubmissionResult } from "@conform-to/react";
import { useId } from "react";
import { useLocation } from "react-router";
import { MAX_EMAIL_LENGTH } from "../../shared/schemas/email";
import { SIGNUP_LIMITS } from "../../shared/schemas/signup";
import { Kept, Link } from "../lib/page-scripts";
import { FieldErrors, FieldShell, Honeypot, SubmitButton, TextInput } from "./ui/form";
import { type SubmittedData, submitted, submittedData } from "./ui/submitted";

// A type, not an interface: a kept part's data must be plain data (KeptData).
export type SignupList = {
  key: string;
  name: string;
  description: string;
};

/** What POST /newsletter/subscribe answers: as action data to a page, or to a client sending js=1. */
export type SignupAnswer =
  | { ok: true; message: string }
  | { ok: false; result: SubmissionResult<string[]> };

export const SIGNUP_ACTION = "/newsletter/subscribe";

interface SignupFormProps {
  lists: SignupList[];
  defaultList: string;
  /** email and button only (the home hero): the visitor joins the default list */
  compact?: boolean;
  /** the answer to a submission, rendered by the page that got it */
  answer?: SignupAnswer | null;
}

/**
 * The newsletter sign-up form: a plain POST form to /newsletter/subscribe on pages that ship no
 * JavaScript (decision 021). The action checks everything, and on failure the page that received
 * the post shows the errors beside what was typed; the inputs still say what they expect (required,
 * type, lengths) for autofill and assistive technology. No form library: it would render the
 * same markup at a cost on every page view.
 */
export function SignupForm({
  lists,
  defaultList,
  compact = false,
  answer = null,
}: SignupFormProps) {
  const id = useId();
  const { pathname } = useLocation();
  const result = submittedData(answer && !answer.ok ? answer.result : undefined);

  if (answer?.ok) {
    return (
      <div
        role="status"
        data-testid="signup-thanks"
        className="rounded-brand border-2 border-ok bg-surface p-4 text-ink"
      >
        <p className="font-semibold text-ok">{answer.message}</p>
      </div>
    );
  }

  const form = {
    ...submitted(id, result).formProps,
    action: SIGNUP_ACTION,
    className: "relative",
    "aria-label": "Newsletter sign-up",
  };
  return (
    <Kept
      as="form"
      props={form}
      part={SignupFields}
      data={{ id, page: pathname, lists, defaultList, compact, result }}
      // Until someone submits it, the form is the same for every visitor of this page.
      keep={answer === null}
    />
  );
}

/** The form's fields; the page it is on is part of the consent record (issue 16, point 3). */
function SignupFields({
  id,
  page,
  lists,
  defaultList,
  compact,
  result,
}: {
  id: string;
  page: string;
  lists: SignupList[];
  defaultList: string;
  compact: boolean;
  result: SubmittedData | null;
}) {
  const { errors, field, value, values, formErrorId } = submitted(id, result);
  const formErrorList = errors("");
  const formErrors = formErrorList ? (
    <div role="alert" id={formErrorId} className="font-medium text-danger">
      {formErrorList.join(" ")}
    </div>
  ) : null;
  const email = (
    <TextInput
      {...field("email")}
      type="email"
      required
      maxLength={MAX_EMAIL_LENGTH}
      defaultValue={value("email")}
      autoComplete="email"
      placeholder={compact ? "you@company.com" : undefined}
      className={compact ? "sm:max-w-sm" : undefined}
    />
  );
  const submit = <SubmitButton>Subscribe</SubmitButton>;
  const chosen = result ? values("lists") : [defaultList];
  return (
    <>
      {/* The page it was sent from: part of the consent record (issue 16, point 3). */}
      <input type="hidden" name="page" value={page} />
      {compact ? (
        <div>
          <label htmlFor={`${id}-email`} className="sr-only">
            Email address
          </label>
          <div className="flex flex-col gap-2 sm:flex-row">
            {email}
            <input type="hidden" name="lists" value={defaultList} />
            {submit}
          </div>
          <FieldErrors id={`${id}-email-error`} errors={errors("email")} />
          <div className="mt-1">{formErrors}</div>
        </div>
      ) : (
        <div className="space-y-5">
          {formErrors ? (
            <div className="rounded-brand border-2 border-danger bg-surface p-3">{formErrors}</div>
          ) : null}
          <FieldShell id={`${id}-email`} label="Email" errors={errors("email")}>
            {email}
          </FieldShell>
          <FieldShell id={`${id}-name`} label="Name" optional errors={errors("name")}>
            <TextInput
              {...field("name")}
              type="text"
              maxLength={SIGNUP_LIMITS.name}
              defaultValue={value("name")}
              autoComplete="name"
            />
          </FieldShell>
          <fieldset
            aria-describedby={field("lists")["aria-describedby"]}
            aria-invalid={field("lists")["aria-invalid"]}
          >
            <legend className="font-semibold">Newsletters</legend>
            <input type="hidden" name="chooseLists" value="1" />
            <div className="mt-2 space-y-2">
              {lists.map((list) => (
                <label
                  key={list.key}
                  htmlFor={`${id}-lists-${list.key}`}
                  className="flex cursor-pointer gap-3 rounded-brand border border-black/15 p-3 has-[:checked]:border-brand-strong has-[:checked]:bg-brand/5"
                >
                  <input
                    id={`${id}-lists-${list.key}`}
                    type="checkbox"
                    name="lists"
                    value={list.key}
                    defaultChecked={chosen.includes(list.key)}
                    className="mt-1 size-4 shrink-0 accent-brand-strong"
                  />
                  <span>
                    <span className="block font-semibold">{list.name}</span>
                    {list.description ? (
                      <span className="block text-sm opacity-85">{list.description}</span>
                    ) : null}
                  </span>
                </label>
              ))}
            </div>
            <FieldErrors id={`${id}-lists-error`} errors={errors("lists")} />
          </fieldset>
          {submit}
          <p className="text-sm">
            We will email you about your subscription. Every newsletter has a link to change or
            cancel it. <Link to="/privacy">Privacy Policy</Link>
          </p>
        </div>
      )}
      <Honeypot id={`${id}-website`} />
    </>
  );
}
