import { useState } from "react";
import { Form, useActionData, useNavigation } from "react-router";
import { formatDateTime } from "../../../shared/format";
import { MIN_PASSWORD_LENGTH, STAFF_ROLES } from "../../../shared/schemas/staff";
import { ProductChecks, SELECT_CLASS, StaffUserCard } from "../../components/admin/staff-user-card";
import { AdminPage, AdminSection } from "../../components/admin-header";
import { SubmitButton, TextInput } from "../../components/ui/form";
import { noindexMeta } from "../../lib/meta";
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
          We email them a link (valid seven days) to choose their own password.
        </p>
        <Form method="post" className="mt-4 grid gap-4 md:grid-cols-2">
          <input type="hidden" name="intent" value="invite" />
          <div>
            <label htmlFor="invite-email" className="block text-sm font-semibold">
              Email
            </label>
            <TextInput
              id="invite-email"
              name="email"
              type="email"
              required
              maxLength={254}
              autoComplete="off"
            />
          </div>
          <RoleSelect id="invite-role" />
          <div className="md:col-span-2">
            <ProductChecks tenants={loaderData.tenants} granted={{}} idPrefix="invite-product" />
          </div>
          <div>
            <SubmitButton disabled={busy}>Send invitation</SubmitButton>
          </div>
        </Form>
        <details className="mt-6">
          <summary className="cursor-pointer font-semibold">
            Or add an account with a password you choose
          </summary>
          <Form method="post" className="mt-4 grid gap-4 md:grid-cols-3">
            <input type="hidden" name="intent" value="add" />
            <div>
              <label htmlFor="new-email" className="block text-sm font-semibold">
                Email
              </label>
              <TextInput
                id="new-email"
                name="email"
                type="email"
                required
                maxLength={254}
                autoComplete="off"
              />
            </div>
            <div>
              <label htmlFor="new-password" className="block text-sm font-semibold">
                Password
              </label>
              <TextInput
                id="new-password"
                name="password"
                type="password"
                required
                minLength={MIN_PASSWORD_LENGTH}
                autoComplete="new-password"
              />
            </div>
            <RoleSelect id="new-role" />
            <div className="md:col-span-3">
              <ProductChecks tenants={loaderData.tenants} granted={{}} idPrefix="new-product" />
            </div>
            <div>
              <SubmitButton disabled={busy}>Add user</SubmitButton>
            </div>
          </Form>
        </details>
      </section>

      {loaderData.invitations.length > 0 ? (
        <AdminSection id="invitations" title="Waiting invitations">
          <ul className="mt-3 divide-y divide-black/10 rounded-brand border border-black/10">
            {loaderData.invitations.map((invitation) => (
              <li key={invitation.id} className="flex flex-wrap items-center gap-3 p-3">
                <span className="min-w-0 flex-1 break-words">
                  <strong>{invitation.email}</strong>{" "}
                  <span className="text-sm">
                    {invitation.role === "super_admin" ? "super admin" : "editor"} · invited by{" "}
                    {invitation.invitedBy ?? "—"} ·{" "}
                    {invitation.expired
                      ? "expired"
                      : `valid until ${formatDateTime(invitation.expiresAt)}`}
                  </span>
                </span>
                <Form method="post" className="flex gap-2">
                  <input type="hidden" name="invitationId" value={invitation.id} />
                  <button
                    type="submit"
                    name="intent"
                    value="resend-invitation"
                    className="rounded-brand border-2 border-brand-strong px-3 py-1.5 text-sm font-semibold text-brand-strong"
                  >
                    Send again
                  </button>
                  <button
                    type="submit"
                    name="intent"
                    value="revoke-invitation"
                    className="rounded-brand border-2 border-danger px-3 py-1.5 text-sm font-semibold text-danger"
                  >
                    Withdraw
                  </button>
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
