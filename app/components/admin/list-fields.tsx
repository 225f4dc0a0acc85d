import { LIST_VISIBILITY_TEXT } from "../../../shared/schemas/list";
import { ChoiceGroup, FieldShell, NameField, TextArea } from "../ui/form";

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
      <NameField defaultValue={values.name} errors={errors.name} />
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
      <ChoiceGroup
        type="radio"
        legend="Who sees it"
        name="visibility"
        options={(["public", "private"] as const).map((key) => ({
          value: key,
          label: LIST_VISIBILITY_TEXT[key],
        }))}
        chosen={values.visibility}
        checked
        errors={errors.visibility}
      />
    </>
  );
}
