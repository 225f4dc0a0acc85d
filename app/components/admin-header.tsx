import type { ReactNode } from "react";
import { Form, NavLink } from "react-router";

interface AdminHeaderProps {
  title: string;
  tenantName: string;
  isSuperAdmin: boolean;
  actions?: ReactNode;
}

/** The staff area's page heading, its sub-navigation and the Sign Out button. */
export function AdminHeader({ title, tenantName, isSuperAdmin, actions }: AdminHeaderProps) {
  const tab = ({ isActive }: { isActive: boolean }) =>
    `rounded-brand px-3 py-1.5 text-sm font-medium no-underline ${isActive ? "bg-brand-strong text-on-brand-strong" : "text-ink hover:bg-black/5"}`;
  return (
    <div className="border-b border-black/10 bg-black/[0.03]">
      <div className="mx-auto max-w-6xl px-4 py-6 sm:px-6">
        <p className="text-sm font-semibold uppercase tracking-wider text-brand-strong">
          {tenantName}
        </p>
        <div className="mt-1 flex flex-wrap items-center justify-between gap-4">
          <h1 className="text-3xl font-bold">{title}</h1>
          <div className="flex flex-wrap items-center gap-3">
            {actions}
            <Form method="post" action="/admin/logout">
              <button
                type="submit"
                className="rounded-brand border-2 border-brand-strong px-4 py-2 font-semibold text-brand-strong"
              >
                Sign Out
              </button>
            </Form>
          </div>
        </div>
        <nav aria-label="Staff" className="mt-4">
          <ul className="flex flex-wrap gap-2">
            <li>
              <NavLink to="/admin/dashboard" className={tab}>
                Newsletters
              </NavLink>
            </li>
            <li>
              <NavLink to="/admin/messages" className={tab}>
                Contact messages
              </NavLink>
            </li>
            <li>
              <NavLink to="/admin/subscribers" className={tab}>
                Subscribers
              </NavLink>
            </li>
            <li>
              <NavLink to="/admin/campaigns" className={tab}>
                Campaigns
              </NavLink>
            </li>
            <li>
              <NavLink to="/admin/outbox" className={tab}>
                Outbox
              </NavLink>
            </li>
            <li>
              <NavLink to="/admin/cms" className={tab}>
                All my tenants
              </NavLink>
            </li>
            {isSuperAdmin ? (
              <li>
                <NavLink to="/admin/users" className={tab}>
                  Staff users
                </NavLink>
              </li>
            ) : null}
            {isSuperAdmin ? (
              <li>
                <NavLink to="/admin/tenants" className={tab}>
                  Tenant manager
                </NavLink>
              </li>
            ) : null}
            {isSuperAdmin ? (
              <li>
                <NavLink to="/admin/api-tokens" className={tab}>
                  API tokens
                </NavLink>
              </li>
            ) : null}
            <li>
              <NavLink to="/test/functions" className={tab}>
                Diagnostics
              </NavLink>
            </li>
          </ul>
        </nav>
      </div>
    </div>
  );
}
