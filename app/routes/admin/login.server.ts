// The loader and action of login.tsx.
import { parseWithZod } from "@conform-to/zod/v4";
import { data, redirect } from "react-router";
import { signIn } from "../../../server/auth/login";
import { landingPathFor, safeRedirectPath } from "../../../server/auth/permissions";
import { sessionCookie } from "../../../server/auth/sessions";
import { challengeCookie, signChallenge } from "../../../server/auth/two-factor";
import { scopeOf, userContext } from "../../../server/http/context";
import { loginSchema } from "../../../shared/schemas/login";
import type { Route } from "./+types/login";

export function loader({ context, url }: Route.LoaderArgs) {
  const user = context.get(userContext);
  if (user) {
    const target = safeRedirectPath(url.searchParams.get("redirectTo"));
    throw redirect(target ?? landingPathFor(user));
  }
  return null;
}

export async function action({ request, url, context }: Route.ActionArgs) {
  const scope = scopeOf(context);
  const submission = parseWithZod(await request.formData(), { schema: loginSchema });
  if (submission.status !== "success") {
    return data({ result: submission.reply({ hideFields: ["password"] }) }, { status: 400 });
  }
  const result = await signIn(scope, submission.value);
  if (result.ok === false) {
    return data(
      { result: submission.reply({ formErrors: [result.error], hideFields: ["password"] }) },
      { status: result.limited ? 429 : 401 },
    );
  }
  const secure = url.protocol === "https:";
  const redirectTo = safeRedirectPath(submission.value.redirectTo);
  if (result.ok === "second-factor") {
    const next = `/admin/login/two-factor${redirectTo ? `?${new URLSearchParams({ redirectTo })}` : ""}`;
    return redirect(next, {
      headers: {
        "Set-Cookie": challengeCookie(signChallenge(scope.sessionSecret, result.userId), secure),
      },
    });
  }
  return redirect(redirectTo ?? landingPathFor(result.user), {
    headers: { "Set-Cookie": sessionCookie(result.token, { secure, expiresAt: result.expiresAt }) },
  });
}
