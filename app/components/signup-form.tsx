import {
  getCollectionProps,
  getFormProps,
  getInputProps,
  type SubmissionResult,
  useForm,
} from "@conform-to/react";
import { getZodConstraint, parseWithZod } from "@conform-to/zod/v4";
import { useState } from "react";
import { Link, useFetcher, useLocation } from "react-router";
import { signupSchema } from "../../shared/schemas/signup";
import { useHydrated } from "./subscription-page";
import { FieldErrors, FieldShell, Honeypot, InputField, SubmitButton, TextInput } from "./ui/form";

export interface SignupList {
  key: string;
  name: string;
  description: string;
}

/** What POST /newsletter/subscribe answers: to a fetcher, or as action data without JavaScript. */
export type SignupAnswer =
  | { ok: true; message: string }
  | { ok: false; result: SubmissionResult<string[]> };

export const SIGNUP_ACTION = "/newsletter/subscribe";

interface SignupFormProps {
  lists: SignupList[];
  defaultList: string;
  /** email and button only (the home hero): the visitor joins the default list */
  compact?: boolean;
  /** the answer to a submission made without JavaScript, rendered by the page that got it */
  answer?: SignupAnswer | null;
}

/**
 * The newsletter sign-up form. It is a plain POST form to /newsletter/subscribe, so it works before
 * JavaScript loads and on cached pages; once hydrated it submits through a fetcher and shows the
 * answer in place, without reloading the page or its data.
 */
export function SignupForm({
  lists,
  defaultList,
  compact = false,
  answer = null,
}: SignupFormProps) {
  const fetcher = useFetcher<SignupAnswer>();
  const hydrated = useHydrated();
  const { pathname } = useLocation();
  const [dismissed, setDismissed] = useState<SignupAnswer | null>(null);
  const latest = fetcher.data ?? answer;
  const current = latest === dismissed ? null : latest;
  const [form, fields] = useForm({
    lastResult: fetcher.state === "idle" && current && !current.ok ? current.result : null,
    defaultValue: { lists: [defaultList] },
    constraint: getZodConstraint(signupSchema),
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: signupSchema }),
  });
  const busy = fetcher.state !== "idle";

  if (current?.ok) {
    return (
      <div
        role="status"
        data-testid="signup-thanks"
        className="rounded-brand border-2 border-ok bg-surface p-4 text-ink"
      >
        <p className="font-semibold text-ok">{current.message}</p>
        <button
          type="button"
          onClick={() => setDismissed(current)}
          className="mt-2 text-sm font-semibold text-brand-strong underline"
        >
          Sign up another address
        </button>
      </div>
    );
  }

  const formErrors = form.errors?.length ? (
    <div role="alert" id={form.errorId} className="font-medium text-danger">
      {form.errors.join(" ")}
    </div>
  ) : null;
  const email = getInputProps(fields.email, { type: "email" });
  const submit = (
    <SubmitButton pending={busy} disabled={busy}>
      {busy ? "Subscribing…" : "Subscribe"}
    </SubmitButton>
  );

  return (
    <fetcher.Form
      method="post"
      action={SIGNUP_ACTION}
      defaultShouldRevalidate={false}
      className="relative"
      aria-label="Newsletter sign-up"
      {...getFormProps(form)}
    >
      {/* Tells the action a script is waiting for its answer (no redirect then). */}
      {hydrated ? <input type="hidden" name="js" value="1" /> : null}
      {/* The page it was sent from: part of the consent record (issue 16, point 3). */}
      <input type="hidden" name="page" value={pathname} />
      {compact ? (
        <div>
          <label htmlFor={fields.email.id} className="sr-only">
            Email address
          </label>
          <div className="flex flex-col gap-2 sm:flex-row">
            <TextInput
              {...email}
              key={email.key}
              autoComplete="email"
              placeholder="you@company.com"
              className="sm:max-w-sm"
            />
            <input type="hidden" name={fields.lists.name} value={defaultList} />
            {submit}
          </div>
          <FieldErrors id={fields.email.errorId} errors={fields.email.errors} />
          <div className="mt-1">{formErrors}</div>
        </div>
      ) : (
        <div className="space-y-5">
          {formErrors ? (
            <div className="rounded-brand border-2 border-danger bg-surface p-3">{formErrors}</div>
          ) : null}
          <FieldShell id={fields.email.id} label="Email" errors={fields.email.errors}>
            <TextInput {...email} key={email.key} autoComplete="email" />
          </FieldShell>
          <InputField
            field={fields.name}
            label="Name"
            optional
            key={fields.name.key}
            autoComplete="name"
          />
          <fieldset aria-describedby={fields.lists.errorId}>
            <legend className="font-semibold">Newsletters</legend>
            <input type="hidden" name={fields.chooseLists.name} value="1" />
            <div className="mt-2 space-y-2">
              {getCollectionProps(fields.lists, {
                type: "checkbox",
                options: lists.map((list) => list.key),
              }).map(({ key, ...props }) => {
                const list = lists.find((candidate) => candidate.key === props.value);
                return (
                  <label
                    key={key}
                    htmlFor={props.id}
                    className="flex cursor-pointer gap-3 rounded-brand border border-black/15 p-3 has-[:checked]:border-brand-strong has-[:checked]:bg-brand/5"
                  >
                    <input {...props} className="mt-1 size-4 shrink-0 accent-brand-strong" />
                    <span>
                      <span className="block font-semibold">{list?.name}</span>
                      {list?.description ? (
                        <span className="block text-sm opacity-85">{list.description}</span>
                      ) : null}
                    </span>
                  </label>
                );
              })}
            </div>
            <FieldErrors id={fields.lists.errorId} errors={fields.lists.errors} />
          </fieldset>
          {submit}
          <p className="text-sm">
            We will email you about your subscription. Every newsletter has a link to change or
            cancel it. <Link to="/privacy">Privacy Policy</Link>
          </p>
        </div>
      )}
      <Honeypot id={`${form.id}-website`} />
    </fetcher.Form>
  );
}
