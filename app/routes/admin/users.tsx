import { useState } from "react";
import { Form, useActionData, useNavigation } from "react-router";
import { MIN_PASSWORD_LENGTH, STAFF_ROLES } from "../../../shared/schemas/staff";
import { ProductChecks, SELECT_CLASS, StaffUserCard } from "../../components/admin/staff-user-card";
import { AdminPage } from "../../components/admin-header";
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

      <section aria-labelledby="add-user" className="rounded-brand border border-black/10 p-5">
        <h2 id="add-user" className="text-xl font-bold">
          Add a staff user
        </h2>
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
          <div>
            <label htmlFor="new-role" className="block text-sm font-semibold">
              Role
            </label>
            <select id="new-role" name="role" defaultValue="editor" className={SELECT_CLASS}>
              {STAFF_ROLES.map((role) => (
                <option key={role} value={role}>
                  {role === "super_admin" ? "Super admin (everything)" : "Editor (chosen products)"}
                </option>
              ))}
            </select>
          </div>
          <div className="md:col-span-3">
            <ProductChecks tenants={loaderData.tenants} granted={{}} idPrefix="new-product" />
          </div>
          <div>
            <SubmitButton disabled={busy}>Add user</SubmitButton>
          </div>
        </Form>
      </section>

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
