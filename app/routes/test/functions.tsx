import { Form, useNavigation } from "react-router";
import { AdminPage } from "../../components/admin-header";
import { FieldShell, TextInput } from "../../components/ui/form";
import { noindexMeta } from "../../lib/meta";
import type { Route } from "./+types/functions";
import { BUTTONS, type FunctionAnswer } from "./functions.shared";

export { action, loader } from "./functions.server";

export const meta: Route.MetaFunction = () => noindexMeta("Function diagnostics");

export default function FunctionsTest({ loaderData, actionData }: Route.ComponentProps) {
  const navigation = useNavigation();
  const pending = navigation.state === "submitting" ? navigation.formData?.get("fn") : null;
  const answer = actionData as FunctionAnswer | undefined;
  const status = pending
    ? `Calling ${String(pending)}…`
    : (answer?.message ?? "Choose a function to call.");
  const tone = pending || !answer ? "border-black/20" : answer.ok ? "border-ok" : "border-danger";
  return (
    <AdminPage title="Function diagnostics" width="narrow" className="space-y-8">
      <p className="max-w-2xl">
        Calls the site's functions as you, on this tenant, exactly as{" "}
        <code className="whitespace-nowrap font-mono text-sm">
          POST /api/functions/&#123;name&#125;
        </code>{" "}
        would. Send Email mails the address below; Add Subscriber and Complete Signup Flow subscribe
        it.
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
    </AdminPage>
  );
}
