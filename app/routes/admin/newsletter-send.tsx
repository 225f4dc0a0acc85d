import { type KeyboardEvent, useRef } from "react";
import { Form, useNavigation } from "react-router";
import { AbTestFields, abTestValuesOf } from "../../components/admin/ab-test-fields";
import { CampaignMessageFields, CampaignOptions } from "../../components/admin/campaign-options";
import { CampaignReview } from "../../components/admin/campaign-review";
import { SubjectSuggestions } from "../../components/admin/draft-assist";
import { AdminPage, AdminSection, BackLink } from "../../components/admin-header";
import { FormAlert, FormNotice, SubmitButton, TextField } from "../../components/ui/form";
import { noindexMeta } from "../../lib/meta";
import type { Route } from "./+types/newsletter-send";

export { action, loader } from "./newsletter-send.server";

export const meta: Route.MetaFunction = ({ loaderData }) =>
  noindexMeta(loaderData ? `Send as email: ${loaderData.newsletter.title}` : "Send as email");

export default function NewsletterSend({ loaderData, actionData }: Route.ComponentProps) {
  const { newsletter, lists, defaults } = loaderData;
  const navigation = useNavigation();
  const busy = navigation.state === "submitting";
  const values = (actionData?.values ?? {}) as Record<string, unknown>;
  const fields = actionData?.kind === "errors" ? actionData.fields : {};
  const formErrors = actionData?.kind === "errors" ? actionData.form : [];
  const value = (name: string, fallback: string) =>
    typeof values[name] === "string" ? (values[name] as string) : fallback;
  const chosenLists = Array.isArray(values.lists) ? (values.lists as string[]) : defaults.lists;
  const checked = (name: "trackOpens" | "trackClicks") =>
    actionData ? values[name] === true : true;
  const mode = value("mode", "now");
  // Enter in the test addresses sends the test: the form's first button is "Review and send".
  const testButton = useRef<HTMLButtonElement>(null);
  const sendTestOnEnter = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key !== "Enter" || event.nativeEvent.isComposing || !testButton.current) return;
    event.preventDefault();
    event.currentTarget.form?.requestSubmit(testButton.current);
  };

  return (
    <AdminPage title="Send as email" width="narrow" className="space-y-8">
      <BackLink to="/admin/dashboard">Newsletters</BackLink>
      <h2 className="text-2xl font-bold">{newsletter.title}</h2>
      {newsletter.sentAt ? (
        <p className="rounded-brand border-2 border-secondary p-3">
          This newsletter was already sent by email. Sending it again mails every recipient again.
        </p>
      ) : null}
      <FormAlert errors={formErrors} />
      <FormNotice
        message={actionData?.kind === "tested" && `Test email sent to ${actionData.to.join(", ")}.`}
      />

      {loaderData.llmOn ? (
        <SubjectSuggestions newsletterId={newsletter.id} fieldId="subject" />
      ) : null}

      <Form method="post" id="campaign-form" className="space-y-6" noValidate>
        <CampaignMessageFields
          values={{
            subject: value("subject", defaults.subject),
            senderName: value("senderName", defaults.senderName),
            senderEmail: value("senderEmail", defaults.senderEmail),
            replyTo: value("replyTo", defaults.replyTo),
          }}
          errors={fields}
        />
        <AbTestFields values={abTestValuesOf(values)} errors={fields} />
        <CampaignOptions
          lists={lists}
          chosenLists={chosenLists}
          segments={loaderData.segments}
          chosenSegments={Array.isArray(values.segments) ? (values.segments as string[]) : []}
          trackOpens={checked("trackOpens")}
          trackClicks={checked("trackClicks")}
          mode={mode}
          scheduledAt={value("scheduledAt", "")}
          errors={fields}
        />
        <div className="flex flex-wrap gap-3">
          {mode === "draft" ? (
            <SubmitButton name="intent" value="create" disabled={busy}>
              Save campaign
            </SubmitButton>
          ) : (
            <SubmitButton name="intent" value="review" disabled={busy}>
              Review and send
            </SubmitButton>
          )}
          <button
            type="submit"
            name="intent"
            value="preview"
            className="rounded-brand border-2 border-brand-strong px-5 py-3 font-semibold text-brand-strong"
          >
            Preview
          </button>
        </div>
        <fieldset className="space-y-3 rounded-brand border border-black/15 p-4">
          <legend className="px-1 font-semibold">Test email</legend>
          <TextField
            id="testRecipients"
            label="Send a test to"
            hint={`Up to ${loaderData.maxTestRecipients} addresses, separated by commas. Marked “[Test]”, without tracking, and never counted in reports.`}
            errors={fields.testRecipients}
            maxLength={2_000}
            autoComplete="off"
            spellCheck={false}
            defaultValue={value("testRecipients", loaderData.me)}
            onKeyDown={sendTestOnEnter}
          />
          <button
            ref={testButton}
            type="submit"
            name="intent"
            value="test"
            className="rounded-brand border-2 border-brand-strong px-5 py-3 font-semibold text-brand-strong"
          >
            Send a test
          </button>
        </fieldset>
      </Form>

      {actionData?.kind === "review" ? (
        <CampaignReview
          review={actionData}
          scheduled={mode === "schedule"}
          busy={busy}
          testLabel="Send a test"
        />
      ) : null}

      {actionData?.kind === "preview" ? (
        <AdminSection id="preview-heading" title="Preview">
          <p className="mt-1 text-sm">
            {actionData.from} · {actionData.subject}
          </p>
          <iframe
            sandbox=""
            srcDoc={actionData.html}
            title="Email preview"
            className="mt-3 h-[70vh] min-h-[28rem] w-full rounded-brand border border-black/20 bg-white"
          />
        </AdminSection>
      ) : null}
    </AdminPage>
  );
}
