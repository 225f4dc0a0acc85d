import { Form, useNavigation } from "react-router";
import { MIN_PASSWORD_LENGTH } from "../../shared/schemas/staff";
import { SubmitButton, TextField } from "./ui/form";

/** A new password, twice: the reset link's and the invitation's form. */
export function ChoosePasswordForm({
  email,
  fields,
  submitLabel,
}: {
  email: string;
  fields: Record<string, string[]>;
  submitLabel: string;
}) {
  const busy = useNavigation().state === "submitting";
  return (
    <Form method="post" className="mt-6 space-y-5">
      {/* Password managers file the new password under the right account. */}
      <input type="email" name="username" value={email} autoComplete="username" readOnly hidden />
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
