import { Form, useNavigation } from "react-router";
import { plural } from "../../../shared/format";
import { SubscriberFormFields } from "../../components/admin/subscriber-fields";
import { STATUS_LOOK } from "../../components/admin/subscriber-import";
import { AdminPage, AdminSection, BackLink } from "../../components/admin-header";
import { ConfirmPanel, IntentButton } from "../../components/ui/confirm";
import { FormAlert, FormNotice, outlineLinkClass, SubmitButton } from "../../components/ui/form";
import { noindexMeta } from "../../lib/meta";
import { StaffTime } from "../../lib/time-zone";
import type { Route } from "./+types/subscriber";

export { action, loader } from "./subscriber.server";

export const meta: Route.MetaFunction = ({ loaderData }) =>
  noindexMeta(loaderData ? `${loaderData.profile.email} | Subscribers` : "Subscriber");

const SOURCE: Record<string, string> = {
  form: "Signed up through the form",
  api: "Signed up through the API",
  staff: "Added by staff",
  import: "Imported from a CSV file",
};

/** Unsubscribing and erasing ask first, on the page. */
function ConfirmAction({ action, email }: { action: "unsubscribe" | "erase"; email: string }) {
  const erase = action === "erase";
  return (
    <ConfirmPanel
      title={erase ? `Erase ${email}?` : `Unsubscribe ${email}?`}
      fields={{ intent: action }}
      confirmLabel={erase ? "Yes, erase their data" : "Yes, unsubscribe them"}
      keepLabel="Keep them"
    >
      <p>
        {erase
          ? "Their address, name, fields, lists, history and consent record are deleted. Campaign statistics keep them as anonymous counts. This cannot be undone."
          : "They come off every list and get no more mail unless they sign up again."}
      </p>
    </ConfirmPanel>
  );
}

export default function Subscriber({ loaderData, actionData }: Route.ComponentProps) {
  const { profile, lists, fields } = loaderData;
  const busy = useNavigation().state === "submitting";
  const editing = actionData && Object.keys(actionData.fields).length > 0;
  const sent = editing ? actionData.values : null;
  const notice = actionData?.notice ?? (actionData ? null : loaderData.notice);
  const consent = profile.consent;
  return (
    <AdminPage title="Subscriber" width="medium" className="space-y-8">
      <BackLink to="/admin/subscribers">Subscribers</BackLink>
      <div>
        <div className="flex flex-wrap items-center gap-3">
          <h2 className="text-2xl font-bold break-all">{profile.email}</h2>
          <span
            className={`rounded-brand px-2 py-0.5 text-xs font-semibold ${STATUS_LOOK[profile.status] ?? ""}`}
          >
            {profile.status}
          </span>
        </div>
        <p className="mt-1 text-sm">
          {profile.name ? `${profile.name} · ` : ""}
          {plural(profile.lists.length, "list")} · in the audience since{" "}
          <StaffTime iso={profile.created_at} />
        </p>
      </div>
      <FormNotice message={notice} />
      <FormAlert errors={actionData?.message ? [actionData.message] : []} />
      {actionData?.confirm ? (
        <ConfirmAction action={actionData.confirm} email={profile.email} />
      ) : null}

      <AdminSection id="consent-heading" title="Consent">
        {consent ? (
          <dl className="mt-2 grid gap-x-4 gap-y-1 text-sm sm:grid-cols-[max-content_1fr]">
            <dt className="font-semibold">How</dt>
            <dd>
              {SOURCE[consent.source] ?? consent.source}
              {consent.by ? ` (${consent.by}${consent.optIn ? ", double opt-in" : ""})` : ""}
            </dd>
            <dt className="font-semibold">When</dt>
            <dd>
              <StaffTime iso={consent.at} />
            </dd>
            {consent.page ? (
              <>
                <dt className="font-semibold">Page</dt>
                <dd className="break-all">{consent.page}</dd>
              </>
            ) : null}
            {consent.clientAddress ? (
              <>
                <dt className="font-semibold">Client address</dt>
                <dd>{consent.clientAddress}</dd>
              </>
            ) : null}
          </dl>
        ) : (
          <p className="mt-2 text-sm">
            No sign-up record: they joined before Herald kept one, or through an import.
          </p>
        )}
      </AdminSection>

      <AdminSection id="details-heading" title="Details">
        <Form method="post" className="mt-3 space-y-5" noValidate>
          <input type="hidden" name="intent" value="save" />
          <SubscriberFormFields
            values={{
              email: sent?.email ?? profile.email,
              name: sent?.name ?? profile.name,
              lists: sent?.lists ?? profile.lists,
              fields: sent?.fields ?? profile.values,
            }}
            lists={lists}
            fields={fields}
            errors={actionData?.fields ?? {}}
          />
          {profile.status !== "active" ? (
            <p className="text-sm">
              {profile.status === "unconfirmed"
                ? "Unconfirmed: no mail goes to them until they follow the link in the confirmation email."
                : `Status ${profile.status}: no mail goes to them whatever their lists, until they sign up again and confirm.`}
            </p>
          ) : null}
          <SubmitButton disabled={busy}>Save changes</SubmitButton>
        </Form>
      </AdminSection>

      <AdminSection id="history-heading" title="History">
        {profile.timeline.length === 0 ? (
          <p className="mt-2 text-sm">Nothing recorded yet.</p>
        ) : (
          <ol className="mt-3 space-y-3 border-l-2 border-black/10 pl-4">
            {profile.timeline.map((entry) => (
              <li key={entry.position} data-kind={entry.kind}>
                <p className="text-xs opacity-80">
                  <StaffTime iso={entry.at} />
                </p>
                <p className="font-medium">{entry.title}</p>
                {entry.detail ? <p className="text-sm break-all">{entry.detail}</p> : null}
              </li>
            ))}
          </ol>
        )}
      </AdminSection>

      <AdminSection id="privacy-heading" title="Data and privacy">
        <p className="mt-2">
          Export everything Herald holds about them (GDPR Articles 15 and 20), unsubscribe them, or
          erase them (Article 17).
        </p>
        <div className="mt-3 flex flex-wrap gap-3">
          <a
            href={`/admin/subscribers/${profile.id}/export.json`}
            download
            className={outlineLinkClass}
          >
            Export data (JSON)
          </a>
          {profile.status === "active" || profile.status === "unconfirmed" ? (
            <IntentButton intent="unsubscribe">Unsubscribe</IntentButton>
          ) : null}
          <IntentButton intent="erase" danger>
            Erase subscriber
          </IntentButton>
        </div>
      </AdminSection>
    </AdminPage>
  );
}
