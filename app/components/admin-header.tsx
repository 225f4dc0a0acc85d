import type { ReactNode } from "react";
import { Form, useLocation, useRouteLoaderData } from "react-router";
import { isActivePath, Kept, Link } from "../lib/page-scripts";
import type { RootData } from "../root";

/** The staff area's tabs; some pages are for super admins only (their guards say so too). */
const STAFF_TABS = [
  { to: "/admin/dashboard", label: "Newsletters" },
  { to: "/admin/messages", label: "Contact messages" },
  { to: "/admin/subscribers", label: "Subscribers" },
  { to: "/admin/lists", label: "Lists" },
  { to: "/admin/segments", label: "Segments" },
  { to: "/admin/campaigns", label: "Campaigns" },
  { to: "/admin/outbox", label: "Outbox" },
  { to: "/admin/cms", label: "All my tenants" },
  { to: "/admin/users", label: "Staff users", superAdminOnly: true },
  { to: "/admin/tenants", label: "Tenant manager", superAdminOnly: true },
  { to: "/admin/api-tokens", label: "API tokens", superAdminOnly: true },
  { to: "/test/functions", label: "Diagnostics" },
  { to: "/admin/account", label: "Your account" },
];

interface AdminHeaderProps {
  title: string;
  /** the line above the title; the tenant's company name unless the page says otherwise */
  tenantName?: string;
  actions?: ReactNode;
}

/** The staff area's page heading, its sub-navigation and the Sign Out button. */
export function AdminHeader({ title, tenantName, actions }: AdminHeaderProps) {
  // The tenant and the signed-in user come from the root's data, which every page has.
  const root = useRouteLoaderData<RootData>("root");
  const isSuperAdmin = root?.user?.isSuperAdmin === true;
  const { pathname } = useLocation();
  const tabs = STAFF_TABS.filter((item) => isSuperAdmin || !item.superAdminOnly).map((item) => ({
    to: item.to,
    label: item.label,
    active: isActivePath(pathname, item.to),
  }));
  return (
    <div className="border-b border-black/10 bg-black/[0.03]">
      <div className="mx-auto max-w-6xl px-4 py-6 sm:px-6">
        <p className="text-sm font-semibold uppercase tracking-wider text-brand-strong">
          {tenantName ?? root?.tenant.companyName}
        </p>
        <div className="mt-1 flex flex-wrap items-center justify-between gap-4">
          <h1 className="min-w-0 text-3xl font-bold">{title}</h1>
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
        {/* The same for every page of a tab: kept (app/lib/page-scripts.tsx). */}
        <Kept as="nav" props={STAFF_NAV_PROPS} part={StaffTabs} data={{ tabs }} />
      </div>
    </div>
  );
}

const STAFF_NAV_PROPS = { "aria-label": "Staff", className: "mt-4" };

const tabClass = (isActive: boolean) =>
  `rounded-brand px-3 py-1.5 text-sm font-medium no-underline ${isActive ? "bg-brand-strong text-on-brand-strong" : "text-ink hover:bg-black/5"}`;

/** The tabs as NavLinks would render them, each one's active state given, not read. */
function StaffTabs({ tabs }: { tabs: { to: string; label: string; active: boolean }[] }) {
  return (
    <ul className="flex flex-wrap gap-2">
      {tabs.map((item) => (
        <li key={item.to}>
          <Link
            to={item.to}
            aria-current={item.active ? "page" : undefined}
            className={tabClass(item.active)}
          >
            {item.label}
          </Link>
        </li>
      ))}
    </ul>
  );
}

/** Page widths of the staff area (whole class names, so Tailwind finds them). */
const PAGE_WIDTHS = {
  narrow: "max-w-3xl",
  medium: "max-w-4xl",
  wide: "max-w-5xl",
  full: "max-w-6xl",
} as const;

/** A staff page: the header above, the page's content in a column of the given width below. */
export function AdminPage({
  width = "full",
  className = "",
  children,
  ...header
}: AdminHeaderProps & {
  width?: keyof typeof PAGE_WIDTHS;
  /** extra classes of the content column (its vertical rhythm) */
  className?: string;
  children: ReactNode;
}) {
  return (
    <main>
      <AdminHeader {...header} />
      <div className={`mx-auto ${PAGE_WIDTHS[width]} px-4 py-8 sm:px-6 ${className}`}>
        {children}
      </div>
    </main>
  );
}

/** The way back from a staff page to the list it was opened from. */
export function BackLink({ to, children }: { to: string; children: ReactNode }) {
  return (
    <p>
      <Link to={to} className="font-semibold">
        ← {children}
      </Link>
    </p>
  );
}

/** A titled part of a staff page (its h2 names the section for screen readers). */
export function AdminSection({
  id,
  title,
  children,
}: {
  id: string;
  title: ReactNode;
  children: ReactNode;
}) {
  return (
    <section aria-labelledby={id}>
      <h2 id={id} className="text-xl font-bold">
        {title}
      </h2>
      {children}
    </section>
  );
}
