import { parseWithZod } from "@conform-to/zod/v4";
import { data, redirect } from "react-router";
import { scopeOf } from "../../../server/http/context";
import { signupFormData } from "../../../server/subscribers/signup-form-data";
import { submitNewsletterSignup } from "../../../server/subscribers/signup-submission";
import { SIGNUP_THANKS, signupSchema } from "../../../shared/schemas/signup";
import { type SignupAnswer, SignupForm } from "../../components/signup-form";
import { Notice, Panel, SubscriptionPage } from "../../components/subscription-page";
import { pageMeta } from "../../lib/meta";
import { Link, withoutScripts } from "../../lib/page-scripts";
import { pageWithoutScripts } from "../../lib/render-only.server";
import type { Route } from "./+types/subscribe";

/** A form page: plain HTML, no JavaScript (app/lib/page-scripts.tsx). */
export const handle = withoutScripts;
/** Its render-only data stays out of the hydration data (app/lib/render-only.tsx). */
export const middleware: Route.MiddlewareFunction[] = [pageWithoutScripts];

export const meta: Route.MetaFunction = (args) =>
  pageMeta(args, {
    title: "Subscribe to our newsletters",
    description:
      "Choose the newsletters you want: weekly insights on legal technology and eDiscovery, and news from the platform. Change or cancel at any time.",
  });

/** GET: the standalone sign-up page; ?done=1 is where a sign-up without JavaScript lands. */
export async function loader({ url, context }: Route.LoaderArgs) {
  const done = url.searchParams.get("done") === "1";
  return { ...(await signupFormData(context)), done };
}

/**
 * POST: a sign-up from any page's form. A fetcher (the form once hydrated sends js=1) gets the
 * answer as data; a plain form post is redirected to ?done=1 on success, so reloading the thanks
 * does not post again, and on failure gets this page with the form, its errors and what was typed.
 */
export async function action({ request, context }: Route.ActionArgs) {
  const formData = await request.formData();
  const fromScript = formData.get("js") === "1";
  const submission = parseWithZod(formData, { schema: signupSchema });
  const answer = (body: SignupAnswer, status = 200) => data<SignupAnswer>(body, { status });
  if (submission.status !== "success") {
    return answer({ ok: false, result: submission.reply() }, 400);
  }
  const outcome = await submitNewsletterSignup(
    scopeOf(context),
    scopeOf(context).clientAddress,
    submission.value,
  );
  if (!outcome.ok) {
    return answer(
      { ok: false, result: submission.reply({ formErrors: [outcome.message] }) },
      outcome.status,
    );
  }
  if (!fromScript) throw redirect("/newsletter/subscribe?done=1", 303);
  return answer({ ok: true, message: SIGNUP_THANKS });
}

export default function Subscribe({ loaderData, actionData }: Route.ComponentProps) {
  return (
    <SubscriptionPage
      title="Subscribe to our newsletters"
      lead="Choose what you would like to receive. You can change or cancel your subscription at any time from the link in every email."
      footer="privacy-and-terms"
    >
      <Panel>
        {loaderData.done && !actionData ? (
          <div className="space-y-4">
            <Notice tone="ok" testId="signup-thanks">
              <p className="font-semibold text-ok">{SIGNUP_THANKS}</p>
            </Notice>
            <p>
              <Link to="/newsletter" className="font-semibold">
                Read the latest newsletters
              </Link>
            </p>
          </div>
        ) : (
          <SignupForm
            lists={loaderData.lists}
            defaultList={loaderData.defaultList}
            answer={actionData}
          />
        )}
      </Panel>
    </SubscriptionPage>
  );
}
