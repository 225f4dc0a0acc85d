import { z } from "../zod";
import { SUBSCRIBER_STATUSES } from "./subscribers";
import { storableText } from "./text";

/*
 * A segment: a saved filter of a tenant's audience (issue 16, point 4). Every condition given must
 * hold. server/subscribers/segments.ts turns the rule into SQL; the form below into the rule.
 */

export const FIELD_OPS = ["is", "is-not", "contains", "greater", "less", "set", "unset"] as const;
export type FieldOp = (typeof FIELD_OPS)[number];

export const FIELD_OP_LABELS: Record<FieldOp, string> = {
  is: "is",
  "is-not": "is not",
  contains: "contains",
  greater: "is greater than",
  less: "is less than",
  set: "has a value",
  unset: "has no value",
};

export const ACTIVITIES = ["opened", "clicked", "never-opened", "never-clicked"] as const;
export type Activity = (typeof ACTIVITIES)[number];

export const ACTIVITY_LABELS: Record<Activity, string> = {
  opened: "Opened a campaign in the last N days",
  clicked: "Clicked in a campaign in the last N days",
  "never-opened": "Never opened a campaign",
  "never-clicked": "Never clicked in a campaign",
};

const day = storableText()
  .regex(/^\d{4}-\d{2}-\d{2}$/, "Enter a date (YYYY-MM-DD)")
  .refine((text) => !Number.isNaN(Date.parse(`${text}T00:00:00Z`)), "Enter a date (YYYY-MM-DD)");

export const segmentRuleSchema = z.object({
  /** on any of these lists (keys) */
  lists: z.array(storableText().max(100)).max(50).default([]),
  /** in any of these statuses */
  statuses: z.array(z.enum(SUBSCRIBER_STATUSES)).max(5).default([]),
  fields: z
    .array(
      z.object({
        key: storableText().max(60),
        op: z.enum(FIELD_OPS),
        value: storableText().max(500).default(""),
      }),
    )
    .max(10)
    .default([]),
  signedUpAfter: day.optional(),
  signedUpBefore: day.optional(),
  activity: z
    .object({
      kind: z.enum(ACTIVITIES),
      /** for opened and clicked: the last N days */
      days: z.number().int().min(1).max(3650).optional(),
    })
    .optional(),
});

export type SegmentRule = z.infer<typeof segmentRuleSchema>;

export const MAX_FIELD_CONDITIONS = 3;

/** The segment form's fields as a rule, or the messages by field. */
export function readSegmentForm(
  formData: FormData,
): { ok: true; name: string; rule: SegmentRule } | { ok: false; errors: Record<string, string[]> } {
  const errors: Record<string, string[]> = {};
  const text = (name: string) => String(formData.get(name) ?? "").trim();
  const name = text("name");
  if (!name) errors.name = ["A segment needs a name"];
  else if (name.length > 100) errors.name = ["Name must be at most 100 characters"];
  const fields = [];
  for (let index = 0; index < MAX_FIELD_CONDITIONS; index++) {
    const key = text(`field.${index}.key`);
    if (!key) continue;
    const op = text(`field.${index}.op`);
    const value = text(`field.${index}.value`);
    if (!(FIELD_OPS as readonly string[]).includes(op)) {
      errors[`field.${index}.op`] = ["Choose a condition"];
      continue;
    }
    if (op !== "set" && op !== "unset" && !value) {
      errors[`field.${index}.value`] = ["Enter a value to compare with"];
      continue;
    }
    fields.push({ key, op, value });
  }
  const activityKind = text("activity");
  const days = text("days");
  const activity = activityKind
    ? {
        kind: activityKind,
        ...(activityKind === "opened" || activityKind === "clicked"
          ? { days: days ? Number(days) : Number.NaN }
          : {}),
      }
    : undefined;
  const parsed = segmentRuleSchema.safeParse({
    lists: formData.getAll("lists").map(String),
    statuses: formData.getAll("statuses").map(String),
    fields,
    signedUpAfter: text("signedUpAfter") || undefined,
    signedUpBefore: text("signedUpBefore") || undefined,
    activity,
  });
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const path = issue.path[0] === "activity" ? "days" : String(issue.path[0] ?? "form");
      const message = path === "days" ? "Enter a number of days from 1 to 3,650" : issue.message;
      errors[path] = [...(errors[path] ?? []), message];
    }
  }
  if (Object.keys(errors).length > 0 || !parsed.success) return { ok: false, errors };
  return { ok: true, name, rule: parsed.data };
}
