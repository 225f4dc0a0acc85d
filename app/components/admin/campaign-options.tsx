import { plural } from "../../../shared/format";
import { useTimeZone } from "../../lib/time-zone";
import { Checkbox, ChoiceGroup, FieldErrors, TextField } from "../ui/form";

const SENDER_ADDRESS_FIELDS = [
  { id: "senderEmail", label: "Sender email" },
  {
    id: "replyTo",
    label: "Reply-to email",
    hint: "Where replies go; leave blank to send them to the sender.",
  },
] as const;

type FieldErrorsOf = Partial<Record<string, string[]>>;

/** Subject, sender and reply-to: what the send form and the edit form ask first. */
export function CampaignMessageFields({
  values,
  errors,
}: {
  values: { subject: string; senderName: string; senderEmail: string; replyTo: string };
  errors: FieldErrorsOf;
}) {
  return (
    <>
      <TextField
        id="subject"
        label="Subject"
        errors={errors.subject}
        required
        maxLength={300}
        defaultValue={values.subject}
      />
      <div className="grid gap-6 sm:grid-cols-2">
        <TextField
          id="senderName"
          label="Sender name"
          errors={errors.senderName}
          maxLength={200}
          defaultValue={values.senderName}
        />
        {SENDER_ADDRESS_FIELDS.map((field) => (
          <TextField
            key={field.id}
            {...field}
            errors={errors[field.id]}
            type="email"
            maxLength={254}
            defaultValue={values[field.id]}
          />
        ))}
      </div>
    </>
  );
}

/** A choice's name and, beside it, how many active subscribers it holds (issue 35). */
function ChoiceWithSize({ name, active }: { name: string; active: number }) {
  return (
    <span>
      {name}{" "}
      <span className="text-sm opacity-80" data-testid="audience-size">
        {`· ${plural(active, "active subscriber")}`}
      </span>
    </span>
  );
}

const WHEN = [
  ["now", "Send now"],
  ["schedule", "Schedule for"],
  ["draft", "Save as a draft campaign"],
] as const;

/** Who gets a campaign, what is tracked and when it goes (app/routes/admin/newsletter-send.tsx). */
export function CampaignOptions({
  lists,
  chosenLists,
  segments = [],
  chosenSegments = [],
  trackOpens,
  trackClicks,
  mode,
  scheduledAt,
  errors,
  modes = ["now", "schedule", "draft"],
}: {
  /** each with its active subscribers (campaignChoices) */
  lists: { key: string; name: string; active: number }[];
  chosenLists: string[];
  /** the tenant's segments (issue 16, point 4): with the lists, the audience */
  segments?: { id: number; name: string; active: number }[];
  chosenSegments?: string[];
  trackOpens: boolean;
  trackClicks: boolean;
  mode: string;
  scheduledAt: string;
  errors: FieldErrorsOf;
  /** the choices under "When"; a campaign being edited cannot be sent from its form */
  modes?: readonly string[];
}) {
  const zone = useTimeZone().replaceAll("_", " ");
  return (
    <>
      <ChoiceGroup
        legend="Lists"
        name="lists"
        options={lists.map((list) => ({
          value: list.key,
          label: <ChoiceWithSize name={list.name} active={list.active} />,
        }))}
        chosen={chosenLists}
        checked
        errors={errors.lists}
      />
      {segments.length > 0 ? (
        <ChoiceGroup
          legend="Segments"
          name="segments"
          hint="Active subscribers on a ticked list or in a ticked segment get it, each once."
          options={segments.map((segment) => ({
            value: String(segment.id),
            label: <ChoiceWithSize name={segment.name} active={segment.active} />,
          }))}
          chosen={chosenSegments}
          checked
          errors={errors.segments}
        />
      ) : null}
      <fieldset>
        <legend className="font-semibold">Tracking</legend>
        <div className="mt-2 space-y-2">
          <Checkbox name="trackOpens" label="Track opens" defaultChecked={trackOpens} />
          <Checkbox name="trackClicks" label="Track clicks" defaultChecked={trackClicks} />
        </div>
      </fieldset>
      <fieldset aria-describedby="scheduledAt-error">
        <legend className="font-semibold">When</legend>
        {WHEN.filter(([key]) => modes.includes(key)).map(([key, label]) => (
          <label key={key} className="mt-2 flex flex-wrap items-center gap-3">
            <input
              type="radio"
              name="mode"
              value={key}
              defaultChecked={mode === key}
              className="size-4 accent-brand-strong"
            />
            {label}
            {key === "schedule" ? (
              <input
                type="datetime-local"
                name="scheduledAt"
                aria-label={`Send time (${zone})`}
                defaultValue={scheduledAt}
                className="rounded-brand border border-black/30 px-2 py-1"
              />
            ) : null}
            {key === "schedule" ? <span className="text-sm">{zone} time</span> : null}
          </label>
        ))}
        <FieldErrors
          id="scheduledAt-error"
          errors={[...(errors.mode ?? []), ...(errors.scheduledAt ?? [])]}
        />
      </fieldset>
    </>
  );
}
