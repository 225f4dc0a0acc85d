import { useTimeZone } from "../../lib/time-zone";
import { FieldErrors, TextField } from "../ui/form";

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
  lists: { key: string; name: string }[];
  chosenLists: string[];
  /** the tenant's segments (issue 16, point 4): with the lists, the audience */
  segments?: { id: number; name: string }[];
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
      <fieldset aria-describedby="lists-error">
        <legend className="font-semibold">Lists</legend>
        <div className="mt-2 space-y-2">
          {lists.map((list) => (
            <label key={list.key} className="flex items-center gap-3">
              <input
                type="checkbox"
                name="lists"
                value={list.key}
                defaultChecked={chosenLists.includes(list.key)}
                className="size-4 accent-brand-strong"
              />
              {list.name}
            </label>
          ))}
        </div>
        <FieldErrors id="lists-error" errors={errors.lists} />
      </fieldset>
      {segments.length > 0 ? (
        <fieldset aria-describedby="segments-hint">
          <legend className="font-semibold">Segments</legend>
          <p id="segments-hint" className="text-sm opacity-80">
            Active subscribers on a ticked list or in a ticked segment get it, each once.
          </p>
          <div className="mt-2 space-y-2">
            {segments.map((segment) => (
              <label key={segment.id} className="flex items-center gap-3">
                <input
                  type="checkbox"
                  name="segments"
                  value={segment.id}
                  defaultChecked={chosenSegments.includes(String(segment.id))}
                  className="size-4 accent-brand-strong"
                />
                {segment.name}
              </label>
            ))}
          </div>
          <FieldErrors id="segments-error" errors={errors.segments} />
        </fieldset>
      ) : null}
      <fieldset>
        <legend className="font-semibold">Tracking</legend>
        <label className="mt-2 flex items-center gap-3">
          <input
            type="checkbox"
            name="trackOpens"
            defaultChecked={trackOpens}
            className="size-4 accent-brand-strong"
          />
          Track opens
        </label>
        <label className="mt-2 flex items-center gap-3">
          <input
            type="checkbox"
            name="trackClicks"
            defaultChecked={trackClicks}
            className="size-4 accent-brand-strong"
          />
          Track clicks
        </label>
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
