import { createContext, type RouterContextProvider } from "react-router";
import type { StaffUser } from "../auth/permissions";
import type { Scope } from "../scope";

/** A request's scope (server/scope.ts), as the host builds it before React Router sees the request. */
export interface RequestScope extends Scope {
  requestId: string;
  /** CSP nonce for this response's inline scripts */
  nonce: string;
  /** the matched route's pattern ("/newsletter/:id"), set by the root middleware, for /metrics */
  route?: string;
  /** set when the host already counted this newsletter view (server/newsletters/page-views.ts) */
  countedView?: { views: number };
}

export const requestContext = createContext<RequestScope>();
/** The signed-in staff member, or null (set by the root middleware from the session cookie). */
export const userContext = createContext<StaffUser | null>(null);
/**
 * An enrolment-only session (decision 024): the staff member signed in with the password while
 * two-factor sign-in is required and they have not set it up. On the enrolment pages userContext
 * holds them and this says the session may do nothing else; everywhere else userContext is null
 * and this holds them, so each door refuses them instead of guessing.
 */
export const enrolmentOnlyContext = createContext<StaffUser | null>(null);

/** The route React Router matched: its pattern as app/route-access.ts names it, and its params. */
export interface MatchedRoute {
  /** with a leading slash: "/api/functions/:name" */
  pattern: string;
  params: Readonly<Record<string, string | undefined>>;
  /**
   * The location as the route sees it: React Router's `url` argument, without its `.data` suffix
   * and `?_routes`/`?index` (future.v8_passThroughRequests hands handlers the raw request).
   */
  url: URL;
}

/**
 * Set by the root middleware. Decisions about a request's route (an API token's scope) read it
 * rather than the raw path, so every spelling that reaches a handler is judged alike (issue 32).
 * No default: reading it before the middleware ran is a bug, and throws.
 */
export const matchedRouteContext = createContext<MatchedRoute>();

/** The request's scope: its tenant and services. Loaders, actions and middleware all start here. */
export function scopeOf(context: Readonly<RouterContextProvider>): RequestScope {
  return context.get(requestContext);
}
