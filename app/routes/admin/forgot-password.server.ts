// The action of forgot-password.tsx.
import { data, redirect } from "react-router";
import { requestPasswordReset } from "../../../server/auth/account-links";
import { afterAnswer } from "../../../server/http/after-answer";
import { scopeOf } from "../../../server/http/context";
import { createRateLimit } from "../../../server/http/rate-limit";
import { forgotPasswordSchema } from "../../../shared/schemas/staff";
import type { Route } from "./+types/forgot-password";

/** Per client address, and per account address: nobody's inbox is flooded through this form. */
const perClient = createRateLimit({ name: "forgot-password", points: 10, windowSeconds: 15 * 60 });
const perAccount = createRateLimit({ name: "reset-mail", points: 3, windowSeconds: 60 * 60 });

export async function action({ request, context }: Route.ActionArgs) {
  const scope = scopeOf(context);
  const input = forgotPasswordSchema.safeParse(Object.fromEntries(await request.formData()));
  if (!input.success) {
    return data(
      { error: input.error.issues[0]?.message ?? "Enter your email address." },
      { status: 400 },
    );
  }
  if (!(await perClient.take(scope.clientAddress))) {
    return data(
      { error: "Too many requests from your address. Please wait a few minutes and try again." },
      { status: 429 },
    );
  }
  const email = input.data.email;
  // The same answer, at the same speed, whether or not the address has an account.
  if (await perAccount.take(email.toLowerCase())) {
    afterAnswer(scope.logger, "password reset requested", () => requestPasswordReset(scope, email));
  }
  return redirect("/admin/forgot-password?sent=1");
}
