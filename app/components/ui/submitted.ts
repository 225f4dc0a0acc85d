import type { SubmissionResult } from "@conform-to/react";

/**
 * What a plain HTML form reads from the server's answer to its last submission (the
 * SubmissionResult its action built with parseWithZod): each field's errors and what was typed,
 * and the ids and aria attributes that tie a control to its label, hint and errors the way
 * FieldShell lays them out. For the forms of pages that ship no JavaScript (decision 021), where a
 * form library would only render the same markup at a cost.
 */
export function submitted(formId: string, result: SubmissionResult<string[]> | null | undefined) {
  const errors = (name: string): string[] | undefined => {
    const list = result?.error?.[name];
    return list?.length ? list : undefined;
  };
  const values = (name: string): string[] => {
    const value = result?.initialValue?.[name];
    if (Array.isArray(value)) return value.filter((each) => typeof each === "string");
    return typeof value === "string" ? [value] : [];
  };
  return {
    /** a field's errors; "" names the form's own */
    errors,
    /** every value sent for a field (checkboxes), or none */
    values,
    /** the value sent for a field, if any */
    value: (name: string): string | undefined => values(name)[0],
    /** id of the element holding the form's own errors */
    formErrorId: `${formId}-form-error`,
    /** id, name and aria wiring of a control; `hint` when its FieldShell shows one */
    field(name: string, options: { hint?: boolean } = {}) {
      const id = `${formId}-${name}`;
      const invalid = Boolean(errors(name));
      const describedBy = [invalid ? `${id}-error` : "", options.hint ? `${id}-hint` : ""]
        .filter(Boolean)
        .join(" ");
      return {
        id,
        name,
        "aria-invalid": invalid || undefined,
        "aria-describedby": describedBy || undefined,
      };
    },
  };
}
