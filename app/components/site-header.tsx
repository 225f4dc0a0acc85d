import { Form, useLocation } from "react-router";
import { isActivePath, Kept, Link } from "../lib/page-scripts";

const NAV_ITEMS = [
  { to: "/", label: "Home" },
  { to: "/about", label: "About" },
  { to: "/services", label: "Services" },
  { to: "/products", label: "Products" },
  { to: "/newsletter", label: "Newsletter" },
  { to: "/contact", label: "Contact" },
] as const;

interface SiteHeaderProps {
  companyName: string;
  logoUrl: string;
  user: { email: string } | null;
}

const HEADER_PROPS = { className: "border-b-4 border-brand bg-surface" };

/** SPEC §2 navigation bar. Signed-in state comes from the server, so it renders without a flash. */
export function SiteHeader({ companyName, logoUrl, user }: SiteHeaderProps) {
  const { pathname } = useLocation();
  // What the bar shows: the brand and which item is the current page (the part reads no location
  // itself). The signed-in bar's sign-out is React Router's Form, which renders only inside the
  // page's router: rendered each time.
  const active = NAV_ITEMS.findIndex((item) =>
    isActivePath(pathname, item.to, { end: item.to === "/" }),
  );
  return (
    <Kept
      as="header"
      props={HEADER_PROPS}
      part={HeaderContent}
      data={{ companyName, logoUrl, user, active }}
      keep={user === null}
    />
  );
}

function HeaderContent({
  companyName,
  logoUrl,
  user,
  active,
}: SiteHeaderProps & { active: number }) {
  const links = (
    <>
      {NAV_ITEMS.map((item, index) => (
        <li key={item.to}>
          {/* NavLink's markup, its active item given rather than read from the location. */}
          <Link
            to={item.to}
            aria-current={index === active ? "page" : undefined}
            className={`block rounded-brand px-3 py-2 font-medium no-underline hover:bg-black/5 ${
              index === active
                ? "text-brand-strong underline decoration-2 underline-offset-8"
                : "text-ink"
            }`}
          >
            {item.label}
          </Link>
        </li>
      ))}
      {user ? (
        <>
          <li>
            <Link
              to="/admin/dashboard"
              className="block rounded-brand px-3 py-2 font-medium text-ink no-underline hover:bg-black/5"
            >
              Dashboard
            </Link>
          </li>
          <li>
            <Form method="post" action="/admin/logout">
              <button
                type="submit"
                className="w-full rounded-brand border border-current px-3 py-2 text-left font-medium text-brand-strong lg:w-auto"
              >
                Sign Out
              </button>
            </Form>
          </li>
        </>
      ) : (
        <li>
          <Link
            to="/admin/login"
            className="block rounded-brand bg-brand-strong px-4 py-2 font-semibold text-on-brand-strong no-underline hover:opacity-90"
          >
            Sign In
          </Link>
        </li>
      )}
    </>
  );

  return (
    <div className="mx-auto flex max-w-6xl items-center justify-between gap-4 px-4 py-3 sm:px-6">
      <Link to="/" className="flex min-w-0 items-center gap-3 text-ink no-underline">
        {logoUrl ? (
          <img src={logoUrl} alt="" className="h-9 w-auto shrink-0" />
        ) : (
          <span
            aria-hidden="true"
            className="grid size-9 shrink-0 place-items-center rounded-brand bg-brand text-lg font-bold text-on-brand"
          >
            {companyName.charAt(0)}
          </span>
        )}
        {/* A long name is cut with an ellipsis so the navigation always stays on screen. */}
        <span
          className="truncate text-lg font-bold tracking-tight"
          title={companyName}
          data-testid="header-company-name"
        >
          {companyName}
        </span>
      </Link>
      <nav aria-label="Main" className="hidden shrink-0 lg:block">
        <ul className="flex items-center gap-1">{links}</ul>
      </nav>
      {/* Phones and tablets (below 1024 px the items and a signed-in Sign Out do not fit one row): a disclosure that works without JavaScript. */}
      <details className="group relative shrink-0 lg:hidden">
        <summary className="cursor-pointer list-none rounded-brand border border-current px-3 py-2 font-medium [&::-webkit-details-marker]:hidden">
          Menu
        </summary>
        <nav
          aria-label="Main"
          className="absolute right-0 z-20 mt-2 w-56 rounded-brand border border-black/10 bg-surface p-2 shadow-lg"
        >
          <ul className="flex flex-col gap-1">{links}</ul>
        </nav>
      </details>
    </div>
  );
}
