import type { SubscriberField } from "../../../server/subscribers/fields";
import { ChoiceGroup, FieldShell, TextField, TextInput } from "../ui/form";

type Errors = Partial<Record<string, string[]>>;

/** A custom field's input, by its type (issue 16, point 2). */
function CustomField({
  field,
  value,
  errors,
}: {
  field: SubscriberField;
  value: string;
  errors?: string[];
}) {
  const id = `field-${field.key}`;
  const shared = {
    id,
    name: `field.${field.key}`,
    defaultValue: value,
    "aria-invalid": errors?.length ? true : undefined,
    "aria-describedby": `${id}-error`,
  };
  return (
    <FieldShell id={id} label={field.label} errors={errors} optional>
      {field.type === "choice" ? (
        <select
          {...shared}
          className="block w-full rounded-brand border border-black/30 bg-surface px-3 py-2"
        >
          <option value="">—</option>
          {field.choices.map((choice) => (
            <option key={choice} value={choice}>
              {choice}
            </option>
          ))}
        </select>
      ) : (
        <TextInput
          {...shared}
          type={field.type === "number" ? "number" : field.type === "date" ? "date" : "text"}
          step={field.type === "number" ? "any" : undefined}
          maxLength={field.type === "text" ? 500 : undefined}
        />
      )}
    </FieldShell>
  );
}

/** Email, name, lists and custom fields: the new-subscriber form and the profile share them. */
export function SubscriberFormFields({
  values,
  lists,
  fields,
  errors,
}: {
  values: { email: string; name: string; lists: string[]; fields: Record<string, string> };
  lists: { key: string; name: string; visibility: string; archived: boolean }[];
  fields: SubscriberField[];
  errors: Errors;
}) {
  return (
    <>
      <div className="grid gap-5 sm:grid-cols-2">
        <TextField
          id="email"
          label="Email"
          type="email"
          required
          maxLength={254}
          defaultValue={values.email}
          errors={errors.email}
        />
        <TextField
          id="name"
          label="Name"
          maxLength={100}
          defaultValue={values.name}
          errors={errors.name}
          optional
        />
      </div>
      <ChoiceGroup
        legend="Lists"
        name="lists"
        options={lists.map((list) => ({
          value: list.key,
          label: (
            <span>
              {list.name}
              {list.archived ? " (archived)" : list.visibility === "private" ? " (private)" : ""}
            </span>
          ),
        }))}
        chosen={values.lists}
        checked
        errors={errors.lists}
        className="mt-2 grid gap-2 sm:grid-cols-2"
      />
      {fields.length > 0 ? (
        <fieldset className="grid gap-5 sm:grid-cols-2">
          <legend className="mb-2 font-semibold">Custom fields</legend>
          {fields.map((field) => (
            <CustomField
              key={field.key}
              field={field}
              value={values.fields[field.key] ?? ""}
              errors={errors[`field.${field.key}`]}
            />
          ))}
        </fieldset>
      ) : null}
    </>
  );
}
