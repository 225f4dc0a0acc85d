import { Form, useNavigation } from "react-router";
import { SubscriberFormFields } from "../../components/admin/subscriber-fields";
import { AdminPage, BackLink } from "../../components/admin-header";
import { ChoiceGroup, FormAlert, SubmitButton } from "../../components/ui/form";
import { noindexMeta } from "../../lib/meta";
import type { Route } from "./+types/subscriber-new";

export { action, loader } from "./subscriber-new.server";

export const meta: Route.MetaFunction = () => noindexMeta("Add a subscriber");

const MODES = [
  {
    value: "active",
    label: "Add as active now",
    hint: "They have agreed to receive your mail (say, on a paper form). No email is sent.",
  },
  {
    value: "opt-in",
    label: "Send the double opt-in email",
    hint: "They are added as unconfirmed and get mail only once they follow the link in it.",
  },
] as const;

export default function SubscriberNew({ loaderData, actionData }: Route.ComponentProps) {
  const busy = useNavigation().state === "submitting";
  const sent = actionData?.values;
  return (
    <AdminPage title="Add a subscriber" width="narrow" className="space-y-6">
      <BackLink to="/admin/subscribers">Subscribers</BackLink>
      <FormAlert errors={actionData?.message ? [actionData.message] : []} />
      <Form method="post" className="space-y-6" noValidate>
        <SubscriberFormFields
          values={{
            email: sent?.email ?? "",
            name: sent?.name ?? "",
            lists: sent?.lists ?? [loaderData.defaultList],
            fields: sent?.fields ?? {},
          }}
          lists={loaderData.lists}
          fields={loaderData.fields}
          errors={actionData?.fields ?? {}}
        />
        <ChoiceGroup
          type="radio"
          legend="How"
          name="mode"
          options={MODES}
          chosen={sent?.mode ?? "opt-in"}
          className="mt-3 space-y-3"
        />
        <SubmitButton disabled={busy}>Add subscriber</SubmitButton>
      </Form>
    </AdminPage>
  );
}
