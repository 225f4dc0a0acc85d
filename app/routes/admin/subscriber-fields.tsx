import { Form, useNavigation } from "react-router";
import type { SubscriberField } from "../../../server/subscribers/fields";
import { FIELD_TYPE_LABELS, FIELD_TYPES } from "../../../shared/schemas/subscriber-fields";
import { AdminPage, AdminSection, BackLink } from "../../components/admin-header";
import { ConfirmPanel } from "../../components/ui/confirm";
import { type Column, DataTable } from "../../components/ui/data-table";
import {
  FieldErrors,
  FieldShell,
  FilterSelect,
  FormAlert,
  FormNotice,
  SubmitButton,
  TextArea,
  TextField,
} from "../../components/ui/form";
import { noindexMeta } from "../../lib/meta";
import type { Route } from "./+types/subscriber-fields";

export { action, loader } from "./subscriber-fields.server";

export const meta: Route.MetaFunction = () => noindexMeta("Custom fields | Subscribers");

function DeleteField({ field }: { field: SubscriberField }) {
  return (
    <Form method="post">
      <input type="hidden" name="intent" value="delete" />
      <input type="hidden" name="key" value={field.key} />
      <button type="submit" className="text-sm font-semibold text-danger underline">
        {`Delete ${field.label}`}
      </button>
    </Form>
  );
}

const COLUMNS: Column<SubscriberField>[] = [
  { header: "Field", className: "break-words font-medium", cell: (field) => field.label },
  { header: "Key", className: "font-mono text-xs break-all", cell: (field) => field.key },
  { header: "Type", cell: (field) => FIELD_TYPE_LABELS[field.type] },
  {
    header: "Choices",
    className: "break-words",
    cell: (field) => (field.choices.length ? field.choices.join(", ") : "—"),
  },
  { header: "", cell: (field) => <DeleteField field={field} /> },
];

export default function SubscriberFields({ loaderData, actionData }: Route.ComponentProps) {
  const busy = useNavigation().state === "submitting";
  const values = actionData && Object.keys(actionData.fields).length > 0 ? actionData.values : {};
  const errors = (actionData?.fields ?? {}) as Record<string, string[]>;
  const confirming = loaderData.fields.find((field) => field.key === actionData?.confirmDelete);
  return (
    <AdminPage title="Custom fields" width="wide" className="space-y-8">
      <BackLink to="/admin/subscribers">Subscribers</BackLink>
      <p>
        Fields of your own on every subscriber — a company, a renewal date, a region — kept on each
        profile.
      </p>
      <FormNotice message={actionData?.notice} />
      <FormAlert errors={actionData?.message ? [actionData.message] : []} />
      {confirming ? (
        <ConfirmPanel
          title={`Delete “${confirming.label}”?`}
          fields={{ intent: "delete", key: confirming.key }}
          confirmLabel="Yes, delete the field"
        >
          <p>Every subscriber's value of it is deleted too. This cannot be undone.</p>
        </ConfirmPanel>
      ) : null}
      <DataTable
        caption="The tenant's custom fields"
        columns={COLUMNS}
        rows={loaderData.fields}
        rowKey={(field) => field.key}
        empty="No custom fields yet."
      />
      <AdminSection id="new-field-heading" title="New field">
        <Form method="post" className="mt-3 space-y-5" noValidate>
          <input type="hidden" name="intent" value="create" />
          <div className="grid gap-5 sm:grid-cols-2">
            <TextField
              id="label"
              label="Name"
              required
              maxLength={60}
              defaultValue={values.label ?? ""}
              errors={errors.label}
            />
            <div>
              <FilterSelect
                name="type"
                label="Type"
                defaultValue={values.type ?? "text"}
                className="mt-1 block w-full rounded-brand border border-black/30 bg-surface px-3 py-2"
                options={FIELD_TYPES.map((type) => ({
                  value: type,
                  label: FIELD_TYPE_LABELS[type],
                }))}
              />
              <FieldErrors id="type-error" errors={errors.type} />
            </div>
          </div>
          <FieldShell
            id="choices"
            label="Choices"
            hint="For a choice field: one per line."
            errors={errors.choices}
            optional
          >
            <TextArea
              id="choices"
              name="choices"
              rows={3}
              defaultValue={values.choices ?? ""}
              aria-describedby="choices-hint choices-error"
            />
          </FieldShell>
          <SubmitButton disabled={busy}>Add field</SubmitButton>
        </Form>
      </AdminSection>
    </AdminPage>
  );
}
