import { AuthCard, AuthMessage } from "../../components/auth-card";
import { ChoosePasswordForm } from "../../components/choose-password-form";
import { noindexMeta } from "../../lib/meta";
import type { Route } from "./+types/accept-invitation";

export { action, loader } from "./accept-invitation.server";

export const meta: Route.MetaFunction = () => noindexMeta("Accept the invitation");

export default function AcceptInvitation({ loaderData, actionData }: Route.ComponentProps) {
  const { invitation } = loaderData;
  if (!invitation) {
    return (
      <AuthCard title="Accept the invitation">
        <AuthMessage tone="error">
          This invitation is not valid any more: it works once, for seven days, and may have been
          withdrawn. Ask the person who invited you to send a new one.
        </AuthMessage>
      </AuthCard>
    );
  }
  return (
    <AuthCard title="Accept the invitation">
      <p className="mt-2 break-words">
        {invitation.invitedBy ?? "A super admin"} invited <strong>{invitation.email}</strong> as{" "}
        {invitation.role === "super_admin" ? "a super admin" : "an editor"}. Choose your password to
        create your account.
      </p>
      {actionData?.error ? <AuthMessage tone="error">{actionData.error}</AuthMessage> : null}
      <ChoosePasswordForm
        email={invitation.email}
        fields={actionData?.fields ?? {}}
        submitLabel="Create my account"
      />
    </AuthCard>
  );
}
