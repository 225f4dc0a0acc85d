import type { RouterContextProvider } from "react-router";
import { getApiTokenUser } from "../auth/api-tokens";
import type { StaffUser } from "../auth/permissions";
import { getSessionUser } from "../auth/sessions";
import type { Db } from "../db";
import { scopeOf, userContext } from "../http/context";
import { API_MESSAGES, ApiError } from "./errors";

/** Who is calling an API route: a staff member by session cookie, session token or API token. */
export interface ApiCaller {
  user: StaffUser;
  via: "cookie" | "session-token" | "api-token";
  /** for the audit history: the email, plus the API token's name when one was used */
  actor: string;
}

/** The user an `x-auth-token` (a session token or an API token) stands for, or null. */
export async function verifyAuthToken(
  db: Db,
  token: string,
): Promise<{ user: StaffUser; tokenName: string | null } | null> {
  const apiToken = await getApiTokenUser(db, token);
  if (apiToken) return apiToken;
  const user = await getSessionUser(db, token);
  return user ? { user, tokenName: null } : null;
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
    const verified = await verifyAuthToken(scopeOf(context).db, token.trim());
    if (!verified) throw new ApiError("UNAUTHENTICATED", API_MESSAGES.unauthenticated);
    return {
      user: verified.user,
      via: verified.tokenName === null ? "session-token" : "api-token",
      actor: verified.tokenName
        ? `${verified.user.email} (API token "${verified.tokenName}")`
        : verified.user.email,
    };
  }
  const user = context.get(userContext);
  return user ? { user, via: "cookie", actor: user.email } : null;
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
