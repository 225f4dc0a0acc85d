import { Form, useNavigation } from "react-router";
import { AdminPage, BackLink } from "../../components/admin-header";
import { NewsletterEditor } from "../../components/newsletter-editor";
import { ConfirmPanel, IntentButton } from "../../components/ui/confirm";
import { FormAlert, outlineLinkClass, SubmitButton, TextField } from "../../components/ui/form";
import { noindexMeta } from "../../lib/meta";
import type { Route } from "./+types/welcome-step";

export { action, loader } from "./welcome-step.server";

export const meta: Route.MetaFunction = ({ loaderData }) =>
  noindexMeta(loaderData ? `Welcome email | ${loaderData.list.name}` : "Welcome email");

export default function WelcomeStep({ loaderData, actionData }: Route.ComponentProps) {
  const { list, step } = loaderData;
  const busy = useNavigation().state === "submitting";
  const sent = actionData?.values ?? {};
  const value = (name: string, saved: string) => sent[name] ?? saved;
  return (
    <AdminPage title="Welcome email" width="medium" className="space-y-6">
      <BackLink to={`/admin/lists/${list.id}`}>{list.name}</BackLink>
      <p>
        {`Sent to each person who joins “${list.name}” from now on, once their delay has passed — whether they sign up, confirm, or are added by staff. Someone who leaves the list gets no more of its welcome emails.`}
      </p>
      <FormAlert errors={actionData?.message ? [actionData.message] : []} />
      {actionData && "confirmStop" in actionData && step ? (
        <ConfirmPanel
          title="Stop this welcome email?"
          fields={{ intent: "stop" }}
          confirmLabel="Yes, stop it"
        >
          <p>
            Nobody gets it from now on; its report stays with the campaigns. This cannot be undone.
          </p>
        </ConfirmPanel>
      ) : null}
      <Form method="post" className="space-y-5" noValidate>
        <input type="hidden" name="intent" value="save" />
        <TextField
          id="subject"
          label="Subject"
          required
          maxLength={300}
          defaultValue={value("subject", step?.subject ?? "")}
        />
        <TextField
          id="delayDays"
          label="Days after joining"
          hint="0 sends it at once."
          type="number"
          min={0}
          max={365}
          required
          defaultValue={value("delayDays", String(step?.delayDays ?? 0))}
        />
        <div className="grid gap-5 sm:grid-cols-2">
          <TextField
            id="senderName"
            label="Sender name"
            maxLength={200}
            defaultValue={value("senderName", step?.senderName ?? "")}
            optional
          />
          <TextField
            id="senderEmail"
            label="Sender email"
            type="email"
            maxLength={254}
            defaultValue={value("senderEmail", step?.senderEmail ?? "")}
            optional
          />
        </div>
        <div>
          <p id="content-label" className="font-semibold">
            Content
          </p>
          <div className="mt-2">
            <NewsletterEditor
              id="content"
              labelId="content-label"
              name="content"
              defaultValue={value("content", step?.content ?? "")}
              invalid={false}
              describedBy="content-label"
              uploadUrl="/admin/uploads"
            />
          </div>
        </div>
        <SubmitButton disabled={busy}>{step ? "Save changes" : "Add to the sequence"}</SubmitButton>
      </Form>
      {step ? (
        <div className="flex flex-wrap gap-3">
          <a href={`/admin/campaigns/${step.id}`} className={outlineLinkClass}>
            Report
          </a>
          <IntentButton intent={step.status === "paused" ? "resume" : "pause"}>
            {step.status === "paused" ? "Resume" : "Pause"}
          </IntentButton>
          <IntentButton intent="stop" danger>
            Stop
          </IntentButton>
        </div>
      ) : null}
    </AdminPage>
  );
}
