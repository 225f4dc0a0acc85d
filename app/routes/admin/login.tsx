import { getFormProps, getInputProps, useForm } from "@conform-to/react";
import { getZodConstraint, parseWithZod } from "@conform-to/zod/v4";
import { useState } from "react";
import { Form, Link, useActionData, useNavigation, useSearchParams } from "react-router";
import { loginSchema } from "../../../shared/schemas/login";
import { AuthCard } from "../../components/auth-card";
import {
  FieldShell,
  FormAlert,
  InputField,
  SubmitButton,
  TextInput,
} from "../../components/ui/form";
import { noindexMeta } from "../../lib/meta";
import type { Route } from "./+types/login";
import type { action } from "./login.server";

export const meta: Route.MetaFunction = () => noindexMeta("Admin Login");

export { action, loader } from "./login.server";

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
    <AuthCard title="Admin Login">
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
      <p className="mt-5 text-sm">
        <Link to="/admin/forgot-password" className="font-semibold">
          Forgot password?
        </Link>
      </p>
    </AuthCard>
  );
}
