import { data, Form, useNavigation } from "react-router";
import { API_STATUS, toApiError } from "../../../server/api/errors";
import { callFunction } from "../../../server/api/functions";
import { requireTenantAccess } from "../../../server/auth/guards";
import { scopeOf } from "../../../server/http/context";
import { AdminHeader } from "../../components/admin-header";
import { FieldShell, TextInput } from "../../components/ui/form";
import type { Route } from "./+types/functions";

export const meta: Route.MetaFunction = () => [
  { title: "Function diagnostics" },
  { name: "robots", content: "noindex" },
];

/** SPEC §2 /test/functions: the four buttons and the function each one calls. */
const BUTTONS = [
  { fn: "helloWorld", label: "Test Connection" },
  { fn: "sendEmail", label: "Send Email" },
  { fn: "addSubscriber", label: "Add Subscriber" },
  { fn: "completeNewsletterSignup", label: "Complete Signup Flow" },
] as const;

type TestFunction = (typeof BUTTONS)[number]["fn"];

const isTestFunction = (value: unknown): value is TestFunction =>
  BUTTONS.some((button) => button.fn === value);

export type FunctionAnswer = {
  fn: TestFunction;
  ok: boolean;
  message: string;
  /** what POST /api/functions/{fn} would answer: { result } or { error } */
  body: unknown;
  values: { email: string; name: string };
};

/** DESIGN.md §7.5: signed-in staff of this tenant only, since the page sends mail. */
export async function loader({ request, context }: Route.LoaderArgs) {
  const user = requireTenantAccess(context, request);
  return {
    tenantName: scopeOf(context).tenant.branding.companyName,
    isSuperAdmin: user.isSuperAdmin,
    email: user.email,
  };
}

/** One button's call, made through the functions registry itself (no HTTP round-trip). */
export async function action({ request, context }: Route.ActionArgs) {
  const user = requireTenantAccess(context, request);
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

export default function FunctionsTest({ loaderData, actionData }: Route.ComponentProps) {
  const navigation = useNavigation();
  const pending = navigation.state === "submitting" ? navigation.formData?.get("fn") : null;
  const answer = actionData as FunctionAnswer | undefined;
  const status = pending
    ? `Calling ${String(pending)}…`
    : (answer?.message ?? "Choose a function to call.");
  const tone = pending || !answer ? "border-black/20" : answer.ok ? "border-ok" : "border-danger";
  return (
    <main>
      <AdminHeader
        title="Function diagnostics"
        tenantName={loaderData.tenantName}
        isSuperAdmin={loaderData.isSuperAdmin}
      />
      <div className="mx-auto max-w-3xl space-y-8 px-4 py-8 sm:px-6">
        <p className="max-w-2xl">
          Calls the site's functions as you, on this tenant, exactly as{" "}
          <code className="whitespace-nowrap font-mono text-sm">
            POST /api/functions/&#123;name&#125;
          </code>{" "}
          would. Send Email mails the address below; Add Subscriber and Complete Signup Flow
          subscribe it.
        </p>
        <Form method="post" className="space-y-6">
          <div className="grid gap-6 sm:grid-cols-2">
            <FieldShell id="email" label="Email">
              <TextInput
                id="email"
                name="email"
                type="email"
                autoComplete="email"
                maxLength={254}
                defaultValue={answer?.values.email ?? loaderData.email}
              />
            </FieldShell>
            <FieldShell id="name" label="Name" optional>
              <TextInput
                id="name"
                name="name"
                autoComplete="name"
                maxLength={100}
                defaultValue={answer?.values.name ?? ""}
              />
            </FieldShell>
          </div>
          <div className="flex flex-wrap gap-3">
            {BUTTONS.map((button, index) => (
              <button
                key={button.fn}
                type="submit"
                name="fn"
                value={button.fn}
                aria-disabled={pending ? true : undefined}
                className={
                  index === 0
                    ? "rounded-brand bg-brand-strong px-4 py-2 font-semibold text-on-brand-strong hover:opacity-90"
                    : "rounded-brand border-2 border-brand-strong px-4 py-2 font-semibold text-brand-strong hover:bg-brand/10"
                }
              >
                {button.label}
              </button>
            ))}
          </div>
        </Form>
        <section aria-labelledby="result-heading" className="space-y-3">
          <h2 id="result-heading" className="text-xl font-bold">
            Result
          </h2>
          <p
            role="status"
            aria-live="polite"
            data-testid="function-status"
            className={`rounded-brand border-2 p-3 font-medium ${tone} ${answer && !answer.ok && !pending ? "text-danger" : ""}`}
          >
            {status}
          </p>
          {answer ? (
            <figure>
              <figcaption className="text-sm font-semibold">
                JSON answer of <code className="font-mono">{answer.fn}</code>
              </figcaption>
              <pre
                data-testid="function-result"
                className="mt-2 max-h-[32rem] overflow-auto whitespace-pre-wrap break-words rounded-brand border border-black/10 bg-black/[0.03] p-4 font-mono text-sm"
              >
                {JSON.stringify(answer.body, null, 2)}
              </pre>
            </figure>
          ) : null}
        </section>
      </div>
    </main>
  );
}
