import { AuthCard, AuthMessage } from "../../components/auth-card";
import { PasswordLinkPage } from "../../components/choose-password-form";
import { LinkLine } from "../../components/ui/layout";
import { noindexMeta } from "../../lib/meta";
import { Link } from "../../lib/page-scripts";
import type { Route } from "./+types/reset-password";

export { action, loader } from "./reset-password.server";

export const meta: Route.MetaFunction = () => noindexMeta("Choose a new password");

export default function ResetPassword({ loaderData, actionData }: Route.ComponentProps) {
  if (actionData && "done" in actionData) {
    return (
      <AuthCard title="Password changed">
        <AuthMessage tone="ok">
          Your new password is set and every session was signed out.{" "}
          <Link to="/admin/login">Sign in</Link> with it and your authenticator app.
        </AuthMessage>
      </AuthCard>
    );
  }
  const email = loaderData.account?.email ?? null;
  return (
    <PasswordLinkPage
      title="Choose a new password"
      email={email}
      answer={actionData}
      submitLabel="Save the new password"
      intro={
        <>
          For <strong>{email}</strong>. Every session of the account is signed out when you save it.
        </>
      }
      invalid={
        <>
          <AuthMessage tone="error">
            This link is not valid any more: it works once, for one hour.
          </AuthMessage>
          <LinkLine to="/admin/forgot-password">Ask for a new link</LinkLine>
        </>
      }
    />
  );
}
