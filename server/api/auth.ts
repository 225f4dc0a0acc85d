import type { RouterContextProvider } from "react-router";
import type { TokenScope } from "../../shared/schemas/api-tokens";
import { getApiTokenUser } from "../auth/api-tokens";
import type { StaffUser } from "../auth/permissions";
import { getSessionUser } from "../auth/sessions";
import { heldForEnrolment } from "../auth/two-factor";
import type { Db } from "../db";
import {
  enrolmentOnlyContext,
  type MatchedRoute,
  matchedRouteContext,
  scopeOf,
  userContext,
} from "../http/context";
import { API_MESSAGES, ApiError } from "./errors";

/** Who is calling an API route: a staff member by session cookie, session token or API token. */
export interface ApiCaller {
  user: StaffUser;
  via: "cookie" | "session-token" | "api-token";
  /** for the audit history: the email, plus the API token's name when one was used */
  actor: string;
}

type VerifiedToken = { user: StaffUser; tokenName: string | null; scopes: TokenScope[] | null };

/**
 * What an `x-auth-token` stands for: a user, "enrolment-only" for the session token of staff who
 * must still set up two-factor sign-in (decision 024), or null.
 */
async function resolveAuthToken(
  db: Db,
  token: string,
): Promise<VerifiedToken | "enrolment-only" | null> {
  // API tokens are honoured whoever owns them: they are made only in a full session (decision 024).
  const apiToken = await getApiTokenUser(db, token);
  if (apiToken) return apiToken;
  const user = await getSessionUser(db, token);
  if (!user) return null;
  if (await heldForEnrolment(db, user)) return "enrolment-only";
  // A session token is the signed-in user themselves: no scopes narrow it.
  return { user, tokenName: null, scopes: null };
}

/** The user an `x-auth-token` (a session token or an API token) stands for, or null. */
export async function verifyAuthToken(db: Db, token: string): Promise<VerifiedToken | null> {
  const verified = await resolveAuthToken(db, token);
  return verified === "enrolment-only" ? null : verified;
}

/** The functions that only read: a token with the `read` scope may call them. */
export const READ_ONLY_FUNCTIONS: ReadonlySet<string> = new Set([
  "helloWorld",
  "getAllGroups",
  "getCampaigns",
  "getSubscriber",
]);

/** The functions route's pattern in app/routes.ts. */
export const FUNCTIONS_ROUTE = "/api/functions/:name";

/**
 * The scope an API token needs for this request (shared/schemas/api-tokens.ts says which is which).
 * Decided from the route React Router matched and its params, never from the raw path: a trailing
 * slash, a doubled slash or another letter case reach the same handler with the same name, so
 * they need the same scope (issue 32, finding 3).
 */
export function requiredTokenScope(method: string, route: MatchedRoute): TokenScope {
  if (route.pattern === FUNCTIONS_ROUTE) {
    return READ_ONLY_FUNCTIONS.has(route.params.name ?? "") ? "read" : "functions";
  }
  return method === "GET" || method === "HEAD" ? "read" : "tenants:write";
}

/**
 * The caller of an API route, or null when anonymous. A request with `x-auth-token` is judged by
 * that token alone: a bad token is refused even when a session cookie came with it.
 */
export async function apiCaller(
  context: Readonly<RouterContextProvider>,
  request: Request,
): Promise<ApiCaller | null> {
  const token = request.headers.get("x-auth-token");
  if (token !== null) {
    const verified = await resolveAuthToken(scopeOf(context).db, token.trim());
    if (verified === "enrolment-only") {
      throw new ApiError("UNAUTHENTICATED", API_MESSAGES.twoFactorRequired);
    }
    if (!verified) throw new ApiError("UNAUTHENTICATED", API_MESSAGES.unauthenticated);
    // Least privilege: an API token does only what its scopes say, whoever it acts as.
    const needed = requiredTokenScope(request.method, context.get(matchedRouteContext));
    if (verified.scopes && !verified.scopes.includes(needed)) {
      throw new ApiError("PERMISSION_DENIED", `This API token lacks the ${needed} scope.`);
    }
    return {
      user: verified.user,
      via: verified.tokenName === null ? "session-token" : "api-token",
      actor: verified.tokenName
        ? `${verified.user.email} (API token "${verified.tokenName}")`
        : verified.user.email,
    };
  }
  const user = context.get(userContext);
  if (user) return { user, via: "cookie", actor: user.email };
  // Refused, not served as a visitor: an anonymous call (a sign-up, say) was not what they meant.
  if (context.get(enrolmentOnlyContext)) {
    throw new ApiError("UNAUTHENTICATED", API_MESSAGES.twoFactorRequired);
  }
  return null;
}

export async function requireApiStaff(
  context: Readonly<RouterContextProvider>,
  request: Request,
): Promise<ApiCaller> {
  const caller = await apiCaller(context, request);
  if (!caller) throw new ApiError("UNAUTHENTICATED", API_MESSAGES.unauthenticated);
  return caller;
}

export async function requireApiSuperAdmin(
  context: Readonly<RouterContextProvider>,
  request: Request,
): Promise<ApiCaller> {
  const caller = await requireApiStaff(context, request);
  if (!caller.user.isSuperAdmin) {
    throw new ApiError("PERMISSION_DENIED", API_MESSAGES.superAdminOnly);
  }
  return caller;
}
