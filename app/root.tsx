import {
  data,
  isRouteErrorResponse,
  Links,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
  useLocation,
  useNavigation,
  useRouteError,
  useRouteLoaderData,
} from "react-router";
import { enforceRouteAccess } from "../server/auth/route-access";
import { getSessionUser, readCookieHeader, SESSION_COOKIE } from "../server/auth/sessions";
import { matchedRouteContext, scopeOf, userContext } from "../server/http/context";
import { refuseUnreadableInput } from "../server/http/request-input";
import { type StaffTenant, staffTenants } from "../server/tenants/staff-tenants";
import { brandingCssVariables } from "../shared/theme";
import type { Route } from "./+types/root";
import { AccessDenied } from "./components/access-denied";
import { ErrorPage } from "./components/error-page";
import { SiteFooter } from "./components/site-footer";
import { SiteHeader } from "./components/site-header";
import formEnhancements from "./lib/form-enhancements.js?raw";
import { useNonce } from "./lib/nonce";
import { PageScriptsContext, useFormEnhancements, usePageScripts } from "./lib/page-scripts";
import { type RenderOnly, useRenderOnly } from "./lib/render-only";
import { renderOnly } from "./lib/render-only.server";
import { useStylesheet } from "./lib/stylesheet";
import { accessFor, routeKey } from "./route-access";

/**
 * Every request: the signed-in user goes into the router context (the host put the tenant in the
 * request's scope), the route's declared access (app/route-access.ts) is enforced, and input no
 * route could read is refused (server/http/request-input.ts).
 */
export const middleware: Route.MiddlewareFunction[] = [
  async ({ request, url, context, params, pattern }) => {
    const scope = scopeOf(context);
    const key = routeKey(pattern);
    context.set(matchedRouteContext, { pattern: key, params, url });
    // The request-duration histogram labels the answer with this pattern (server/metrics.ts).
    scope.route = key;
    const token = readCookieHeader(request.headers.get("cookie"), SESSION_COOKIE);
    context.set(userContext, token ? await getSessionUser(scope.db, token) : null);
    // A refusal thrown here runs no loader, the root's included: it carries the layout's data.
    const access = accessFor(pattern, request.method);
    await enforceRouteAccess(context, request, pattern, access, () => rootData(context));
    // Then what the route could not read (a body that is not a form, NUL…): 400 or 415, not 500.
    await refuseUnreadableInput(request, url, pattern, params, () => rootData(context));
  },
];

/** What every page's layout needs: the tenant's branding and who is signed in. */
function rootData(context: Route.LoaderArgs["context"]) {
  const tenant = scopeOf(context).tenant;
  const scope = scopeOf(context);
  const user = context.get(userContext);
  return {
    tenant: {
      id: tenant.id,
      name: tenant.name,
      description: tenant.description,
      companyName: tenant.branding.companyName,
      companyAddress: tenant.branding.companyAddress,
      logoUrl: tenant.branding.logoUrl,
      favicon: tenant.branding.favicon || `/brand/favicon.svg?tenant=${tenant.id}`,
      cssVariables: brandingCssVariables(tenant.branding),
      primaryColor: tenant.branding.primaryColor,
      /** staff read and enter times in it (issue 16, point 7) */
      timeZone: tenant.timeZone,
    },
    origin: scope.origin,
    user: user ? { email: user.email, isSuperAdmin: user.isSuperAdmin } : null,
  };
}

export async function loader({ request, context }: Route.LoaderArgs) {
  const root = rootData(context);
  const user = context.get(userContext);
  // The staff pages' tenant switcher: the tenants this staff member may manage. Read on any
  // signed-in page: a client navigation to a staff page need not run this loader again.
  const tenants = user ? await staffTenants(scopeOf(context).db, user, root.tenant.id) : [];
  // Half of the root's data, read by the layout alone: render-only on pages without scripts.
  const cssVariables = renderOnly({ request, context }, root.tenant.cssVariables);
  return data({ ...root, tenant: { ...root.tenant, cssVariables }, staffTenants: tenants });
}

type LayoutData = ReturnType<typeof rootData>;
export type RootData = Omit<LayoutData, "tenant"> & {
  tenant: Omit<LayoutData["tenant"], "cssVariables"> & {
    cssVariables: RenderOnly<LayoutData["tenant"]["cssVariables"]>;
  };
  staffTenants?: StaffTenant[];
};

