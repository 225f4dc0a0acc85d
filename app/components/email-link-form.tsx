import type { ComponentProps } from "react";
import { FormErrorNotice, primaryButton } from "./subscription-page";
import { EmailInput, FieldShell } from "./ui/form";
import type { submitted } from "./ui/submitted";

/**
 * The form of a subscription page that asks for an email address and mails a signed link to it
 * (DESIGN.md §7.10: the preference lookup, the unsubscribe form): the form's own errors, the
 * address, and its button (`inline`: beside the field). `form` is `submitted(intent, …)`.
 */
export function EmailLinkForm({
  form,
  intent,
  formErrors,
  email,
  hint,
  inline = false,
  disabledWhenBlank = false,
  children,
  ...attributes
}: {
  form: ReturnType<typeof submitted>;
  /** the form's id and its hidden intent */
  intent: string;
  /** the form's own errors, when more than the action's (a link that did not hold) */
  formErrors?: string[];
  /** the address the page was opened with */
  email: string;
  hint?: string;
  inline?: boolean;
  /** SPEC §5 (unsubscribe): the button is disabled while the field is blank */
  disabledWhenBlank?: boolean;
  /** the button's label */
  children: string;
} & Omit<ComponentProps<"form">, "children">) {
  const { errors, field, value, formErrorId, formProps } = form;
  const ownErrors = formErrors ?? errors("");
  const emailField = field("email", { hint: Boolean(hint) });
  const button = (
    <button
      type="submit"
      className={primaryButton}
      data-disabled-when-blank={disabledWhenBlank ? emailField.id : undefined}
      // SPEC §4 'loading': the link is on its way.
      data-busy-label="Sending…"
    >
      {children}
    </button>
  );
  const input = (
    <EmailInput
      {...emailField}
      defaultValue={value("email") ?? (email || undefined)}
      className={inline ? "sm:flex-1" : undefined}
    />
  );
  return (
    <form
      {...formProps}
      aria-describedby={ownErrors?.length ? formErrorId : undefined}
      {...attributes}
    >
      <input type="hidden" name="intent" value={intent} />
      <FormErrorNotice id={formErrorId} errors={ownErrors} />
      <FieldShell id={emailField.id} label="Email address" hint={hint} errors={errors("email")}>
        {inline ? (
          <div className="flex flex-col gap-3 sm:flex-row">
            {input}
            {button}
          </div>
        ) : (
          input
        )}
      </FieldShell>
      {inline ? null : button}
    </form>
  );
}
