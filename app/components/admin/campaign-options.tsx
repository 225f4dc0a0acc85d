import { FieldErrors } from "../ui/form";

/** Who gets a campaign, what is tracked and when it goes (app/routes/admin/newsletter-send.tsx). */
export function CampaignOptions({
  lists,
  chosenLists,
  trackOpens,
  trackClicks,
  mode,
  scheduledAt,
  errors,
}: {
  lists: { key: string; name: string }[];
  chosenLists: string[];
  trackOpens: boolean;
  trackClicks: boolean;
  mode: string;
  scheduledAt: string;
  errors: Partial<Record<string, string[]>>;
}) {
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
        {[
          ["now", "Send now"],
          ["schedule", "Schedule for"],
          ["draft", "Save as a draft campaign"],
        ].map(([key, label]) => (
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
                aria-label="Send time"
                defaultValue={scheduledAt}
                className="rounded-brand border border-black/30 px-2 py-1"
              />
            ) : null}
          </label>
        ))}
        <FieldErrors id="scheduledAt-error" errors={errors.scheduledAt} />
      </fieldset>
    </>
  );
}
