import { useEffect, useRef, useState } from "react";
import { Form, useActionData, useNavigation } from "react-router";
import { MIN_PASSWORD_LENGTH, STAFF_ROLES } from "../../../shared/schemas/staff";
import { ProductChecks, SELECT_CLASS, StaffUserCard } from "../../components/admin/staff-user-card";
import { AdminPage, AdminSection } from "../../components/admin-header";
import { SubmitButton, TextField } from "../../components/ui/form";
import { noindexMeta } from "../../lib/meta";
import { StaffTime } from "../../lib/time-zone";
import type { Route } from "./+types/users";
import type { action } from "./users.server";

export { action, loader } from "./users.server";

export const meta: Route.MetaFunction = () => noindexMeta("Staff users");

export default function Users({ loaderData }: Route.ComponentProps) {
  const result = useActionData<typeof action>();
  const navigation = useNavigation();
  const [confirmRemove, setConfirmRemove] = useState<string | null>(null);
  const busy = navigation.state === "submitting";
  return (
    <AdminPage title="Staff users" className="space-y-10">
      {result ? (
        <p
          role={result.ok ? "status" : "alert"}
          className={`rounded-brand border-2 p-3 font-medium ${result.ok ? "border-ok text-ok" : "border-danger text-danger"}`}
        >
          {result.message}
        </p>
      ) : null}

      <section aria-labelledby="invite-user" className="rounded-brand border border-black/10 p-5">
        <h2 id="invite-user" className="text-xl font-bold">
          Invite a staff member
        </h2>
        <p className="mt-1 text-sm">
          We email them a link (valid seven days) to choose their own name and password.
        </p>
        <NewStaffForm intent="invite" tenants={loaderData.tenants} busy={busy} />
        <details className="mt-6">
          <summary className="cursor-pointer font-semibold">
            Or add an account with a password you choose
          </summary>
          <NewStaffForm intent="add" tenants={loaderData.tenants} busy={busy} />
        </details>
      </section>

      {loaderData.invitations.length > 0 ? (
        <AdminSection id="invitations" title="Waiting invitations">
          <ul className="mt-3 divide-y divide-black/10 rounded-brand border border-black/10">
            {loaderData.invitations.map((invitation) => (
              <li key={invitation.id} className="flex flex-wrap items-center gap-3 p-3">
                <span className="min-w-0 flex-[1_1_16rem] break-words">
                  <strong>{invitation.email}</strong>{" "}
                  <span className="text-sm">
                    {invitation.role === "super_admin" ? "super admin" : "editor"} · invited by{" "}
                    {invitation.invitedBy ?? "—"} ·{" "}
                    {invitation.expired ? (
                      "expired"
                    ) : (
                      <>
                        valid until <StaffTime iso={invitation.expiresAt} />
                      </>
                    )}
                  </span>
                </span>
                <Form method="post" className="flex gap-2">
                  <input type="hidden" name="invitationId" value={invitation.id} />
                  {INVITATION_ACTIONS.map(({ intent, label, look }) => (
                    <button
                      key={intent}
                      type="submit"
                      name="intent"
                      value={intent}
                      className={`rounded-brand border-2 px-3 py-1.5 text-sm font-semibold ${look}`}
                    >
                      {label}
                    </button>
                  ))}
                </Form>
              </li>
            ))}
          </ul>
        </AdminSection>
      ) : null}

      <section aria-labelledby="staff-list">
        <h2 id="staff-list" className="text-xl font-bold">
          Staff ({loaderData.users.length})
        </h2>
        <ul className="mt-4 space-y-4">
          {loaderData.users.map((user) => (
            <StaffUserCard
              key={user.id}
              user={user}
              tenants={loaderData.tenants}
              isYou={user.id === loaderData.actorId}
              confirmingRemove={confirmRemove === user.id}
              onConfirmRemove={setConfirmRemove}
            />
          ))}
        </ul>
      </section>
    </AdminPage>
  );
}

const INVITATION_ACTIONS = [
  {
    intent: "resend-invitation",
    label: "Send again",
    look: "border-brand-strong text-brand-strong",
  },
  { intent: "revoke-invitation", label: "Withdraw", look: "border-danger text-danger" },
] as const;

/** A new staff member: invited by email, or added with a password the super admin chooses. */
function NewStaffForm({
  intent,
  tenants,
  busy,
}: {
  intent: "invite" | "add";
  tenants: Route.ComponentProps["loaderData"]["tenants"];
  busy: boolean;
}) {
  const field = (name: string) => `${intent}-${name}`;
  // Once the person is added or invited, the form is empty again for the next one.
  const result = useActionData<typeof action>();
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (result?.ok && result.created === intent) form.current?.reset();
  }, [result, intent]);
  return (
    <Form ref={form} method="post" className="mt-4 grid gap-4 md:grid-cols-3">
      <input type="hidden" name="intent" value={intent} />
      {[
        { name: "email", label: "Email", type: "email", autoComplete: "off" },
        ...(intent === "add"
          ? [
              {
                name: "password",
                label: "Password",
                type: "password",
                autoComplete: "new-password",
              },
            ]
          : []),
      ].map(({ name, ...props }) => (
        <TextField
          key={name}
          id={field(name)}
          name={name}
          required
          minLength={name === "password" ? MIN_PASSWORD_LENGTH : undefined}
          maxLength={254}
          {...props}
        />
      ))}
      <RoleSelect id={field("role")} />
      <div className="md:col-span-3">
        <ProductChecks tenants={tenants} granted={{}} idPrefix={field("product")} />
      </div>
      <div>
        <SubmitButton disabled={busy}>
          {intent === "invite" ? "Send invitation" : "Add user"}
        </SubmitButton>
      </div>
    </Form>
  );
}

function RoleSelect({ id }: { id: string }) {
  return (
    <div>
      <label htmlFor={id} className="block text-sm font-semibold">
        Role
      </label>
      <select id={id} name="role" defaultValue="editor" className={SELECT_CLASS}>
        {STAFF_ROLES.map((role) => (
          <option key={role} value={role}>
            {role === "super_admin" ? "Super admin (everything)" : "Editor (chosen products)"}
          </option>
        ))}
      </select>
    </div>
  );
}
