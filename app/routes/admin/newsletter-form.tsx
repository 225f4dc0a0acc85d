import { getFormProps, getInputProps, getTextareaProps, useForm } from "@conform-to/react";
import { type FormEvent, useRef } from "react";
import { Form, isRouteErrorResponse, Link, useNavigation, useSubmit } from "react-router";
import { NEWSLETTER_NOT_FOUND as NOT_FOUND } from "../../../shared/newsletters";
import { AdminHeader } from "../../components/admin-header";
import { NewsletterEditor } from "../../components/newsletter-editor";
import { FieldErrors, FieldShell, TextArea, TextInput } from "../../components/ui/form";
import type { Route } from "./+types/newsletter-form";

export { action, loader } from "./newsletter-form.server";

/** SPEC §2 /admin/newsletter/new and /admin/newsletter/edit/{id}; one action, told apart by `intent`. */

import { AutosaveStatus, useAutosave } from "../../components/admin/newsletter-autosave";

const editPath = (id: string) => `/admin/newsletter/edit/${id}`;

export const meta: Route.MetaFunction = ({ loaderData }) => [
  {
    title: loaderData?.newsletter
      ? `Edit Newsletter: ${loaderData.newsletter.title}`
      : "Create New Newsletter",
  },
  { name: "robots", content: "noindex" },
];

export async function clientAction({ request, serverAction }: Route.ClientActionArgs) {
  const intent = (await request.clone().formData()).get("intent");
  if (intent !== "autosave") return serverAction();
  try {
    return await serverAction();
  } catch (error) {
    if (error instanceof Response) throw error;
    return { autosave: { status: "error" as const } };
  }
}

/**
 * New and edit share this module: keyed on the newsletter, the form starts afresh after a create
 * redirects to the edit page, instead of keeping the errors of an earlier empty submit.
 */
export default function NewsletterFormPage(props: Route.ComponentProps) {
  return <NewsletterForm key={props.loaderData.newsletter?.id ?? "new"} {...props} />;
}

