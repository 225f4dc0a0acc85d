// The loader and action of login-two-factor.tsx: the second step of sign-in.
import { data, redirect } from "react-router";
import { signInSecondStep } from "../../../server/auth/login";
import { landingPathFor, safeRedirectPath } from "../../../server/auth/permissions";
import { readCookieHeader, sessionCookie } from "../../../server/auth/sessions";
import { CHALLENGE_COOKIE, challengeCookie, readChallenge } from "../../../server/auth/two-factor";
import { scopeOf } from "../../../server/http/context";
import { secondFactorCodeSchema } from "../../../shared/schemas/staff";
import type { Route } from "./+types/login-two-factor";

/** The account whose password was just right, from the short-lived challenge cookie. */
function challengeOf(request: Request, sessionSecret: string) {
  return readChallenge(
    sessionSecret,
    readCookieHeader(request.headers.get("cookie"), CHALLENGE_COOKIE),
  );
}

export function loader({ request, context }: Route.LoaderArgs) {
  if (!challengeOf(request, scopeOf(context).sessionSecret)) throw redirect("/admin/login");
  return null;
}

export async function action({ request, url, context }: Route.ActionArgs) {
  const scope = scopeOf(context);
  const challenge = challengeOf(request, scope.sessionSecret);
  if (!challenge) throw redirect("/admin/login");
  const input = secondFactorCodeSchema.safeParse(Object.fromEntries(await request.formData()));
  if (!input.success) {
    return data({ error: input.error.issues[0]?.message ?? "Enter the code." }, { status: 400 });
  }
  const result = await signInSecondStep(scope, { challenge, code: input.data.code });
  const secure = url.protocol === "https:";
  if (result.ok === "challenge-dead") {
    // Spent, or too many wrong codes: the password step again (throttled where it comes from).
    throw redirect("/admin/login", { headers: { "Set-Cookie": challengeCookie(null, secure) } });
  }
  if (result.ok !== true) {
    const error = result.ok === false ? result.error : "";
    return data({ error }, { status: result.ok === false && result.limited ? 429 : 401 });
  }
  const headers = new Headers();
  headers.append(
    "Set-Cookie",
    sessionCookie(result.token, { secure, expiresAt: result.expiresAt }),
  );
  headers.append("Set-Cookie", challengeCookie(null, secure));
  return redirect(safeRedirectPath(input.data.redirectTo) ?? landingPathFor(result.user), {
    headers,
  });
}
