import { getFormProps, useForm } from "@conform-to/react";
import { type FormEvent, type MouseEvent, useRef } from "react";
import { Form, isRouteErrorResponse, useNavigation, useSubmit } from "react-router";
import { NEWSLETTER_NOT_FOUND as NOT_FOUND } from "../../../shared/newsletters";
import { AdminPage } from "../../components/admin-header";
import { FormAlert, InputField, TextAreaField } from "../../components/ui/form";
import type { Route } from "./+types/newsletter-form";

export { action, loader } from "./newsletter-form.server";

/** SPEC §2 /admin/newsletter/new and /admin/newsletter/edit/{id}; one action, told apart by `intent`. */

import { type AutosaveAnswer, useAutosave } from "../../components/admin/newsletter-autosave";
import { ContentField, SaveBar } from "../../components/admin/newsletter-fields";
import { CoverField, TagsField } from "../../components/admin/newsletter-meta-fields";
import { ConfirmDelete, PublishingPanel } from "../../components/admin/newsletter-publishing";
import { ErrorPage } from "../../components/error-page";
import { Link } from "../../lib/page-scripts";

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

// The autosave hook reads these answers as AutosaveAnswer: this stops compiling if they drift apart.
type AutosaveAnswers = Extract<Awaited<ReturnType<typeof clientAction>>, { autosave: unknown }>;
const autosaveAnswersFit: [AutosaveAnswers] extends [AutosaveAnswer] ? true : false = true;
void autosaveAnswersFit;

/**
 * New and edit share this module: keyed on the newsletter, the form starts afresh after a create
 * redirects to the edit page, instead of keeping the errors of an earlier empty submit.
 */
export default function NewsletterFormPage(props: Route.ComponentProps) {
  return <NewsletterForm key={props.loaderData.newsletter?.id ?? "new"} {...props} />;
}

function NewsletterForm({ loaderData, actionData }: Route.ComponentProps) {
  const { newsletter, constraint, notice, confirmDelete, tagSuggestions } = loaderData;
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
          slug: newsletter.slug,
          readTime: newsletter.readTime === null ? "" : String(newsletter.readTime),
          tags: newsletter.tags,
          coverImage: newsletter.coverImage,
          coverAlt: newsletter.coverAlt,
        }
      : {},
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
  const formErrors = [...(form.errors ?? []), ...(failure ? [failure] : [])];

  function confirmAndDelete(event: MouseEvent) {
    event.preventDefault();
    if (window.confirm("Delete this newsletter? This cannot be undone.")) {
      void submit({ intent: "delete" }, { method: "post", action: actionUrl });
    }
  }

  return (
    <AdminPage title={newsletter ? "Edit Newsletter" : "Create New Newsletter"}>
      {notice && navigation.state === "idle" && !actionData ? (
        <p
          role="status"
          className="mb-6 rounded-brand border-2 border-ok bg-surface px-4 py-3 font-semibold text-ok"
        >
          {notice}
        </p>
      ) : null}

      {newsletter && confirmDelete ? (
        <ConfirmDelete title={newsletter.title} actionUrl={actionUrl} />
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
          <SaveBar
            autosave={autosave}
            showAutosave={Boolean(newsletter)}
            saveLabel={newsletter ? "Update Newsletter" : "Create Newsletter"}
          />
          <div className="space-y-6 p-5 sm:p-6">
            <FormAlert id={form.errorId} errors={formErrors} className="p-4" />
            <InputField field={fields.title} label="Title" className="text-lg font-semibold" />
            <InputField
              field={fields.slug}
              label="URL"
              hint="The end of /newsletter/…: lower-case letters, digits and hyphens. Leave it blank to make it from the title. Old addresses keep working when you change it."
              optional
              spellCheck={false}
              autoCapitalize="off"
            />
            <TextAreaField
              field={fields.excerpt}
              label="Excerpt"
              hint="One or two sentences shown in newsletter lists and link previews."
              rows={3}
            />
            <CoverField
              image={fields.coverImage}
              alt={fields.coverAlt}
              uploadUrl="/admin/uploads"
              onChange={autosave.schedule}
            />
            <ContentField field={fields.content} onChange={autosave.schedule} />
            <TagsField
              field={fields.tags}
              suggestions={tagSuggestions}
              onChange={autosave.schedule}
            />
            <InputField
              field={fields.readTime}
              label="Read Time (minutes)"
              hint="Leave it blank to count it from the text: 230 words a minute."
              optional
              type="number"
              step={1}
              inputMode="numeric"
              className="max-w-32"
            />
          </div>
        </Form>

        <PublishingPanel
          newsletter={newsletter}
          actionUrl={actionUrl}
          busyIntent={busyIntent}
          onDelete={confirmAndDelete}
          schedule={loaderData.schedule}
          scheduleError={
            actionData &&
            "scheduleError" in actionData &&
            typeof actionData.scheduleError === "string"
              ? actionData.scheduleError
              : null
          }
          sharing={loaderData.sharing}
          share={(actionData && "share" in actionData ? actionData.share : null) ?? null}
        />
      </div>
    </AdminPage>
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
    <ErrorPage
      title={title}
      text={
        status === 404
          ? "It may have been deleted, or it belongs to another site."
          : status === 403
            ? "Ask a super admin to give you access to this site's newsletters."
            : "We could not complete your request. Please try again in a moment."
      }
      back={
        <Link to="/admin/dashboard" className="font-semibold underline">
          Back to the dashboard
        </Link>
      }
    />
  );
}