function NewsletterForm({ loaderData, actionData }: Route.ComponentProps) {
  const { newsletter, constraint, notice, confirmDelete } = loaderData;
  const navigation = useNavigation();
  const submit = useSubmit();
  const formRef = useRef<HTMLFormElement>(null);
  const actionUrl = newsletter ? editPath(newsletter.id) : "/admin/newsletter/new";
  const lastResult =
    navigation.state === "idle" && actionData && "result" in actionData ? actionData.result : null;
  const failure = actionData && "error" in actionData ? actionData.error : null;

  const [form, fields] = useForm({
    id: "newsletter-form",
    lastResult,
    constraint,
    defaultValue: newsletter
      ? {
          title: newsletter.title,
          excerpt: newsletter.excerpt,
          content: newsletter.content,
          readTime: String(newsletter.readTime),
        }
      : { readTime: "5" },
    shouldValidate: "onSubmit",
  });

  const autosave = useAutosave({
    formRef,
    actionUrl,
    // Only drafts autosave: a published newsletter changes when someone presses Update.
    enabled: newsletter?.status === "draft",
  });

  const busyIntent =
    navigation.state !== "idle" && navigation.formAction === actionUrl
      ? (navigation.formData?.get("intent") ?? "save")
      : null;
  const published = newsletter?.status === "published";
  const formErrors = [...(form.errors ?? []), ...(failure ? [failure] : [])];

  function confirmAndDelete(event: React.MouseEvent) {
    event.preventDefault();
    if (window.confirm("Delete this newsletter? This cannot be undone.")) {
      void submit({ intent: "delete" }, { method: "post", action: actionUrl });
    }
  }

  return (
    <main>
      <AdminHeader
        title={newsletter ? "Edit Newsletter" : "Create New Newsletter"}
        tenantName={loaderData.tenantName}
        isSuperAdmin={loaderData.isSuperAdmin}
      />
      <div className="mx-auto max-w-6xl px-4 py-8 sm:px-6">
        {notice && navigation.state === "idle" && !actionData ? (
          <p
            role="status"
            className="mb-6 rounded-brand border-2 border-ok bg-surface px-4 py-3 font-semibold text-ok"
          >
            {notice}
          </p>
        ) : null}

        {newsletter && confirmDelete ? (
          <section
            aria-labelledby="confirm-delete-heading"
            className="mb-6 rounded-brand border-2 border-danger bg-surface p-5"
          >
            <h2 id="confirm-delete-heading" className="text-xl font-bold">
              Delete this newsletter?
            </h2>
            <p className="mt-2">
              “{newsletter.title}” and its comments will be removed for good. This cannot be undone.
            </p>
            <div className="mt-4 flex flex-wrap gap-3">
              <Form method="post" action={actionUrl}>
                <button
                  type="submit"
                  name="intent"
                  value="delete"
                  className="rounded-brand bg-danger px-4 py-2 font-semibold text-white"
                >
                  Yes, delete
                </button>
              </Form>
              <Link
                to={actionUrl}
                className="rounded-brand border-2 border-black/30 px-4 py-2 font-semibold text-ink no-underline"
              >
                Keep it
              </Link>
            </div>
          </section>
        ) : null}

        <div className="grid gap-8 lg:grid-cols-[minmax(0,1fr)_18rem]">
          <Form
            method="post"
            action={actionUrl}
            ref={formRef}
            {...getFormProps(form)}
            onChange={autosave.schedule}
            onSubmit={(event: FormEvent<HTMLFormElement>) => {
              autosave.cancel();
              form.onSubmit(event);
            }}
            className="min-w-0 rounded-brand border border-black/10 bg-surface shadow-sm"
          >
            <div className="space-y-6 p-5 sm:p-6">
              {formErrors.length ? (
                <div
                  role="alert"
                  id={form.errorId}
                  className="rounded-brand border-2 border-danger p-4 font-medium text-danger"
                >
                  {formErrors.join(" ")}
                </div>
              ) : null}
              <FieldShell id={fields.title.id} label="Title" errors={fields.title.errors}>
                <TextInput
                  {...getInputProps(fields.title, { type: "text" })}
                  className="text-lg font-semibold"
                />
              </FieldShell>
              <FieldShell
                id={fields.excerpt.id}
                label="Excerpt"
                hint="One or two sentences shown in newsletter lists and link previews."
                errors={fields.excerpt.errors}
              >
                <TextArea {...getTextareaProps(fields.excerpt)} rows={3} />
              </FieldShell>
              <div>
                <label
                  id={`${fields.content.id}-label`}
                  htmlFor={fields.content.id}
                  className="block font-semibold"
                >
                  Content
                </label>
                <p id={`${fields.content.id}-hint`} className="mt-1 text-sm opacity-80">
                  Headings, lists, quotes, links and images are kept; scripts and other unsafe HTML
                  are removed when you save.
                </p>
                <div className="mt-2">
                  <NewsletterEditor
                    id={fields.content.id}
                    labelId={`${fields.content.id}-label`}
                    name={fields.content.name}
                    defaultValue={String(fields.content.initialValue ?? "")}
                    invalid={!fields.content.valid}
                    describedBy={`${fields.content.id}-hint ${fields.content.id}-error`}
                    uploadUrl="/admin/uploads"
                    onChange={autosave.schedule}
                  />
                </div>
                <FieldErrors id={`${fields.content.id}-error`} errors={fields.content.errors} />
              </div>
              <FieldShell
                id={fields.readTime.id}
                label="Read Time (minutes)"
                errors={fields.readTime.errors}
              >
                <TextInput
                  {...getInputProps(fields.readTime, { type: "number" })}
                  step={1}
                  inputMode="numeric"
                  className="max-w-32"
                />
              </FieldShell>
            </div>

            <div className="flex flex-col gap-3 rounded-b-brand border-t border-black/10 bg-surface/95 px-5 py-3 backdrop-blur sm:sticky sm:bottom-0 sm:flex-row sm:items-center sm:px-6">
              <AutosaveStatus
                view={autosave.view}
                errors={autosave.errors}
                show={Boolean(newsletter)}
              />
              <div className="flex gap-3 sm:ml-auto">
                <Link
                  to="/admin/dashboard"
                  className="whitespace-nowrap rounded-brand border-2 border-black/30 px-4 py-2 text-center font-semibold text-ink no-underline hover:bg-black/5"
                >
                  Cancel
                </Link>
                <button
                  type="submit"
                  name="intent"
                  value="save"
                  className="flex-1 whitespace-nowrap rounded-brand bg-brand-strong px-5 py-2 font-semibold text-on-brand-strong hover:opacity-90 sm:flex-none"
                >
                  {newsletter ? "Update Newsletter" : "Create Newsletter"}
                </button>
              </div>
            </div>
          </Form>

          <aside aria-label="Publishing" className="lg:sticky lg:top-6 lg:self-start">
            {newsletter ? (
              <div className="space-y-4 rounded-brand border border-black/10 bg-surface p-5 shadow-sm">
                <div className="flex items-center justify-between gap-3">
                  <h2 className="text-lg font-bold">Status</h2>
                  <span
                    className={`rounded-full px-3 py-1 text-sm font-semibold ${
                      published ? "bg-ok text-white" : "bg-black/10 text-ink"
                    }`}
                    data-testid="newsletter-status"
                  >
                    {published ? "Published" : "Draft"}
                  </span>
                </div>
                <p className="text-sm opacity-80">
                  {published
                    ? "Readers can see this newsletter. Changes go live when you press Update Newsletter."
                    : "Only staff can see this draft. Changes are saved automatically."}
                </p>
                {published ? (
                  <div className="flex flex-col gap-2">
                    <Link
                      to={`/newsletter/${newsletter.id}`}
                      className="rounded-brand border-2 border-brand-strong px-4 py-2 text-center font-semibold text-brand-strong no-underline hover:bg-brand/10"
                    >
                      View
                    </Link>
                    <Form method="post" action={actionUrl}>
                      <button
                        type="submit"
                        name="intent"
                        value="unpublish"
                        className="w-full rounded-brand border-2 border-black/30 px-4 py-2 font-semibold hover:bg-black/5"
                      >
                        {busyIntent === "unpublish" ? "Unpublishing…" : "Unpublish"}
                      </button>
                    </Form>
                  </div>
                ) : (
                  <button
                    type="submit"
                    form="newsletter-form"
                    name="intent"
                    value="publish"
                    className="w-full rounded-brand bg-ok px-4 py-2 font-semibold text-white hover:opacity-90"
                  >
                    {busyIntent === "publish" ? "Publishing…" : "Publish"}
                  </button>
                )}
                <div className="border-t border-black/10 pt-4">
                  <Link
                    to={`${actionUrl}?confirmDelete=1`}
                    onClick={confirmAndDelete}
                    className="block rounded-brand px-4 py-2 text-center font-semibold text-danger no-underline hover:bg-danger/10"
                  >
                    Delete
                  </Link>
                </div>
              </div>
            ) : (
              <div className="rounded-brand border border-black/10 bg-black/[0.03] p-5 text-sm leading-relaxed">
                <h2 className="text-lg font-bold">How it works</h2>
                <p className="mt-2">
                  Create Newsletter saves it as a draft that only staff can see. From there, changes
                  are saved automatically, and Publish puts it on the newsletter page.
                </p>
              </div>
            )}
          </aside>
        </div>
      </div>
    </main>
  );
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  const status = isRouteErrorResponse(error) ? error.status : 500;
  const title =
    status === 404
      ? NOT_FOUND
      : status === 403
        ? "You do not have access to this tenant."
        : "Something went wrong";
  return (
    <main className="mx-auto max-w-2xl px-6 py-24 text-center">
      <title>{title}</title>
      <h1 className="text-3xl font-bold">{title}</h1>
      <p className="mt-4 text-lg">
        {status === 404
          ? "It may have been deleted, or it belongs to another site."
          : status === 403
            ? "Ask a super admin to give you access to this site's newsletters."
            : "We could not complete your request. Please try again in a moment."}
      </p>
      <p className="mt-8">
        <Link to="/admin/dashboard" className="font-semibold underline">
          Back to the dashboard
        </Link>
      </p>
    </main>
  );
}
