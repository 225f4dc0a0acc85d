import { Link } from "../../lib/page-scripts";

/*
 * The staff area's navigation (issue 35): a few sections with menus, one row at 1280 px, one
 * "Staff menu" on phones. Menus are <details>, so they open without JavaScript and from the
 * keyboard (the summary is a button); sharing a `name`, opening one closes the other.
 */

interface StaffLinkDef {
  to: string;
  label: string;
  superAdminOnly?: true;
  /** the paths under which this link is the current page (the longest match wins) */
  matches?: readonly string[];
}

/** The sections; some pages are for super admins only (their guards say so too). */
const STAFF_SECTIONS: readonly { label: string; links: readonly StaffLinkDef[] }[] = [
  {
    label: "Newsletters",
    links: [
      {
        to: "/admin/dashboard",
        label: "Newsletters",
        matches: ["/admin/dashboard", "/admin/newsletter"],
      },
      { to: "/admin/campaigns", label: "Campaigns" },
      { to: "/admin/linkedin", label: "LinkedIn" },
      { to: "/admin/newsletter/import", label: "Newsletter imports" },
    ],
  },
  {
    label: "Audience",
    links: [
      { to: "/admin/subscribers", label: "Subscribers" },
      { to: "/admin/lists", label: "Lists" },
      { to: "/admin/embed", label: "Sign-up forms" },
      { to: "/admin/segments", label: "Segments" },
      { to: "/admin/subscribers/fields", label: "Fields" },
      { to: "/admin/subscribers/imports", label: "Subscriber imports" },
    ],
  },
  {
    label: "Messages",
    links: [
      { to: "/admin/messages", label: "Contact messages" },
      { to: "/admin/outbox", label: "Outbox" },
    ],
  },
  {
    label: "Settings",
    links: [
      { to: "/admin/account", label: "Your account" },
      { to: "/admin/users", label: "Staff users", superAdminOnly: true },
      { to: "/admin/tenants", label: "Tenant manager", superAdminOnly: true },
      { to: "/admin/api-tokens", label: "API tokens", superAdminOnly: true },
      { to: "/admin/jobs", label: "Background jobs", superAdminOnly: true },
      { to: "/test/functions", label: "Diagnostics" },
    ],
  },
];

const ALL_TENANTS_PATH = "/admin/cms";

/** A tenant the signed-in staff member may switch to: its admin on its own host. */
export type StaffTenantLink = { id: string; name: string; href: string };

export type StaffNavLink = { to: string; label: string; active: boolean };

export type StaffNavSection = { label: string; active: boolean; links: StaffNavLink[] };

/** The tenant menu: the host's tenant, the others granted to the user, and the all-tenants page. */
export type StaffNavTenants = {
  current: string;
  /** whether the user may manage the request's tenant (else its name is not a link) */
  currentGranted: boolean;
  allActive: boolean;
  others: StaffTenantLink[];
};

/** What the kept navigation renders: plain data, its active entries already decided. */
export type StaffNavData = { sections: StaffNavSection[]; tenants: StaffNavTenants };

const under = (pathname: string, path: string) =>
  pathname === path || pathname.startsWith(`${path}/`);

/** The sections this user sees, the link of the current page (and its section) marked. */
export function staffNavSections(pathname: string, isSuperAdmin: boolean): StaffNavSection[] {
  const here = pathname.toLowerCase().replace(/\/$/, "");
  let best: { to: string; length: number } | null = null;
  for (const section of STAFF_SECTIONS) {
    for (const link of section.links) {
      for (const path of link.matches ?? [link.to]) {
        if (under(here, path) && path.length > (best?.length ?? 0)) {
          best = { to: link.to, length: path.length };
        }
      }
    }
  }
  return STAFF_SECTIONS.map((section) => {
    const links = section.links
      .filter((link) => isSuperAdmin || !link.superAdminOnly)
      .map((link) => ({ to: link.to, label: link.label, active: link.to === best?.to }));
    return { label: section.label, active: links.some((link) => link.active), links };
  }).filter((section) => section.links.length > 0);
}

/** Whether the page is the all-tenants page (its menu is the tenant switcher). */
export function isAllTenantsPage(pathname: string): boolean {
  return under(pathname.toLowerCase().replace(/\/$/, ""), ALL_TENANTS_PATH);
}

