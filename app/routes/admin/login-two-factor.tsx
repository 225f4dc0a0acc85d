import { Form, useNavigation, useSearchParams } from "react-router";
import { AuthCard, AuthMessage } from "../../components/auth-card";
import { SubmitButton, TextField } from "../../components/ui/form";
import { LinkLine } from "../../components/ui/layout";
import { noindexMeta } from "../../lib/meta";
import type { Route } from "./+types/login-two-factor";

export { action, loader } from "./login-two-factor.server";

export const meta: Route.MetaFunction = () => noindexMeta("Two-factor sign-in");

export default function TwoFactorSignIn({ actionData }: Route.ComponentProps) {
  const [searchParams] = useSearchParams();
  const busy = useNavigation().state === "submitting";
  return (
    <AuthCard title="Two-factor sign-in">
      <p className="mt-2">Enter the 6-digit code your authenticator app shows for this site.</p>
      {actionData?.error ? <AuthMessage tone="error">{actionData.error}</AuthMessage> : null}
      <Form method="post" className="mt-6 space-y-5">
        <input type="hidden" name="redirectTo" value={searchParams.get("redirectTo") ?? ""} />
        <TextField
          id="code"
          label="Authentication code"
          hint="Lost your phone? Enter one of your recovery codes instead."
          autoComplete="one-time-code"
          autoFocus
          required
          maxLength={40}
          spellCheck={false}
        />
        <SubmitButton pending={busy}>{busy ? "Checking…" : "Verify"}</SubmitButton>
      </Form>
      <LinkLine to="/admin/login" className="mt-5 text-sm">
        Start again
      </LinkLine>
    </AuthCard>
  );
}
