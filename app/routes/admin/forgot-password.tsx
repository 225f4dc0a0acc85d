import { Form, useNavigation, useSearchParams } from "react-router";
import { AuthCard, AuthMessage } from "../../components/auth-card";
import { SubmitButton, TextField } from "../../components/ui/form";
import { LinkLine } from "../../components/ui/layout";
import { noindexMeta } from "../../lib/meta";
import type { Route } from "./+types/forgot-password";

export { action } from "./forgot-password.server";

export const meta: Route.MetaFunction = () => noindexMeta("Forgot password");

export default function ForgotPassword({ actionData }: Route.ComponentProps) {
  const [searchParams] = useSearchParams();
  const busy = useNavigation().state === "submitting";
  return (
    <AuthCard title="Forgot password?">
      {searchParams.get("sent") === "1" ? (
        <AuthMessage tone="ok">
          If an account exists for that address, we have sent it a link to choose a new password.
          The link works once, for one hour.
        </AuthMessage>
      ) : (
        <>
          <p className="mt-2">
            Enter the email address of your staff account. We will email you a link to choose a new
            password.
          </p>
          {actionData?.error ? <AuthMessage tone="error">{actionData.error}</AuthMessage> : null}
          <Form method="post" className="mt-6 space-y-5">
            <TextField
              id="email"
              label="Email"
              type="email"
              autoComplete="username"
              required
              maxLength={254}
            />
            <SubmitButton pending={busy}>{busy ? "Sending…" : "Send reset link"}</SubmitButton>
          </Form>
        </>
      )}
      <LinkLine to="/admin/login" className="mt-5 text-sm">
        Back to sign-in
      </LinkLine>
    </AuthCard>
  );
}
