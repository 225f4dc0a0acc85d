import type { ReactNode } from "react";
import { Form, useNavigation } from "react-router";
import { MIN_PASSWORD_LENGTH } from "../../shared/schemas/staff";
import { AuthCard, AuthMessage } from "./auth-card";
import { SubmitButton, TextField } from "./ui/form";

/**
 * The page behind an emailed staff link (a password reset, an invitation): why the link no longer
 * works, or what it is for and the new password, twice.
 */
export function PasswordLinkPage({
  title,
  email,
  invalid,
  intro,
  answer,
  submitLabel,
  askName = false,
}: {
  title: string;
  /** ask for the account's name too (an invitation) */
  askName?: boolean;
  /** the account or invitee the link is for; null when the link is not valid */
  email: string | null;
  invalid: ReactNode;
  intro: ReactNode;
  /** the last answer to the form */
  answer: unknown;
  submitLabel: string;
}) {
  const refused = (answer ?? {}) as { fields?: Record<string, string[]>; error?: string | null };
  return (
    <AuthCard title={title}>
      {email === null ? (
        invalid
      ) : (
        <>
          <p className="mt-2 break-words">{intro}</p>
          {refused.error ? <AuthMessage tone="error">{refused.error}</AuthMessage> : null}
          <ChoosePasswordForm
            email={email}
            fields={refused.fields ?? {}}
            submitLabel={submitLabel}
            askName={askName}
          />
        </>
      )}
    </AuthCard>
  );
}

/** A new password, twice (and, for an invitation, the name). */
function ChoosePasswordForm({
  email,
  fields,
  submitLabel,
  askName,
}: {
  email: string;
  fields: Record<string, string[]>;
  submitLabel: string;
  askName: boolean;
}) {
  const busy = useNavigation().state === "submitting";
  return (
    <Form method="post" className="mt-6 space-y-5">
      {/* Password managers file the new password under the right account. */}
      <input type="email" name="username" value={email} autoComplete="username" readOnly hidden />
      {askName ? (
        <TextField
          id="displayName"
          label="Your name"
          hint="Optional. Shown as the byline on newsletters you write; you can change it later."
          autoComplete="name"
          maxLength={100}
          errors={fields.displayName}
        />
      ) : null}
      <TextField
        id="password"
        label="New password"
        hint={`At least ${MIN_PASSWORD_LENGTH} characters, and not a common password.`}
        type="password"
        autoComplete="new-password"
        required
        minLength={MIN_PASSWORD_LENGTH}
        maxLength={200}
        errors={fields.password}
      />
      <TextField
        id="confirmPassword"
        label="Repeat the password"
        type="password"
        autoComplete="new-password"
        required
        maxLength={200}
        errors={fields.confirmPassword}
      />
      <SubmitButton pending={busy}>{submitLabel}</SubmitButton>
    </Form>
  );
}