const MENU = "staff-menu";

const summaryClass = (active: boolean) =>
  `flex cursor-pointer list-none items-center gap-1 rounded-brand px-3 py-1.5 text-sm font-medium [&::-webkit-details-marker]:hidden ${
    active ? "bg-brand-strong text-on-brand-strong" : "text-ink hover:bg-black/5"
  }`;

const linkClass = (active: boolean) =>
  `block rounded-brand px-3 py-2 text-sm no-underline ${
    active ? "bg-brand-strong/10 font-semibold text-brand-strong" : "text-ink hover:bg-black/5"
  }`;

const PANEL =
  "absolute z-30 mt-1 min-w-56 rounded-brand border border-black/10 bg-surface p-1 shadow-lg";

function MenuLinks({ links }: { links: StaffNavLink[] }) {
  return (
    <ul>
      {links.map((link) => (
        <li key={link.to}>
          <Link
            to={link.to}
            aria-current={link.active ? "page" : undefined}
            className={linkClass(link.active)}
          >
            {link.label}
          </Link>
        </li>
      ))}
    </ul>
  );
}

function Caret() {
  return (
    <span aria-hidden="true" className="text-xs">
      ▾
    </span>
  );
}

function TenantLinks({ tenants }: { tenants: StaffNavTenants }) {
  return (
    <ul>
      <li>
        {tenants.currentGranted ? (
          <Link to="/admin/dashboard" className={`${linkClass(false)} font-semibold`}>
            {tenants.current}
            <span className="sr-only"> (this tenant)</span>
          </Link>
        ) : (
          <span className="block px-3 py-2 text-sm text-ink/75">
            {tenants.current}
            <span className="sr-only"> (this tenant, not yours to manage)</span>
          </span>
        )}
      </li>
      {tenants.others.map((tenant) => (
        <li key={tenant.id}>
          <a href={tenant.href} className={linkClass(false)}>
            {tenant.name}
          </a>
        </li>
      ))}
      <li className="mt-1 border-t border-black/10 pt-1">
        <Link
          to={ALL_TENANTS_PATH}
          aria-current={tenants.allActive ? "page" : undefined}
          className={linkClass(tenants.allActive)}
        >
          All my tenants
        </Link>
      </li>
    </ul>
  );
}

/** The navigation's content (a kept part: it renders from its data alone). */
export function StaffNav({ sections, tenants }: StaffNavData) {
  return (
    <>
      <ul className="hidden items-center gap-1 md:flex" data-testid="staff-nav-row">
        {sections.map((section) => (
          <li key={section.label}>
            <details name={MENU} className="relative" data-staff-menu="">
              <summary className={summaryClass(section.active)}>
                {section.label}
                {section.active ? <span className="sr-only"> (current section)</span> : null}
                <Caret />
              </summary>
              <div className={`${PANEL} left-0`}>
                <MenuLinks links={section.links} />
              </div>
            </details>
          </li>
        ))}
        <li className="ml-auto">
          <details name={MENU} className="relative" data-staff-menu="">
            <summary className={summaryClass(tenants.allActive)}>
              <span className="sr-only">Tenant: </span>
              <span className="max-w-48 truncate">{tenants.current}</span>
              <Caret />
            </summary>
            <div className={`${PANEL} right-0`}>
              <TenantLinks tenants={tenants} />
            </div>
          </details>
        </li>
      </ul>
      {/* Phones: every section in one menu. */}
      <details className="relative md:hidden" data-staff-menu="">
        <summary className={`${summaryClass(false)} w-fit border border-black/20`}>
          Staff menu
          <Caret />
        </summary>
        <div className="absolute left-0 z-30 mt-1 max-h-[70vh] w-72 max-w-[calc(100vw-2rem)] overflow-y-auto rounded-brand border border-black/10 bg-surface p-2 shadow-lg">
          {sections.map((section) => (
            <div key={section.label} className="mb-2">
              <p className="px-3 py-1 text-xs font-semibold uppercase tracking-wider text-ink/70">
                {section.label}
              </p>
              <MenuLinks links={section.links} />
            </div>
          ))}
          <p className="px-3 py-1 text-xs font-semibold uppercase tracking-wider text-ink/70">
            Tenants
          </p>
          <TenantLinks tenants={tenants} />
        </div>
      </details>
    </>
  );
}
