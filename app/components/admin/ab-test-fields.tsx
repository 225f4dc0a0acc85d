import { plural } from "../../../shared/format";
import {
  AB_EXTRA_SUBJECTS,
  AB_TEST_LIMITS,
  AB_WINNER_BY,
  variantLetter,
} from "../../../shared/schemas/campaign";
import { Checkbox, FieldErrors, FieldShell, plainFieldClass, TextField } from "../ui/form";

/** The A/B part's values as the form shows them (the saved test, or what was sent). */
export interface AbTestValues {
  abTest: boolean;
  /** subjects B–E */
  others: string[];
  abShare: string;
  abWinnerBy: string;
  abWaitHours: string;
}

export const NO_AB_TEST: AbTestValues = {
  abTest: false,
  others: [],
  abShare: "20",
  abWinnerBy: "opens",
  abWaitHours: "4",
};

/** What a refused form sent, else `saved`: the A/B part filled in again. */
export function abTestValuesOf(sent: Record<string, unknown>, saved = NO_AB_TEST): AbTestValues {
  if (!("subject" in sent)) return saved;
  const text = (name: string, fallback: string) =>
    typeof sent[name] === "string" ? (sent[name] as string) : fallback;
  return {
    abTest: sent.abTest === true,
    others: AB_EXTRA_SUBJECTS.map((name) => text(name, "")),
    abShare: text("abShare", saved.abShare),
    abWinnerBy: text("abWinnerBy", saved.abWinnerBy),
    abWaitHours: text("abWaitHours", saved.abWaitHours),
  };
}

const waitLabel = (hours: number) =>
  hours < 24 ? plural(hours, "hour") : plural(hours / 24, "day");

/**
 * "A/B test subject lines" (issue 35, target 5): the subject above is A; B (and up to E) go with
 * it to a test share of the audience, split evenly; after the wait, the subject with the better
 * rate of opens or clicks goes to the rest. Closed until staff open it or a test is set.
 */
export function AbTestFields({
  values,
  errors,
}: {
  values: AbTestValues;
  errors: Partial<Record<string, string[]>>;
}) {
  const { subjects, sharePercent } = AB_TEST_LIMITS;
  const hasErrors = Object.keys(errors).some((key) => key.startsWith("ab"));
  return (
    <details open={values.abTest || hasErrors} className="rounded-brand border border-black/15 p-4">
      <summary className="cursor-pointer font-semibold">A/B test subject lines (optional)</summary>
      <fieldset className="mt-4 space-y-5">
        <legend className="sr-only">A/B test subject lines</legend>
        <Checkbox
          name="abTest"
          label="Test subject lines on part of the audience first"
          defaultChecked={values.abTest}
        />
        <p className="text-sm opacity-80">
          The subject above is subject A. The test share gets the subjects in equal parts, picked at
          random; after the wait, the subject with the better rate of opens or clicks goes to
          everyone else (a tie goes to A). Each recipient gets one message.
        </p>
        {AB_EXTRA_SUBJECTS.slice(0, subjects.max - 1).map((name, index) => (
          <TextField
            key={name}
            id={name}
            label={`Subject ${variantLetter(index + 1)}`}
            optional={index > 0}
            errors={errors[name]}
            maxLength={300}
            defaultValue={values.others[index] ?? ""}
          />
        ))}
        <div className="grid gap-5 sm:grid-cols-2">
          <FieldShell
            id="abShare"
            label="Test share (% of the audience)"
            hint={`${sharePercent.min}–${sharePercent.max} %, split evenly between the subjects`}
            errors={errors.abShare}
          >
            <input
              id="abShare"
              name="abShare"
              type="number"
              min={sharePercent.min}
              max={sharePercent.max}
              step={5}
              defaultValue={values.abShare}
              aria-describedby="abShare-hint abShare-error"
              aria-invalid={errors.abShare?.length ? true : undefined}
              className={plainFieldClass}
            />
          </FieldShell>
          <FieldShell id="abWaitHours" label="Pick the winner after" errors={errors.abWaitHours}>
            <select
              id="abWaitHours"
              name="abWaitHours"
              defaultValue={values.abWaitHours}
              aria-describedby="abWaitHours-error"
              className={plainFieldClass}
            >
              {AB_TEST_LIMITS.waitHours.map((hours) => (
                <option key={hours} value={hours}>
                  {waitLabel(hours)}
                </option>
              ))}
            </select>
          </FieldShell>
        </div>
        <fieldset aria-describedby="abWinnerBy-error">
          <legend className="font-semibold">The winner has the most</legend>
          <div className="mt-2 flex flex-wrap gap-6">
            {Object.entries(AB_WINNER_BY).map(([value, label]) => (
              <label key={value} className="flex items-center gap-3">
                <input
                  type="radio"
                  name="abWinnerBy"
                  value={value}
                  defaultChecked={values.abWinnerBy === value}
                  className="size-4 accent-brand-strong"
                />
                {label}
              </label>
            ))}
          </div>
          <FieldErrors id="abWinnerBy-error" errors={errors.abWinnerBy} />
        </fieldset>
      </fieldset>
    </details>
  );
}
