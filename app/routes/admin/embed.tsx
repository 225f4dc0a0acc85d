import type { ReactNode } from "react";
import { Form, useNavigation } from "react-router";
import { MAX_EMBED_SITES } from "../../../shared/schemas/embed";
import { AdminPage, AdminSection } from "../../components/admin-header";
import { FieldShell, FormAlert, SubmitButton, TextArea } from "../../components/ui/form";
import { noindexMeta } from "../../lib/meta";
import type { Route } from "./+types/embed";

export { action, loader } from "./embed.server";

export const meta: Route.MetaFunction = () => noindexMeta("Sign-up forms");

/** Code to copy: what it is for, and the code in a read-only box. */
function CodeSection({
  id,
  title,
  label,
  rows,
  code,
  children,
}: {
  id: string;
  title: string;
  label: string;
  rows: number;
  code: string;
  children: ReactNode;
}) {
  return (
    <AdminSection id={`${id}-heading`} title={title}>
      <p className="mt-2">{children}</p>
      <label htmlFor={id} className="sr-only">
        {label}
      </label>
      <textarea
        id={id}
        readOnly
        rows={rows}
        className="mt-2 block w-full rounded-brand border border-black/30 bg-surface p-3 font-mono text-sm text-ink"
        value={code}
      />
    </AdminSection>
  );
}

export default function EmbedForms({ loaderData, actionData }: Route.ComponentProps) {
  const busy = useNavigation().state === "submitting";
  const noSites = loaderData.sites.length === 0;
  return (
    <AdminPage title="Sign-up forms" width="wide" className="space-y-8">
      <p>
        Put this site's sign-up form on your other websites: as an HTML form that works without
        JavaScript, or as a frame. People who sign up there get the same emails as here (the
        confirmation email when double opt-in is on), and their consent record names the page they
        used.
      </p>
      {loaderData.notice && !actionData ? (
        <p role="status" className="rounded-brand border-2 border-ok p-3 font-medium">
          {loaderData.notice}
        </p>
      ) : null}
      <AdminSection id="embed-sites-heading" title="Allowed sites">
        <p className="mt-2">
          The form may only be used on these sites; a sign-up from anywhere else is refused.
        </p>
        <FormAlert errors={actionData?.errors} className="mt-3" />
        <Form method="post" className="mt-3 space-y-4" noValidate>
          <FieldShell
            id="embed-sites"
            label="Sites"
            hint={`One address a line, like https://www.example.com (at most ${MAX_EMBED_SITES}).`}
          >
            <TextArea
              // Remounted with the saved, normalised list after a save (defaultValue is read once).
              key={loaderData.sites.join("\n")}
              id="embed-sites"
              name="sites"
              rows={5}
              aria-describedby="embed-sites-hint"
              aria-invalid={actionData?.errors.length ? true : undefined}
              defaultValue={actionData?.sites ?? loaderData.sites.join("\n")}
            />
          </FieldShell>
          <SubmitButton disabled={busy}>Save allowed sites</SubmitButton>
        </Form>
      </AdminSection>
      {noSites ? (
        <p className="rounded-brand border-2 border-brand-strong p-3">
          Add at least one allowed site: until then the form works only on this site's own pages.
        </p>
      ) : null}
      <CodeSection
        id="embed-html"
        title="HTML form"
        label="HTML form code"
        rows={14}
        code={loaderData.snippet}
      >
        Paste it into a page of an allowed site, and style it with that site's own CSS.
      </CodeSection>
      <CodeSection
        id="embed-iframe"
        title="Frame"
        label="Frame code"
        rows={4}
        code={loaderData.iframe}
      >
        A ready-made form in this site's colours, shown in a frame on an allowed site.
      </CodeSection>
      <AdminSection id="embed-preview-heading" title="Preview of the frame">
        <iframe
          src={loaderData.preview}
          title="Preview of the sign-up form frame"
          className="mt-3 h-[30rem] w-full max-w-lg rounded-brand border border-black/20"
        />
      </AdminSection>
    </AdminPage>
  );
}
