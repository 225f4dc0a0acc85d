import { z } from "../zod";
import { storableText } from "./text";

/** The kinds of custom subscriber field a tenant may define (issue 16, point 2). */
export const FIELD_TYPES = ["text", "number", "date", "choice"] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export const FIELD_TYPE_LABELS: Record<FieldType, string> = {
  text: "Text",
  number: "Number",
  date: "Date",
  choice: "Choice",
};

export const MAX_FIELD_VALUE_LENGTH = 500;

export const newFieldSchema = z
  .object({
    label: storableText({ error: "A field needs a name" })
      .trim()
      .min(1, "A field needs a name")
      .max(60, "Name must be at most 60 characters"),
    type: z.enum(FIELD_TYPES, { error: "Choose a type" }),
    /** one choice per line, for a choice field */
    choices: storableText()
      .max(5_000, "Too many choices")
      .optional()
      .transform((text) =>
        [
          ...new Set(
            (text ?? "")
              .split(/\r?\n/)
              .map((line) => line.trim())
              .filter(Boolean),
          ),
        ].slice(0, 100),
      ),
  })
  .superRefine((value, issues) => {
    if (value.type === "choice" && value.choices.length < 2) {
      issues.addIssue({
        code: "custom",
        path: ["choices"],
        message: "A choice field needs at least two choices, one per line",
      });
    }
    if (value.choices.some((choice) => choice.length > 100)) {
      issues.addIssue({
        code: "custom",
        path: ["choices"],
        message: "Each choice must be at most 100 characters",
      });
    }
  });

export type NewField = z.infer<typeof newFieldSchema>;

/** A submitted subscriber form (new or profile), read the same way by both actions. */
export function readSubscriberForm(formData: FormData) {
  const fields: Record<string, string> = {};
  for (const [name, value] of formData) {
    if (name.startsWith("field.") && typeof value === "string") fields[name.slice(6)] = value;
  }
  return {
    email: String(formData.get("email") ?? ""),
    name: String(formData.get("name") ?? ""),
    lists: formData.getAll("lists").map(String),
    fields,
  };
}
