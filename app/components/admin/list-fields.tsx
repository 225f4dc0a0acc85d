import { LIST_VISIBILITY_TEXT } from "../../../shared/schemas/list";
import { FieldErrors, FieldShell, TextArea, TextField } from "../ui/form";

/** Name, description and who sees a list: the new-list form and a list's page share them. */
export function ListFields({
  values,
  errors,
}: {
  values: { name: string; description: string; visibility: string };
  errors: Partial<Record<string, string[]>>;
}) {
  return (
    <>
      <TextField
        id="name"
        label="Name"
        required
        maxLength={100}
        defaultValue={values.name}
        errors={errors.name}
      />
      <FieldShell
        id="description"
        label="Description"
        hint="Shown beside the list on sign-up and in the preference centre."
        errors={errors.description}
        optional
      >
        <TextArea
          id="description"
          name="description"
          rows={2}
          maxLength={500}
          defaultValue={values.description}
          aria-describedby="description-hint description-error"
        />
      </FieldShell>
      <fieldset aria-describedby="visibility-error">
        <legend className="font-semibold">Who sees it</legend>
        {(["public", "private"] as const).map((key) => (
          <label key={key} className="mt-2 flex items-center gap-3">
            <input
              type="radio"
              name="visibility"
              value={key}
              defaultChecked={values.visibility === key}
              className="size-4 accent-brand-strong"
            />
            {LIST_VISIBILITY_TEXT[key]}
          </label>
        ))}
        <FieldErrors id="visibility-error" errors={errors.visibility} />
      </fieldset>
    </>
  );
}
