import { Form, useNavigation } from "react-router";
import { AbTestFields, abTestValuesOf } from "../../components/admin/ab-test-fields";
import { CampaignMessageFields, CampaignOptions } from "../../components/admin/campaign-options";
import { AdminPage, BackLink } from "../../components/admin-header";
import { Checkbox, FormAlert, SubmitButton } from "../../components/ui/form";
import { noindexMeta } from "../../lib/meta";
import type { Route } from "./+types/campaign-edit";

export { action, loader } from "./campaign-edit.server";

export const meta: Route.MetaFunction = ({ loaderData }) =>
  noindexMeta(loaderData ? `Edit ${loaderData.campaign.name} | Campaigns` : "Edit campaign");

export default function CampaignEdit({ loaderData, actionData }: Route.ComponentProps) {
  const { campaign, lists } = loaderData;
  const busy = useNavigation().state === "submitting";
  const saved = loaderData.values;
  const sent = (actionData?.values ?? {}) as Record<string, unknown>;
  const text = (name: keyof typeof saved) =>
    typeof sent[name] === "string" ? (sent[name] as string) : String(saved[name]);
  const fields = actionData?.fields ?? {};
  return (
    <AdminPage title="Edit campaign" width="narrow" className="space-y-8">
      <BackLink to={`/admin/campaigns/${campaign.id}`}>Back to the campaign</BackLink>
      <h2 className="text-2xl font-bold break-words">{campaign.name}</h2>
      {campaign.editable ? (
        <>
          <p>A draft or scheduled campaign can be changed until it starts sending.</p>
          <FormAlert errors={actionData?.form ?? []} />
          <Form method="post" className="space-y-6" noValidate>
            <CampaignMessageFields
              values={{
                subject: text("subject"),
                senderName: text("senderName"),
                senderEmail: text("senderEmail"),
                replyTo: text("replyTo"),
              }}
              errors={fields}
            />
            <AbTestFields values={abTestValuesOf(sent, loaderData.abTest)} errors={fields} />
            {campaign.fromNewsletter ? (
              <Checkbox
                name="refreshContent"
                label="Use the newsletter’s current content (it may have been edited since)"
                defaultChecked={sent.refreshContent === "on"}
              />
            ) : null}
            <CampaignOptions
              lists={lists}
              chosenLists={Array.isArray(sent.lists) ? (sent.lists as string[]) : saved.lists}
              segments={loaderData.segments}
              chosenSegments={
                Array.isArray(sent.segments) ? (sent.segments as string[]) : saved.segments
              }
              trackOpens={actionData ? sent.trackOpens === true : saved.trackOpens}
              trackClicks={actionData ? sent.trackClicks === true : saved.trackClicks}
              mode={text("mode")}
              scheduledAt={text("scheduledAt")}
              errors={fields}
              modes={["schedule", "draft"]}
            />
            <SubmitButton disabled={busy}>Save changes</SubmitButton>
          </Form>
        </>
      ) : (
        <p role="alert" className="rounded-brand border-2 border-secondary p-3">
          This campaign has started sending; it can no longer be edited.
        </p>
      )}
    </AdminPage>
  );
}
