import { useEffect, useRef } from "react";
import { Form, useFetcher, useNavigation } from "react-router";
import { formatCount, plural } from "../../../shared/format";
import { SUBSCRIBER_STATUS_OPTIONS } from "../../../shared/schemas/subscribers";
import {
  ActivityCondition,
  Checkboxes,
  FieldConditions,
} from "../../components/admin/segment-conditions";
import { AdminPage, AdminSection, BackLink } from "../../components/admin-header";
import { ConfirmPanel, IntentButton } from "../../components/ui/confirm";
import {
  FormAlert,
  FormNotice,
  NameField,
  outlineButtonClass,
  SubmitButton,
  TextField,
} from "../../components/ui/form";
import { noindexMeta } from "../../lib/meta";
import type { Route } from "./+types/segment";

export { action, loader } from "./segment.server";

export const meta: Route.MetaFunction = ({ loaderData }) =>
  noindexMeta(loaderData?.segment.name ? `${loaderData.segment.name} | Segments` : "New segment");

type Count = { matching: number; active: number };

/** The two ends of the sign-up date range, each optional. */
const SIGNED_UP_BOUNDS = [
  { id: "signedUpAfter", label: "From" },
  { id: "signedUpBefore", label: "To" },
] as const;

export default function Segment({ loaderData, actionData }: Route.ComponentProps) {
  const { segment, lists, fields } = loaderData;
  const rule = segment.rule;
  const busy = useNavigation().state === "submitting";
  const errors = actionData?.errors ?? {};
  // The live count: every change to the form asks the server again (a short pause first).
  const counter = useFetcher<{ count: Count | null }>();
  const form = useRef<HTMLFormElement>(null);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const recount = () => {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      if (!form.current) return;
      const body = new FormData(form.current);
      body.set("intent", "count");
      void counter.submit(body, { method: "post" });
    }, 300);
  };
  const count: Count | null = counter.data?.count ?? actionData?.count ?? loaderData.count;
  return (
    <AdminPage title={segment.id ? "Segment" : "New segment"} width="medium" className="space-y-6">
      <BackLink to="/admin/segments">All segments</BackLink>
      <FormNotice message={!actionData && loaderData.notice} />
      <FormAlert
        errors={
          actionData?.message
            ? [actionData.message]
            : loaderData.problem && !actionData
              ? [loaderData.problem]
              : []
        }
      />
      <p
        aria-live="polite"
        data-testid="segment-count"
        className="rounded-brand border border-black/10 bg-surface p-3 text-lg font-semibold"
      >
        {count
          ? `${plural(count.matching, "subscriber")} ${count.matching === 1 ? "matches" : "match"} · ${formatCount(count.active)} active (a campaign reaches these)`
          : "Set conditions to see how many match."}
      </p>
      <Form method="post" ref={form} onChange={recount} className="space-y-6" noValidate>
        <NameField defaultValue={segment.name} errors={errors.name} />
        <p className="text-sm">Everyone matching all the conditions below is in the segment.</p>
        <Checkboxes
          legend="On any of these lists"
          name="lists"
          options={lists.map((list) => ({ value: list.key, label: list.name }))}
          chosen={rule.lists}
        />
        <Checkboxes
          legend="With any of these statuses"
          name="statuses"
          options={SUBSCRIBER_STATUS_OPTIONS}
          chosen={rule.statuses}
        />
        <fieldset className="grid gap-4 sm:grid-cols-2">
          <legend className="mb-2 font-semibold">Joined the audience between (UTC days)</legend>
          {SIGNED_UP_BOUNDS.map(({ id, label }) => (
            <TextField
              key={id}
              id={id}
              label={label}
              type="date"
              defaultValue={rule[id] ?? ""}
              errors={errors[id]}
              optional
            />
          ))}
        </fieldset>
        <ActivityCondition rule={rule} errors={errors} />
        {fields.length > 0 ? <FieldConditions rule={rule} fields={fields} errors={errors} /> : null}
        <div className="flex flex-wrap gap-3">
          <SubmitButton name="intent" value="save" disabled={busy}>
            Save segment
          </SubmitButton>
          <button type="submit" name="intent" value="count" className={outlineButtonClass}>
            Count matching
          </button>
        </div>
      </Form>
      {segment.id ? (
        <AdminSection id="delete-heading" title="Delete">
          {actionData?.confirmDelete ? (
            <div className="mt-3">
              <ConfirmPanel
                title={`Delete “${segment.name}”?`}
                fields={{ intent: "delete" }}
                confirmLabel="Yes, delete the segment"
              >
                <p>Its subscribers stay; only the filter goes.</p>
              </ConfirmPanel>
            </div>
          ) : (
            <div className="mt-3">
              <IntentButton intent="delete" danger>
                Delete segment
              </IntentButton>
            </div>
          )}
        </AdminSection>
      ) : null}
    </AdminPage>
  );
}
