import type { SubmissionResult } from "@conform-to/react";

/**
 * What a plain HTML form reads from the server's answer to its last submission (the
 * SubmissionResult its action built with parseWithZod): each field's errors and what was typed,
 * and the ids and aria attributes that tie a control to its label, hint and errors the way
 * FieldShell lays them out. For the forms of pages that ship no JavaScript (decision 021), where a
 * form library would only render the same markup at a cost.
 */
/**
 * What a form shows of its last submission, as plain data: each field's errors ("" the form's own)
 * and the values sent. A kept part (app/lib/page-scripts.tsx) is given this, not the
 * SubmissionResult, so all of it is in the part's key (a type, not an interface, for KeptData).
 */
export type SubmittedData = {
  errors: Record<string, string[]>;
  values: Record<string, string[]>;
};

export function submittedData(
  result: SubmissionResult<string[]> | SubmittedData | null | undefined,
): SubmittedData | null {
  if (!result) return null;
  if ("values" in result && "errors" in result) return result as SubmittedData;
  const submission = result as SubmissionResult<string[]>;
  const errors: Record<string, string[]> = {};
  for (const [name, list] of Object.entries(submission.error ?? {})) {
    if (list?.length) errors[name] = [...list];
  }
  const values: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(submission.initialValue ?? {})) {
    if (Array.isArray(value)) values[name] = value.filter((each) => typeof each === "string");
    else if (typeof value === "string") values[name] = [value];
  }
  return { errors, values };
}

export function submitted(
  formId: string,
  result: SubmissionResult<string[]> | SubmittedData | null | undefined,
) {
  const data = submittedData(result);
  const errors = (name: string): string[] | undefined => {
    const list = data?.errors[name];
    return list?.length ? list : undefined;
  };
  const values = (name: string): string[] => data?.values[name] ?? [];
  return {
    /** a field's errors; "" names the form's own */
    errors,
    /** every value sent for a field (checkboxes), or none */
    values,
    /** the value sent for a field, if any */
    value: (name: string): string | undefined => values(name)[0],
    /** id of the element holding the form's own errors */
    formErrorId: `${formId}-form-error`,
    /**
     * The <form>'s own attributes: posted, described by its own errors when it has some, and
     * `noValidate`: the action's messages are the contract (SPEC's texts), not the browser's.
     */
    formProps: {
      id: formId,
      method: "post",
      noValidate: true,
      "aria-describedby": errors("") ? `${formId}-form-error` : undefined,
    } as const,
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
