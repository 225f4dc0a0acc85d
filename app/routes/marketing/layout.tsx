import { Outlet } from "react-router";
import { PAGE_CACHE_HEADER } from "../../../server/http/page-cache";
import { withoutScripts } from "../../lib/page-scripts";
import { pageWithoutScripts } from "../../lib/render-only.server";
import type { Route } from "./+types/layout";

/** Pure content: no JavaScript (app/lib/page-scripts.tsx). */
export const handle = withoutScripts;
/** Its render-only data stays out of the hydration data (app/lib/render-only.tsx). */
export const middleware: Route.MiddlewareFunction[] = [pageWithoutScripts];

/**
 * Marketing pages depend only on the tenant (and on being signed in, which the host checks), so
 * their anonymous HTML may be kept by the page cache. A child that must not be shared overrides this.
 */
export function headers() {
  return { [PAGE_CACHE_HEADER]: "1" };
}

export default function MarketingLayout() {
  return <Outlet />;
}
