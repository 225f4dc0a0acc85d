import { getFormProps, useForm } from "@conform-to/react";
import { getZodConstraint, parseWithZod } from "@conform-to/zod/v4";
import { data, Form, redirect, useActionData, useNavigation } from "react-router";
import { completeSetup, isSetupTokenValid } from "../../../server/auth/bootstrap";
import { createSession, sessionCookie } from "../../../server/auth/sessions";
import { countUsers } from "../../../server/auth/users";
import { scopeOf } from "../../../server/http/context";
import { MIN_PASSWORD_LENGTH, setupSchema } from "../../../shared/schemas/staff";
import { FormAlert, InputField, SubmitButton } from "../../components/ui/form";
import { noindexMeta } from "../../lib/meta";
import type { Route } from "./+types/setup";

export const meta: Route.MetaFunction = () => noindexMeta("Set up Herald");

/** First run (issue #3): the one-time link from the server log opens this page. */
export async function loader({ url, context }: Route.LoaderArgs) {
  const { db } = scopeOf(context);
  const token = url.searchParams.get("token");
  const valid = (await countUsers(db)) === 0 && (await isSetupTokenValid(db, token));
  return data({ valid, token: valid ? token : null }, { status: valid ? 200 : 404 });
}

export async function action({ request, url, context }: Route.ActionArgs) {
  const { db } = scopeOf(context);
  const submission = parseWithZod(await request.formData(), { schema: setupSchema });
  if (submission.status !== "success") {
    return data(
      { result: submission.reply({ hideFields: ["password", "confirmPassword"] }) },
      { status: 400 },
    );
  }
  const outcome = await completeSetup(db, submission.value);
  if ("error" in outcome) {
    return data(
      {
        result: submission.reply({
          formErrors: [outcome.error],
          hideFields: ["password", "confirmPassword"],
        }),
      },
      { status: 400 },
    );
  }
  const session = await createSession(db, outcome.userId);
  const secure = url.protocol === "https:";
  return redirect("/admin/dashboard", {
    headers: {
      "Set-Cookie": sessionCookie(session.token, { secure, expiresAt: session.expiresAt }),
    },
  });
}

export default function Setup({ loaderData }: Route.ComponentProps) {
  const actionData = useActionData<typeof action>();
  const navigation = useNavigation();
  const [form, fields] = useForm({
    lastResult: navigation.state === "idle" ? actionData?.result : null,
    constraint: getZodConstraint(setupSchema),
    shouldValidate: "onBlur",
    // A field with an error is checked as it is typed in, not when it loses the focus: on blur the
    // corrected field's message vanished on the button's mousedown and the button moved up from
    // under the pointer, so the click was lost (issue 35).
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: setupSchema }),
  });

  if (!loaderData.valid) {
    return (
      <main className="mx-auto max-w-md px-4 py-24">
        <h1 className="text-2xl font-bold">Setup link not valid</h1>
        <p className="mt-4">
          This setup link is invalid or has already been used. If Herald has staff users, sign in at{" "}
          <a href="/admin/login">Admin Login</a>; otherwise restart the server and use the new link
          it logs.
        </p>
      </main>
    );
  }

  return (
    <main className="mx-auto max-w-md px-4 py-16">
      <div className="rounded-brand border border-black/10 bg-surface p-6 shadow-sm sm:p-8">
        <h1 className="text-2xl font-bold">Create the first super admin</h1>
        <p className="mt-2">This account can manage every tenant, newsletter and staff user.</p>
        <Form method="post" className="mt-6 space-y-5" {...getFormProps(form)}>
          <FormAlert errors={form.errors} />
          <input type="hidden" name="token" value={loaderData.token ?? ""} />
          <InputField field={fields.email} label="Email" type="email" autoComplete="username" />
          <InputField
            field={fields.password}
            label="Password"
            hint={`At least ${MIN_PASSWORD_LENGTH} characters, and not one of the common passwords.`}
            type="password"
            autoComplete="new-password"
          />
          <InputField
            field={fields.confirmPassword}
            label="Repeat password"
            type="password"
            autoComplete="new-password"
          />
          <SubmitButton>Create super admin</SubmitButton>
        </Form>
      </div>
    </main>
  );
}
