import { redirect } from "react-router";
import { safeRedirectPath } from "../../../server/auth/permissions";
import {
  deleteSession,
  readCookieHeader,
  SESSION_COOKIE,
  sessionCookie,
} from "../../../server/auth/sessions";
import { scopeOf } from "../../../server/http/context";
import type { Route } from "./+types/logout";

/** Sign Out (SPEC §2): ends the session on the server and returns home. */
export async function action({ request, url, context }: Route.ActionArgs) {
  const { db } = scopeOf(context);
  await deleteSession(db, readCookieHeader(request.headers.get("cookie"), SESSION_COOKIE));
  const secure = url.protocol === "https:";
  const form = await request.formData().catch(() => null);
  const target = safeRedirectPath(form?.get("redirectTo")?.toString()) ?? "/";
  return redirect(target, { headers: { "Set-Cookie": sessionCookie(null, { secure }) } });
}

// Signing out changes state, so it is a POST; a plain visit just goes home.
export function loader() {
  return redirect("/");
}
