import { Link } from "react-router";
import { AuthCard, AuthMessage } from "../../components/auth-card";
import { ChoosePasswordForm } from "../../components/choose-password-form";
import { noindexMeta } from "../../lib/meta";
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
  const { account } = loaderData;
  if (!account) {
    return (
      <AuthCard title="Choose a new password">
        <AuthMessage tone="error">
          This link is not valid any more: it works once, for one hour.
        </AuthMessage>
        <p className="mt-5">
          <Link to="/admin/forgot-password" className="font-semibold">
            Ask for a new link
          </Link>
        </p>
      </AuthCard>
    );
  }
  const answer = actionData && "fields" in actionData ? actionData : null;
  return (
    <AuthCard title="Choose a new password">
      <p className="mt-2 break-words">
        For <strong>{account.email}</strong>. Every session of the account is signed out when you
        save it.
      </p>
      {answer?.error ? <AuthMessage tone="error">{answer.error}</AuthMessage> : null}
      <ChoosePasswordForm
        email={account.email}
        fields={answer?.fields ?? {}}
        submitLabel="Save the new password"
      />
    </AuthCard>
  );
}
