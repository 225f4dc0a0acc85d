// The pages of the embedded sign-up form (form.ts, subscribe.ts): rendered whole, with their CSP.
import { parseWithZod } from "@conform-to/zod/v4";
import type { ReactElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import type { RouterContextProvider } from "react-router";
import { type RequestScope, scopeOf } from "../../../server/http/context";
import { embedPagePolicy } from "../../../server/http/security";
import {
  embedActionUrl,
  embedAllowedOrigins,
  embedPostSource,
  framedPage,
} from "../../../server/subscribers/embed";
import { tenantLink } from "../../../server/subscribers/links";
import { signupFormData } from "../../../server/subscribers/signup-form-data";
import { submitNewsletterSignup } from "../../../server/subscribers/signup-submission";
import { EMBED_MESSAGES } from "../../../shared/schemas/embed";
import { SIGNUP_THANKS, signupSchema } from "../../../shared/schemas/signup";
import { EmbedAnswer, EmbedForm } from "../../components/embed-page";

type Context = Readonly<RouterContextProvider>;

/** The tenant's allowed sites plus its own origins: its public one and the one this request used. */
function allowedOf(scope: RequestScope, request: Request): Set<string> {
  return embedAllowedOrigins(scope.tenant, [scope.origin, new URL(request.url).origin]);
}

function page(element: ReactElement, scope: RequestScope, status = 200): Response {
  return new Response(`<!DOCTYPE html>${renderToStaticMarkup(element)}`, {
    status,
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      // Framed only by the tenant's own pages and its allowed sites (every other page: nobody).
      "Content-Security-Policy": embedPagePolicy(scope.tenant.embedOrigins),
      "Cache-Control": "no-store",
    },
  });
}

/** GET /embed/form: the form for an iframe; its Referer (the page around it) goes in the form. */
export async function embedFormPage(request: Request, context: Context): Promise<Response> {
  const scope = scopeOf(context);
  const { lists, defaultList } = await signupFormData(context);
  const around = framedPage(request.headers.get("referer"), allowedOf(scope, request));
  // Relative: the frame posts to the site it was loaded from, which its form-action allows.
  const action = new URL(embedActionUrl(scope));
  return page(
    <EmbedForm
      branding={scope.tenant.branding}
      lists={lists}
      defaultList={defaultList}
      page={around}
      privacyUrl={tenantLink(scope, "/privacy")}
      action={`${action.pathname}${action.search}`}
    />,
    scope,
  );
}

/**
 * POST /embed/subscribe, from the snippet on an allowed site or from /embed/form. Any other
 * origin is refused before its form is used: nothing is validated, counted or written.
 */
export async function embedSubscribe(request: Request, context: Context): Promise<Response> {
  const scope = scopeOf(context);
  const allowed = allowedOf(scope, request);
  const source = embedPostSource(request.headers, allowed);
  const answer = (
    tone: "ok" | "error",
    title: string,
    messages: string[],
    backUrl: string | null,
    status: number,
  ) =>
    page(
      <EmbedAnswer
        branding={scope.tenant.branding}
        tone={tone}
        title={title}
        messages={messages}
        backUrl={backUrl}
      />,
      scope,
      status,
    );
  if (!source.allowed) {
    scope.logger.warn({ origin: source.origin }, "embedded sign-up refused: origin not allowed");
    return answer("error", EMBED_MESSAGES.refusedTitle, [EMBED_MESSAGES.refused], null, 403);
  }
  const formData = await request.formData();
  // From the iframe (our own origin), the page is the one around the frame, when it is known.
  const own = source.origin === scope.origin || source.origin === new URL(request.url).origin;
  const framed = own ? framedPage(formData.get("page"), allowed) : null;
  const from = framed ?? source.page;
  const backUrl = own && !framed ? null : from;
  formData.delete("page");
  const submission = parseWithZod(formData, { schema: signupSchema });
  if (submission.status !== "success") {
    const messages = Object.values(submission.error ?? {}).flatMap((errors) => errors ?? []);
    return answer("error", "Newsletter sign-up", [...new Set(messages)], backUrl, 400);
  }
  const outcome = await submitNewsletterSignup(
    scope,
    scope.clientAddress,
    { ...submission.value, page: from },
    "embed",
  );
  if (!outcome.ok) {
    return answer("error", "Newsletter sign-up", [outcome.message], backUrl, outcome.status);
  }
  return answer("ok", "Newsletter sign-up", [SIGNUP_THANKS], backUrl, 200);
}
