import { type ReactNode, useEffect } from "react";
import { Form, useLocation, useRouteLoaderData } from "react-router";
import { Kept, Link } from "../lib/page-scripts";
import type { RootData } from "../root";
import { isAllTenantsPage, StaffNav, type StaffNavData, staffNavSections } from "./admin/staff-nav";

interface AdminHeaderProps {
  title: string;
  /** the line above the title; the tenant's company name unless the page says otherwise */
  tenantName?: string;
  actions?: ReactNode;
}

/**
 * The staff area's page heading and its navigation. Sign Out is the site header's (SPEC §2
 * navigation bar); only the dashboard adds its own beside "Create New Newsletter" (SPEC §2
 * /admin/dashboard), with SignOutButton among its actions.
 */
export function AdminHeader({ title, tenantName, actions }: AdminHeaderProps) {
  // The tenant and the signed-in user come from the root's data, which every page has.
  const root = useRouteLoaderData<RootData>("root");
  const { pathname } = useLocation();
  const granted = root?.staffTenants ?? [];
  const nav: StaffNavData = {
    sections: staffNavSections(pathname, root?.user?.isSuperAdmin === true),
    tenants: {
      current: root?.tenant.name ?? "",
      currentGranted: granted.some((tenant) => tenant.current),
      allActive: isAllTenantsPage(pathname),
      others: granted
        .filter((tenant) => !tenant.current)
        .map(({ id, name, href }) => ({ id, name, href })),
    },
  };
  useMenusClosing();
  return (
    <div className="border-b border-black/10 bg-black/[0.03]">
      <div className="mx-auto max-w-6xl px-4 py-6 sm:px-6">
        <p className="text-sm font-semibold uppercase tracking-wider text-brand-strong">
          {tenantName ?? root?.tenant.companyName}
        </p>
        <div className="mt-1 flex flex-wrap items-center justify-between gap-4">
          <h1 className="min-w-0 text-3xl font-bold">{title}</h1>
          {actions ? <div className="flex flex-wrap items-center gap-3">{actions}</div> : null}
        </div>
        {/* The same for every page of a section: kept (app/lib/page-scripts.tsx). */}
        <Kept as="nav" props={STAFF_NAV_PROPS} part={StaffNav} data={nav} />
      </div>
    </div>
  );
}

const STAFF_NAV_PROPS = { "aria-label": "Staff", className: "mt-4" };

/**
 * With scripts, an open menu closes as menus do: on Escape (the focus back on its button), on a
 * click outside it, and once one of its links is followed. Without them it stays a <details>.
 */
function useMenusClosing() {
  useEffect(() => {
    const openMenus = () =>
      Array.from(document.querySelectorAll<HTMLDetailsElement>("details[data-staff-menu][open]"));
    const onClick = (event: MouseEvent) => {
      const target = event.target instanceof Element ? event.target : null;
      for (const menu of openMenus()) {
        if (!target || !menu.contains(target) || target.closest("a")) menu.open = false;
      }
    };
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== "Escape") return;
      for (const menu of openMenus()) {
        menu.open = false;
        menu.querySelector("summary")?.focus();
      }
    };
    document.addEventListener("click", onClick);
    document.addEventListener("keydown", onKeyDown);
    return () => {
      document.removeEventListener("click", onClick);
      document.removeEventListener("keydown", onKeyDown);
    };
  }, []);
}

/** SPEC's Sign Out button of the dashboard (the site header has the one of every page). */
export function SignOutButton() {
  return (
    <Form method="post" action="/admin/logout">
      <button
        type="submit"
        className="rounded-brand border-2 border-brand-strong px-4 py-2 font-semibold text-brand-strong"
      >
        Sign Out
      </button>
    </Form>
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
