import { data } from "react-router";
import { API_STATUS, toApiError } from "../../../server/api/errors";
import { callFunction } from "../../../server/api/functions";
import { requireTenantAccess } from "../../../server/auth/guards";
import { scopeOf } from "../../../server/http/context";
import type { Route } from "./+types/functions";
import { type FunctionAnswer, isTestFunction, type TestFunction } from "./functions.shared";

/** DESIGN.md §7.5: signed-in staff of this tenant only, since the page sends mail. */
export async function loader({ context }: Route.LoaderArgs) {
  const user = requireTenantAccess(context);
  return {
    email: user.email,
  };
}

/** One button's call, made through the functions registry itself (no HTTP round-trip). */
export async function action({ request, context }: Route.ActionArgs) {
  const user = requireTenantAccess(context);
  const tenant = scopeOf(context).tenant;
  const form = await request.formData();
  const fn = form.get("fn");
  const values = {
    email: String(form.get("email") ?? "").trim(),
    name: String(form.get("name") ?? "").trim(),
  };
  if (!isTestFunction(fn)) {
    throw data({ message: "Choose one of the buttons." }, { status: 400 });
  }
  const payloads: Record<TestFunction, () => unknown> = {
    helloWorld: () => ({ test: true, timestamp: new Date().toISOString() }),
    sendEmail: () => ({
      to: values.email,
      subject: `Test email from ${tenant.branding.companyName}`,
      content: `<p>This is a test email sent from the function diagnostics page by ${escapeHtml(user.email)}.</p><p>If you can read it, mail from this site works.</p>`,
    }),
    addSubscriber: () => ({ email: values.email, fields: { name: values.name } }),
    completeNewsletterSignup: () => ({
      email: values.email,
      name: values.name,
      tenantId: tenant.id,
    }),
  };
  try {
    const result = await callFunction(scopeOf(context), fn, payloads[fn](), user);
    return data<FunctionAnswer>({
      fn,
      ok: true,
      message: `${fn} succeeded.`,
      body: { result },
      values,
    });
  } catch (error) {
    const failure = toApiError(error, scopeOf(context).logger);
    return data<FunctionAnswer>(
      {
        fn,
        ok: false,
        message: `${fn} failed: ${failure.message}`,
        body: {
          error: {
            status: failure.status,
            message: failure.message,
            ...(failure.fields ? { fields: failure.fields } : {}),
          },
        },
        values,
      },
      { status: API_STATUS[failure.status] },
    );
  }
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
