import { useSearchParams } from "react-router";
import { MAX_EMAIL_LENGTH } from "../../../shared/schemas/email";
import { AuthCard } from "../../components/auth-card";
import { FieldShell, FormAlert, SubmitButton, TextInput } from "../../components/ui/form";
import { submitted } from "../../components/ui/submitted";
import { noindexMeta } from "../../lib/meta";
import { Link, withFormEnhancements } from "../../lib/page-scripts";
import { pageWithoutScripts } from "../../lib/render-only.server";
import type { Route } from "./+types/login";

export const meta: Route.MetaFunction = () => noindexMeta("Admin Login");

export { action, loader } from "./login.server";

/**
 * A plain form: the page ships no app JavaScript (issue 17, target 5). Its form enhancements give
 * the password its Show/Hide toggle and the button its 'Signing in...' (SPEC §2 /admin/login).
 */
export const handle = withFormEnhancements;
/** Its render-only data stays out of the hydration data (app/lib/render-only.tsx). */
export const middleware: Route.MiddlewareFunction[] = [pageWithoutScripts];

export default function AdminLogin({ actionData }: Route.ComponentProps) {
  const [searchParams] = useSearchParams();
  const { errors, field, value, formErrorId, formProps } = submitted("login", actionData?.result);
  const email = field("email");
  const password = field("password");

  return (
    <AuthCard title="Admin Login">
      <form {...formProps} className="mt-6 space-y-5">
        <FormAlert id={formErrorId} errors={errors("")} />
        <input type="hidden" name="redirectTo" value={searchParams.get("redirectTo") ?? ""} />
        <FieldShell id={email.id} label="Email" errors={errors("email")}>
          <TextInput
            {...email}
            type="email"
            required
            maxLength={MAX_EMAIL_LENGTH}
            autoComplete="username"
            defaultValue={value("email")}
          />
        </FieldShell>
        <FieldShell id={password.id} label="Password" errors={errors("password")}>
          <div className="flex gap-2">
            <TextInput {...password} type="password" required autoComplete="current-password" />
            <button
              type="button"
              // Shown by the form enhancements: without script it could do nothing.
              hidden
              data-toggles-password={password.id}
              aria-pressed="false"
              aria-controls={password.id}
              aria-label="Show password"
              className="rounded-brand border border-black/30 px-3 font-medium"
            >
              Show
            </button>
          </div>
        </FieldShell>
        <SubmitButton data-busy-label="Signing in...">Sign In</SubmitButton>
      </form>
      <p className="mt-5 text-sm">
        <Link to="/admin/forgot-password" className="font-semibold">
          Forgot password?
        </Link>
      </p>
    </AuthCard>
  );
}
