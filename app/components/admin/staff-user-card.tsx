import { Form } from "react-router";
import type { StaffUser } from "../../../server/auth/permissions";
import { MIN_PASSWORD_LENGTH } from "../../../shared/schemas/staff";
import { TextInput } from "../ui/form";

/** Parts of the Staff users page (app/routes/admin/users.tsx). */

export const SELECT_CLASS =
  "mt-1 block w-full rounded-brand border border-black/30 bg-surface px-3 py-2";

/** The tenants a staff member may manage, as checkboxes. */
export function ProductChecks({
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

/** One staff member: their access (role and products), a password reset, and removal. */
export function StaffUserCard({
  user,
  tenants,
  isYou,
  confirmingRemove,
  onConfirmRemove,
}: {
  user: StaffUser;
  tenants: { id: string; name: string }[];
  /** the signed-in staff member: they may not remove themselves */
  isYou: boolean;
  confirmingRemove: boolean;
  onConfirmRemove(userId: string | null): void;
}) {
  return (
    <li className="rounded-brand border border-black/10 p-5">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <p className="text-lg font-semibold">
          {user.email} {isYou ? <span className="text-sm font-normal">(you)</span> : null}
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
              className={SELECT_CLASS}
            >
              <option value="super_admin">Super admin (everything)</option>
              <option value="editor">Editor (chosen products)</option>
            </select>
          </div>
          <ProductChecks
            tenants={tenants}
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
            <label htmlFor={`password-${user.id}`} className="block text-sm font-semibold">
              New password
            </label>
            <TextInput
              id={`password-${user.id}`}
              name="password"
              type="password"
              required
              minLength={MIN_PASSWORD_LENGTH}
              autoComplete="new-password"
            />
            <button
              type="submit"
              className="rounded-brand border-2 border-brand-strong px-3 py-1.5 font-semibold text-brand-strong"
            >
              Reset password
            </button>
          </Form>
          {user.twoFactor ? (
            <Form
              method="post"
              className="space-y-2"
              aria-label={`Clear the two-factor sign-in of ${user.email}`}
            >
              <input type="hidden" name="intent" value="reset-2fa" />
              <input type="hidden" name="userId" value={user.id} />
              <p className="text-sm">
                Two-factor sign-in is on. Lost phone and recovery codes? Clear it: they sign in with
                the password and set it up again.
              </p>
              <button
                type="submit"
                className="rounded-brand border-2 border-danger px-3 py-1.5 font-semibold text-danger"
              >
                Clear two-factor sign-in
              </button>
            </Form>
          ) : null}
          {!isYou ? (
            confirmingRemove ? (
              <Form
                method="post"
                className="flex flex-wrap items-center gap-2"
                onSubmit={() => onConfirmRemove(null)}
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
                  onClick={() => onConfirmRemove(null)}
                  className="px-2 py-1.5 font-medium"
                >
                  Keep
                </button>
              </Form>
            ) : (
              <button
                type="button"
                onClick={() => onConfirmRemove(user.id)}
                className="font-semibold text-danger underline"
              >
                Remove user…
              </button>
            )
          ) : null}
        </div>
      </div>
    </li>
  );
}