/** The root's data: its loader's, or on a page refused by the access middleware, the refusal's. */
function useRootData(): RootData | undefined {
  const loaded = useRouteLoaderData<typeof loader>("root");
  const error = useRouteError();
  return loaded ?? (isRouteErrorResponse(error) ? error.data?.root : undefined);
}

// Only the server renders it (on pages without the app's scripts): SSR keeps its text out of the
// browser bundle.
const FORM_ENHANCEMENTS = import.meta.env.SSR ? formEnhancements : "";

export function Layout({ children }: { children: React.ReactNode }) {
  const root = useRootData();
  const nonce = useNonce();
  const tenant = root?.tenant;
  const cssVariables = useRenderOnly(tenant?.cssVariables);
  const scripts = usePageScripts();
  const enhanceForms = useFormEnhancements() && !scripts;
  const styles = useStylesheet();
  return (
    <html
      lang="en"
      data-tenant={tenant?.id}
      style={cssVariables as React.CSSProperties | undefined}
    >
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        {tenant ? <meta name="theme-color" content={tenant.primaryColor} /> : null}
        <link rel="icon" href={tenant?.favicon ?? "/brand/favicon.svg"} />
        <Meta />
        {/* biome-ignore lint/security/noDangerouslySetInnerHtml: our own built stylesheet */}
        <style dangerouslySetInnerHTML={{ __html: styles }} />
        <Links />
      </head>
      <body className="flex min-h-screen flex-col bg-surface text-ink antialiased">
        <PageScriptsContext value={scripts}>
          <a
            href="#main"
            className="sr-only focus:not-sr-only focus:absolute focus:left-4 focus:top-4 focus:z-50 focus:rounded-brand focus:bg-surface focus:px-4 focus:py-2"
          >
            Skip to content
          </a>
          {tenant ? (
            <SiteHeader
              companyName={tenant.companyName}
              logoUrl={tenant.logoUrl}
              user={root.user}
            />
          ) : null}
          <div id="main" className="flex-1">
            {children}
          </div>
          {tenant ? (
            <SiteFooter companyName={tenant.companyName} companyAddress={tenant.companyAddress} />
          ) : null}
        </PageScriptsContext>
        {scripts ? (
          <>
            <ScrollRestoration nonce={nonce} />
            <Scripts nonce={nonce} />
          </>
        ) : enhanceForms ? (
          // biome-ignore lint/security/noDangerouslySetInnerHtml: our own script, from the repo
          <script nonce={nonce} dangerouslySetInnerHTML={{ __html: FORM_ENHANCEMENTS }} />
        ) : null}
      </body>
    </html>
  );
}

export default function App() {
  return (
    <>
      <AccessCheckNotice />
      <Outlet />
    </>
  );
}

/**
 * SPEC §6: while the tenant manager's guard checks the session (its loader verifies the token as
 * GET /api/auth/verify does), the page says so instead of looking stuck.
 */
function AccessCheckNotice() {
  const navigation = useNavigation();
  const location = useLocation();
  const target = navigation.location?.pathname ?? "";
  const verifying =
    navigation.state === "loading" &&
    target.startsWith("/admin/tenants") &&
    !location.pathname.startsWith("/admin/tenants");
  return (
    <div role="status" aria-live="polite" className={verifying ? "" : "sr-only"}>
      {verifying ? (
        <p className="bg-brand-strong px-4 py-2 text-center font-semibold text-on-brand-strong">
          Verifying your access...
        </p>
      ) : null}
    </div>
  );
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  const status = isRouteErrorResponse(error) ? error.status : 500;
  const root = useRootData();
  if (status >= 500 && import.meta.env.DEV) console.error(error);
  if (status === 403) {
    return (
      <>
        <title>Access denied</title>
        <AccessDenied email={root?.user?.email} />
      </>
    );
  }
  const copy =
    status === 404
      ? {
          title: "Page not found",
          text: "The page you are looking for does not exist or has moved.",
        }
      : status === 400 || status === 415
        ? {
            title: "We could not read your request",
            text: `${readableMessage(error)}Please go back and try again.`,
          }
        : {
            title: "Something went wrong",
            text: "We could not complete your request. Please try again in a moment.",
          };
  return (
    <ErrorPage
      eyebrow={String(status)}
      title={copy.title}
      text={copy.text}
      back={
        <a href="/" className="font-semibold underline">
          Back to the home page
        </a>
      }
    />
  );
}

/** A refusal's own message (server/http/request-input.ts: what could not be read), with a space. */
function readableMessage(error: unknown): string {
  if (!isRouteErrorResponse(error) || typeof error.data?.message !== "string") return "";
  return `${error.data.message} `;
}
