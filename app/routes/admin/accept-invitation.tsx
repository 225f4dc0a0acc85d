import { AuthMessage } from "../../components/auth-card";
import { PasswordLinkPage } from "../../components/choose-password-form";
import { noindexMeta } from "../../lib/meta";
import type { Route } from "./+types/accept-invitation";

export { action, loader } from "./accept-invitation.server";

export const meta: Route.MetaFunction = () => noindexMeta("Accept the invitation");

export default function AcceptInvitation({ loaderData, actionData }: Route.ComponentProps) {
  const { invitation } = loaderData;
  return (
    <PasswordLinkPage
      title="Accept the invitation"
      email={invitation?.email ?? null}
      answer={actionData}
      submitLabel="Create my account"
      askName
      intro={
        <>
          {invitation?.invitedBy ?? "A super admin"} invited <strong>{invitation?.email}</strong> as{" "}
          {invitation?.role === "super_admin" ? "a super admin" : "an editor"}. Choose your name and
          password to create your account.
        </>
      }
      invalid={
        <AuthMessage tone="error">
          This invitation is not valid any more: it works once, for seven days, and may have been
          withdrawn. Ask the person who invited you to send a new one.
        </AuthMessage>
      }
    />
  );
}
