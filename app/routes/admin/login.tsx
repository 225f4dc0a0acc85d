import { getFormProps, getInputProps, useForm } from "@conform-to/react";
import { getZodConstraint, parseWithZod } from "@conform-to/zod/v4";
import { useState } from "react";
import { data, Form, redirect, useActionData, useNavigation, useSearchParams } from "react-router";
import { signIn } from "../../../server/auth/login";
import { landingPathFor, safeRedirectPath } from "../../../server/auth/permissions";
import { sessionCookie } from "../../../server/auth/sessions";
import { scopeOf, userContext } from "../../../server/http/context";
import { loginSchema } from "../../../shared/schemas/login";
import {
  FieldShell,
  FormAlert,
  InputField,
  SubmitButton,
  TextInput,
} from "../../components/ui/form";
import { noindexMeta } from "../../lib/meta";
import type { Route } from "./+types/login";

export const meta: Route.MetaFunction = () => noindexMeta("Admin Login");

export function loader({ context, request }: Route.LoaderArgs) {
  const user = context.get(userContext);
  if (user) {
    const target = safeRedirectPath(new URL(request.url).searchParams.get("redirectTo"));
    throw redirect(target ?? landingPathFor(user));
  }
  return null;
}

export async function action({ request, context }: Route.ActionArgs) {
  const scope = scopeOf(context);
  const submission = parseWithZod(await request.formData(), { schema: loginSchema });
  if (submission.status !== "success") {
    return data({ result: submission.reply({ hideFields: ["password"] }) }, { status: 400 });
  }
  const result = await signIn(scope, submission.value);
  if (!result.ok) {
    return data(
      { result: submission.reply({ formErrors: [result.error], hideFields: ["password"] }) },
      { status: result.limited ? 429 : 401 },
    );
  }
  const secure = new URL(request.url).protocol === "https:";
  const target = safeRedirectPath(submission.value.redirectTo) ?? landingPathFor(result.user);
  return redirect(target, {
    headers: { "Set-Cookie": sessionCookie(result.token, { secure, expiresAt: result.expiresAt }) },
  });
}

export default function AdminLogin() {
  const actionData = useActionData<typeof action>();
  const navigation = useNavigation();
  const [searchParams] = useSearchParams();
  const [showPassword, setShowPassword] = useState(false);
  const [form, fields] = useForm({
    lastResult: navigation.state === "idle" ? actionData?.result : null,
    constraint: getZodConstraint(loginSchema),
    shouldValidate: "onSubmit",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: loginSchema }),
  });
  const busy = navigation.state !== "idle" && navigation.formAction?.startsWith("/admin/login");

  return (
    <main className="mx-auto max-w-md px-4 py-16 sm:py-24">
      <div className="rounded-brand border border-black/10 bg-surface p-6 shadow-sm sm:p-8">
        <h1 className="text-2xl font-bold">Admin Login</h1>
        <Form method="post" className="mt-6 space-y-5" {...getFormProps(form)}>
          <FormAlert id={form.errorId} errors={form.errors} />
          <input type="hidden" name="redirectTo" value={searchParams.get("redirectTo") ?? ""} />
          <InputField field={fields.email} label="Email" type="email" autoComplete="username" />
          <FieldShell id={fields.password.id} label="Password" errors={fields.password.errors}>
            <div className="flex gap-2">
              <TextInput
                {...getInputProps(fields.password, { type: showPassword ? "text" : "password" })}
                autoComplete="current-password"
              />
              <button
                type="button"
                onClick={() => setShowPassword((shown) => !shown)}
                aria-pressed={showPassword}
                aria-controls={fields.password.id}
                aria-label={showPassword ? "Hide password" : "Show password"}
                className="rounded-brand border border-black/30 px-3 font-medium"
              >
                {showPassword ? "Hide" : "Show"}
              </button>
            </div>
          </FieldShell>
          <SubmitButton pending={busy} disabled={busy}>
            {busy ? "Signing in..." : "Sign In"}
          </SubmitButton>
        </Form>
      </div>
    </main>
  );
}
