/** The conditions of the segment form (app/routes/admin/segment.tsx): checkboxes, activity, custom fields. */
import type { ComponentProps } from "react";
import type { SubscriberField } from "../../../server/subscribers/fields";
import {
  ACTIVITIES,
  ACTIVITY_LABELS,
  FIELD_OP_LABELS,
  FIELD_OPS,
  MAX_FIELD_CONDITIONS,
  type SegmentRule,
} from "../../../shared/schemas/segment";
import { ChoiceGroup, FieldErrors, TextField } from "../ui/form";

type Errors = Record<string, string[] | undefined>;

const selectClass = "block w-full rounded-brand border border-black/30 bg-surface px-3 py-2";

/** A group of checkboxes, the chosen ones ticked, in two columns on wider screens. */
export function Checkboxes(
  props: Pick<ComponentProps<typeof ChoiceGroup>, "legend" | "name" | "options" | "chosen">,
) {
  return <ChoiceGroup {...props} className="mt-2 grid gap-2 sm:grid-cols-2" />;
}

/** Opened or clicked (or not) in the last N days. */
export function ActivityCondition({ rule, errors }: { rule: SegmentRule; errors: Errors }) {
  return (
    <fieldset className="grid gap-4 sm:grid-cols-[2fr_1fr]">
      <legend className="mb-2 font-semibold">Opens and clicks</legend>
      <label className="block">
        <span className="text-sm font-semibold">Activity</span>
        <select
          name="activity"
          defaultValue={rule.activity?.kind ?? ""}
          className={`mt-1 ${selectClass}`}
        >
          <option value="">Any</option>
          {ACTIVITIES.map((kind) => (
            <option key={kind} value={kind}>
              {ACTIVITY_LABELS[kind]}
            </option>
          ))}
        </select>
      </label>
      <TextField
        id="days"
        label="N days"
        type="number"
        min={1}
        max={3650}
        defaultValue={rule.activity?.days ? String(rule.activity.days) : "30"}
        errors={errors.days}
      />
    </fieldset>
  );
}

/** Up to MAX_FIELD_CONDITIONS conditions on the tenant's custom fields. */
export function FieldConditions({
  rule,
  fields,
  errors,
}: {
  rule: SegmentRule;
  fields: Pick<SubscriberField, "key" | "label">[];
  errors: Errors;
}) {
  return (
    <fieldset className="space-y-3">
      <legend className="mb-2 font-semibold">Custom fields</legend>
      {Array.from({ length: MAX_FIELD_CONDITIONS }, (_, index) => {
        const condition = rule.fields[index];
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: a fixed number of condition rows
          <div key={index} className="grid gap-2 sm:grid-cols-3">
            <select
              name={`field.${index}.key`}
              aria-label={`Condition ${index + 1}: field`}
              defaultValue={condition?.key ?? ""}
              className={selectClass}
            >
              <option value="">—</option>
              {fields.map((field) => (
                <option key={field.key} value={field.key}>
                  {field.label}
                </option>
              ))}
            </select>
            <select
              name={`field.${index}.op`}
              aria-label={`Condition ${index + 1}: comparison`}
              defaultValue={condition?.op ?? "is"}
              className={selectClass}
            >
              {FIELD_OPS.map((op) => (
                <option key={op} value={op}>
                  {FIELD_OP_LABELS[op]}
                </option>
              ))}
            </select>
            <div>
              <input
                name={`field.${index}.value`}
                aria-label={`Condition ${index + 1}: value`}
                defaultValue={condition?.value ?? ""}
                maxLength={500}
                className={selectClass}
              />
              <FieldErrors
                id={`field-${index}-error`}
                errors={[
                  ...(errors[`field.${index}.op`] ?? []),
                  ...(errors[`field.${index}.value`] ?? []),
                ]}
              />
            </div>
          </div>
        );
      })}
    </fieldset>
  );
}
