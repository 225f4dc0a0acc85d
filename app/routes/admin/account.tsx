import type { ComponentProps, ReactNode } from "react";
import { Form, useNavigation } from "react-router";
import { TOKEN_MAX_LIFETIMES } from "../../../shared/schemas/api-tokens";
import { AdminPage, AdminSection } from "../../components/admin-header";
import {
  FilterSelect,
  FormAlert,
  FormNotice,
  SubmitButton,
  TextField,
} from "../../components/ui/form";
import { noindexMeta } from "../../lib/meta";
import type { Route } from "./+types/account";

export { action, loader } from "./account.server";

export const meta: Route.MetaFunction = () => noindexMeta("Your account");

export default function Account({ loaderData, actionData }: Route.ComponentProps) {
  const { pending, twoFactor } = loaderData;
  const busy = useNavigation().state === "submitting";
  const error = (intent: string) =>
    actionData?.kind === "error" && actionData.intent === intent ? [actionData.message] : [];
  return (
    <AdminPage title="Your account" width="narrow" className="space-y-8">
      <p>
        Signed in as <strong>{loaderData.email}</strong>.
      </p>
      {loaderData.mustEnrol && !twoFactor ? (
        <FormAlert
          errors={["Two-factor sign-in is required for all staff. Set it up to use the admin."]}
        />
      ) : null}
      <FormNotice message={actionData?.kind === "ok" && actionData.message} />

      {loaderData.enrolmentOnly ? null : (
        <AdminSection id="byline" title="Your byline">
          <OneFieldForm
            intent="name"
            errors={error("name")}
            field={{
              id: "display-name",
              name: "displayName",
              label: "Name shown on newsletters you write",
              hint: "For example “Jane Doe, Head of eDiscovery”. Leave it blank for no byline.",
              defaultValue: loaderData.displayName,
              maxLength: 100,
              required: false,
              autoComplete: "name",
            }}
            submit={<SubmitButton pending={busy}>Save name</SubmitButton>}
          />
        </AdminSection>
      )}

      <AdminSection id="two-factor" title="Two-factor sign-in">
        {actionData?.kind === "recovery-codes" ? (
          <div className="mt-3 space-y-3" data-testid="recovery-codes">
            <p role="status" className="font-semibold text-ok">
              Two-factor sign-in is on.
            </p>
            <p>
              Keep these recovery codes somewhere safe (a password manager, or printed). Each one
              signs you in once if you lose your phone. They are shown only now.
            </p>
            <ul className="grid grid-cols-1 gap-2 whitespace-nowrap rounded-brand bg-black/5 p-4 font-mono sm:grid-cols-2">
              {actionData.codes.map((code) => (
                <li key={code}>{code}</li>
              ))}
            </ul>
          </div>
        ) : twoFactor ? (
          <div className="mt-3 space-y-4">
            <p>
              On: after your password, sign-in asks for a code from your authenticator app.{" "}
              {loaderData.recoveryLeft} unused recovery codes left.
            </p>
            <OneFieldForm
              intent="disable"
              errors={error("disable")}
              field={{
                id: "disable-proof",
                name: "proof",
                label: "Your password or a code from your app, to turn it off",
                type: "password",
                autoComplete: "current-password",
              }}
              submit={
                <button
                  type="submit"
                  className="rounded-brand border-2 border-danger px-4 py-2 font-semibold text-danger"
                >
                  Turn off two-factor sign-in
                </button>
              }
            />
          </div>
        ) : pending ? (
          <div className="mt-3 space-y-4">
            <p>
              Scan this code with an authenticator app (1Password, Google Authenticator, Authy,
              Microsoft Authenticator…), then enter the 6-digit code it shows.
            </p>
            <div
              className="w-56 max-w-full rounded-brand border border-black/10 bg-white p-2"
              role="img"
              aria-label="QR code for your authenticator app"
              // The SVG is made on the server by the qrcode library from this account's URI.
              // biome-ignore lint/security/noDangerouslySetInnerHtml: generated markup, no user text
              dangerouslySetInnerHTML={{ __html: pending.qrSvg }}
            />
            <p className="text-sm">
              Cannot scan? Type this key into the app:{" "}
              <code className="break-all font-semibold" data-testid="totp-secret">
                {pending.secret}
              </code>
            </p>
            <Form method="post" className="mt-3 space-y-3">
              <input type="hidden" name="intent" value="confirm" />
              <FormAlert errors={error("confirm")} />
              <TextField
                id="confirm-code"
                name="code"
                label="Code from the app"
                autoComplete="one-time-code"
                required
                maxLength={20}
              />
              <TextField
                id="confirm-password"
                name="password"
                label="Your password"
                hint="Turning it on signs you out on every other device."
                type="password"
                autoComplete="current-password"
                required
                maxLength={200}
              />
              <SubmitButton pending={busy}>Turn on two-factor sign-in</SubmitButton>
            </Form>
          </div>
        ) : (
          <Form method="post" className="mt-3 space-y-3">
            <input type="hidden" name="intent" value="start" />
            <p>
              Off. With it on, a stolen password is not enough: sign-in also asks for a code from
              your phone.
            </p>
            <SubmitButton pending={busy}>Set up two-factor sign-in</SubmitButton>
          </Form>
        )}
      </AdminSection>

      {loaderData.isSuperAdmin ? (
        <AdminSection id="staff-policy" title="For all staff">
          <Form method="post" className="mt-3 space-y-3">
            <input type="hidden" name="intent" value="require" />
            <input type="hidden" name="required" value={loaderData.required ? "0" : "1"} />
            <p>
              {loaderData.required
                ? "Two-factor sign-in is required: staff without it set it up before they can use the admin."
                : "Two-factor sign-in is optional."}
            </p>
            <button
              type="submit"
              className="rounded-brand border-2 border-brand-strong px-4 py-2 font-semibold text-brand-strong"
            >
              {loaderData.required
                ? "Make two-factor sign-in optional"
                : "Require two-factor sign-in for all staff"}
            </button>
          </Form>
          <Form method="post" className="mt-6 flex flex-wrap items-end gap-4">
            <input type="hidden" name="intent" value="token-lifetime" />
            <FilterSelect
              name="maxDays"
              label="Longest lifetime of API tokens"
              defaultValue={String(loaderData.tokenMaxDays)}
              options={TOKEN_MAX_LIFETIMES.map((days) => ({
                value: String(days),
                label: days === 0 ? "No maximum" : `${days} days`,
              }))}
            />
            <button
              type="submit"
              className="rounded-brand border-2 border-brand-strong px-4 py-2 font-semibold text-brand-strong"
            >
              Save longest lifetime
            </button>
          </Form>
        </AdminSection>
      ) : null}
    </AdminPage>
  );
}

/** A form of one field and its button, with the form's refusal above it. */
function OneFieldForm({
  intent,
  errors,
  field,
  submit,
}: {
  intent: string;
  errors: string[];
  field: ComponentProps<typeof TextField>;
  submit: ReactNode;
}) {
  return (
    <Form method="post" className="mt-3 space-y-3">
      <input type="hidden" name="intent" value={intent} />
      <FormAlert errors={errors} />
      <TextField required maxLength={200} {...field} />
      {submit}
    </Form>
  );
}
