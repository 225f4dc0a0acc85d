import { useState } from "react";
import { Form, useActionData, useNavigation } from "react-router";
import { STAFF_ROLES } from "../../../shared/schemas/staff";
import { AdminHeader } from "../../components/admin-header";
import { SubmitButton, TextInput } from "../../components/ui/form";
import type { Route } from "./+types/users";

import type { action } from "./users.server";

export { action, loader } from "./users.server";

export const meta: Route.MetaFunction = () => [
  { title: "Staff users" },
  { name: "robots", content: "noindex" },
];

const selectClass = "mt-1 block w-full rounded-brand border border-black/30 bg-surface px-3 py-2";

function ProductChecks({
  tenants,
  granted,
  idPrefix,
}: {
  tenants: { id: string; name: string }[];
  granted: Record<string, boolean>;
  idPrefix: string;
}) {
  return (
    <fieldset>
      <legend className="text-sm font-semibold">Products (tenants they may manage)</legend>
      <div className="mt-1 flex flex-wrap gap-x-5 gap-y-1">
        {tenants.map((tenant) => (
          <label
            key={tenant.id}
            htmlFor={`${idPrefix}-${tenant.id}`}
            className="flex items-center gap-2"
          >
            <input
              id={`${idPrefix}-${tenant.id}`}
              type="checkbox"
              name="products"
              value={tenant.id}
              defaultChecked={granted[tenant.id] === true}
            />
            {tenant.name} <span className="text-sm opacity-80">({tenant.id})</span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}

export default function Users({ loaderData }: Route.ComponentProps) {
  const result = useActionData<typeof action>();
  const navigation = useNavigation();
  const [confirmRemove, setConfirmRemove] = useState<string | null>(null);
  const busy = navigation.state === "submitting";
  return (
    <main>
      <AdminHeader title="Staff users" tenantName={loaderData.tenantName} isSuperAdmin />
      <div className="mx-auto max-w-6xl space-y-10 px-4 py-8 sm:px-6">
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
                minLength={8}
                autoComplete="new-password"
              />
            </div>
            <div>
              <label htmlFor="new-role" className="block text-sm font-semibold">
                Role
              </label>
              <select id="new-role" name="role" defaultValue="editor" className={selectClass}>
                {STAFF_ROLES.map((role) => (
                  <option key={role} value={role}>
                    {role === "super_admin"
                      ? "Super admin (everything)"
                      : "Editor (chosen products)"}
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
              <li key={user.id} className="rounded-brand border border-black/10 p-5">
                <div className="flex flex-wrap items-baseline justify-between gap-2">
                  <p className="text-lg font-semibold">
                    {user.email}{" "}
                    {user.id === loaderData.actorId ? (
                      <span className="text-sm font-normal">(you)</span>
                    ) : null}
                  </p>
                  <p className="text-sm">
                    {user.isSuperAdmin
                      ? "Super admin"
                      : `Editor of ${Object.keys(user.products).join(", ") || "nothing yet"}`}
                  </p>
                </div>
                <div className="mt-4 grid gap-6 lg:grid-cols-3">
                  <Form
                    method="post"
                    className="space-y-3 lg:col-span-2"
                    aria-label={`Access of ${user.email}`}
                  >
                    <input type="hidden" name="intent" value="access" />
                    <input type="hidden" name="userId" value={user.id} />
                    <div className="max-w-xs">
                      <label htmlFor={`role-${user.id}`} className="block text-sm font-semibold">
                        Role
                      </label>
                      <select
                        id={`role-${user.id}`}
                        name="role"
                        defaultValue={user.isSuperAdmin ? "super_admin" : "editor"}
                        className={selectClass}
                      >
                        <option value="super_admin">Super admin (everything)</option>
                        <option value="editor">Editor (chosen products)</option>
                      </select>
                    </div>
                    <ProductChecks
                      tenants={loaderData.tenants}
                      granted={user.products}
                      idPrefix={`product-${user.id}`}
                    />
                    <button
                      type="submit"
                      className="rounded-brand border-2 border-brand-strong px-3 py-1.5 font-semibold text-brand-strong"
                    >
                      Save access
                    </button>
                  </Form>
                  <div className="space-y-4">
                    <Form
                      method="post"
                      className="space-y-2"
                      aria-label={`Reset the password of ${user.email}`}
                    >
                      <input type="hidden" name="intent" value="password" />
                      <input type="hidden" name="userId" value={user.id} />
                      <label
                        htmlFor={`password-${user.id}`}
                        className="block text-sm font-semibold"
                      >
                        New password
                      </label>
                      <TextInput
                        id={`password-${user.id}`}
                        name="password"
                        type="password"
                        required
                        minLength={8}
                        autoComplete="new-password"
                      />
                      <button
                        type="submit"
                        className="rounded-brand border-2 border-brand-strong px-3 py-1.5 font-semibold text-brand-strong"
                      >
                        Reset password
                      </button>
                    </Form>
                    {user.id !== loaderData.actorId ? (
                      confirmRemove === user.id ? (
                        <Form
                          method="post"
                          className="flex flex-wrap items-center gap-2"
                          onSubmit={() => setConfirmRemove(null)}
                        >
                          <input type="hidden" name="intent" value="remove" />
                          <input type="hidden" name="userId" value={user.id} />
                          <span className="font-medium">Remove {user.email}?</span>
                          <button
                            type="submit"
                            className="rounded-brand bg-danger px-3 py-1.5 font-semibold text-white"
                          >
                            Yes, remove
                          </button>
                          <button
                            type="button"
                            onClick={() => setConfirmRemove(null)}
                            className="px-2 py-1.5 font-medium"
                          >
                            Keep
                          </button>
                        </Form>
                      ) : (
                        <button
                          type="button"
                          onClick={() => setConfirmRemove(user.id)}
                          className="font-semibold text-danger underline"
                        >
                          Remove user…
                        </button>
                      )
                    ) : null}
                  </div>
                </div>
              </li>
            ))}
          </ul>
        </section>
      </div>
    </main>
  );
}
