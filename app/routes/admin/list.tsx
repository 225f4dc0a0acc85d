import { Form, useNavigation } from "react-router";
import { plural } from "../../../shared/format";
import { ListFields } from "../../components/admin/list-fields";
import { AdminPage, AdminSection, BackLink } from "../../components/admin-header";
import { ConfirmPanel, IntentButton } from "../../components/ui/confirm";
import { FormAlert, FormNotice, outlineLinkClass, SubmitButton } from "../../components/ui/form";
import { noindexMeta } from "../../lib/meta";
import { Link } from "../../lib/page-scripts";
import type { Route } from "./+types/list";

export { action, loader } from "./list.server";

export const meta: Route.MetaFunction = ({ loaderData }) =>
  noindexMeta(loaderData ? `${loaderData.list.name} | Lists` : "List");

export default function ListPage({ loaderData, actionData }: Route.ComponentProps) {
  const { list } = loaderData;
  const busy = useNavigation().state === "submitting";
  const sent = actionData?.values ?? {};
  const editing = actionData && Object.keys(actionData.fields).length > 0;
  const notice = actionData?.notice ?? loaderData.notice;
  return (
    <AdminPage title="List" width="narrow" className="space-y-8">
      <BackLink to="/admin/lists">All lists</BackLink>
      <div>
        <h2 className="text-2xl font-bold break-words">{list.name}</h2>
        <p className="mt-1 text-sm">
          Key <code>{list.key}</code> · {plural(list.active, "active subscriber")} ·{" "}
          {plural(list.members, "person", "people")} on the list
          {list.archived ? " · archived" : ""}
          {list.isDefault ? " · the default list for sign-ups" : ""}
        </p>
        <p className="mt-1 text-sm">
          <Link to={`/admin/subscribers?list=${encodeURIComponent(list.key)}`}>
            See its subscribers
          </Link>
        </p>
      </div>
      <FormNotice message={notice} />
      <FormAlert errors={actionData?.error ? [actionData.error] : []} />

      <AdminSection id="details-heading" title="Details">
        <Form method="post" className="mt-3 space-y-5" noValidate>
          <input type="hidden" name="intent" value="save" />
          <ListFields
            values={{
              name: editing ? (sent.name ?? "") : list.name,
              description: editing ? (sent.description ?? "") : list.description,
              visibility: editing ? (sent.visibility ?? "") : list.visibility,
            }}
            errors={(actionData?.fields ?? {}) as Record<string, string[]>}
          />
          <SubmitButton disabled={busy}>Save changes</SubmitButton>
        </Form>
      </AdminSection>

      <AdminSection id="welcome-heading" title="Welcome sequence">
        <p className="mt-2">
          Emails sent to each person who joins this list, at once or some days later, each once.
          Someone who leaves the list gets no more of them.
        </p>
        {loaderData.steps.length > 0 ? (
          <ol className="mt-3 space-y-2">
            {loaderData.steps.map((step) => (
              <li
                key={step.id}
                className="flex flex-wrap items-baseline justify-between gap-2 rounded-brand border border-black/10 p-3"
              >
                <span>
                  <span className="font-semibold">
                    {step.delayDays === 0 ? "At once" : `After ${plural(step.delayDays, "day")}`}
                  </span>
                  {" · "}
                  <Link to={`/admin/lists/${list.id}/welcome/${step.id}`}>{step.subject}</Link>
                  {step.status === "paused" ? " · paused" : ""}
                </span>
                <span className="text-sm">
                  {`${plural(step.sent, "sent", "sent")} · `}
                  <Link to={`/admin/campaigns/${step.id}`}>Report</Link>
                </span>
              </li>
            ))}
          </ol>
        ) : (
          <p className="mt-2 text-sm">No welcome emails yet.</p>
        )}
        <p className="mt-3">
          <Link to={`/admin/lists/${list.id}/welcome/new`} className={outlineLinkClass}>
            Add a welcome email
          </Link>
        </p>
      </AdminSection>

      <AdminSection id="archive-heading" title={list.archived ? "Archived" : "Archive"}>
        <p className="mt-2">
          {list.archived
            ? "This list keeps its subscribers but is offered nowhere and cannot be chosen for new campaigns."
            : "Archiving keeps the subscribers but offers the list nowhere: not on sign-up, not in the preference centre, not for new campaigns."}
        </p>
        <div className="mt-3">
          <IntentButton intent={list.archived ? "restore" : "archive"}>
            {list.archived ? "Restore list" : "Archive list"}
          </IntentButton>
        </div>
      </AdminSection>

      <AdminSection id="delete-heading" title="Delete">
        {actionData?.confirm ? (
          <div className="mt-3">
            <ConfirmPanel
              title={`Delete “${list.name}”?`}
              fields={{ intent: "delete" }}
              confirmLabel="Yes, delete the list"
            >
              <p>
                {`${plural(list.members, "person", "people")} will be taken off this list; their other lists and their history stay. This cannot be undone.`}
              </p>
            </ConfirmPanel>
          </div>
        ) : (
          <>
            <p className="mt-2">Deleting takes everyone off the list; it asks first.</p>
            <div className="mt-3">
              <IntentButton intent="delete" danger>
                Delete list
              </IntentButton>
            </div>
          </>
        )}
      </AdminSection>
    </AdminPage>
  );
}
