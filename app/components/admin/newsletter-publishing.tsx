import type { MouseEvent } from "react";
import { Form } from "react-router";
import { formatDate } from "../../../shared/format";
import { Link } from "../../lib/page-scripts";
import { Checkbox } from "../ui/form";

/**
 * The newsletter editor's side panel and its delete confirmation (app/routes/admin/newsletter-form.tsx):
 * status; Publish or Publish and send (issue 35: on to the send review); once published, View,
 * Send as email and Unpublish; and Delete, which asks first — in the browser with a dialog,
 * without JavaScript on a page of its own (`?confirmDelete=1`).
 */

/** A quiet link of the editor's side panel (Preview, Social pack). */
const sidePanelLinkClass =
  "block rounded-brand border-2 border-black/30 px-4 py-2 text-center font-semibold text-ink no-underline hover:bg-black/5";

export function ConfirmDelete({ title, actionUrl }: { title: string; actionUrl: string }) {
  return (
    <section
      aria-labelledby="confirm-delete-heading"
      className="mb-6 rounded-brand border-2 border-danger bg-surface p-5"
    >
      <h2 id="confirm-delete-heading" className="text-xl font-bold">
        Delete this newsletter?
      </h2>
      <p className="mt-2">
        “{title}” and its comments will be removed for good. This cannot be undone.
      </p>
      <div className="mt-4 flex flex-wrap gap-3">
        <Form method="post" action={actionUrl}>
          <button
            type="submit"
            name="intent"
            value="delete"
            className="rounded-brand bg-danger px-4 py-2 font-semibold text-white"
          >
            Yes, delete
          </button>
        </Form>
        <Link
          to={actionUrl}
          className="rounded-brand border-2 border-black/30 px-4 py-2 font-semibold text-ink no-underline"
        >
          Keep it
        </Link>
      </div>
    </section>
  );
}

/** A draft's ways out: publish, or publish and go on to the send form (issue 35). */
const PUBLISH_BUTTONS = [
  {
    intent: "publish",
    label: "Publish",
    look: "bg-ok text-white hover:opacity-90",
    describedBy: undefined,
  },
  {
    intent: "publish-send",
    label: "Publish and send",
    look: "border-2 border-ok text-ok hover:bg-ok/10",
    describedBy: "publish-send-hint",
  },
] as const;

export interface ScheduleView {
  timeZone: string;
  /** the scheduled time (UTC), null when not scheduled */
  at: string | null;
  atText: string | null;
  /** the datetime-local field's value */
  local: string;
  send: boolean;
  /** the list a scheduled send goes to */
  list: string;
}

export function PublishingPanel({
  newsletter,
  actionUrl,
  busyIntent,
  onDelete,
  schedule,
  scheduleError,
  sharing,
  share,
}: {
  newsletter: { id: string; slug: string; status: string } | null;
  actionUrl: string;
  /** the intent being submitted, if any: its button says so */
  busyIntent: FormDataEntryValue | null;
  onDelete(event: MouseEvent): void;
  schedule: ScheduleView;
  scheduleError: string | null;
  /** share links may be live */
  sharing: boolean;
  /** the share link just made */
  share: { url: string; expiresAt: string } | null;
}) {
  const published = newsletter?.status === "published";
  const scheduled = !published && schedule.at !== null;
  return (
    <aside aria-label="Publishing" className="lg:sticky lg:top-6 lg:self-start">
      {newsletter ? (
        <div className="space-y-4 rounded-brand border border-black/10 bg-surface p-5 shadow-sm">
          <div className="flex items-center justify-between gap-3">
            <h2 className="text-lg font-bold">Status</h2>
            <span
              className={`rounded-full px-3 py-1 text-sm font-semibold ${
                published ? "bg-ok text-white" : "bg-black/10 text-ink"
              }`}
              data-testid="newsletter-status"
            >
              {published ? "Published" : scheduled ? "Scheduled" : "Draft"}
            </span>
          </div>
          <p className="text-sm opacity-80">
            {published
              ? "Readers can see this newsletter. Changes go live when you press Update Newsletter."
              : "Only staff can see this draft. Changes are saved automatically."}
          </p>
          {scheduled ? (
            <div className="rounded-brand border-2 border-secondary p-3 text-sm">
              <p className="font-semibold" data-testid="scheduled-for">
                {`Publishes ${schedule.atText}${schedule.send ? `, then is sent by email to the “${schedule.list}” list` : ""}.`}
              </p>
              <Form method="post" action={actionUrl} className="mt-2">
                <button
                  type="submit"
                  name="intent"
                  value="unschedule"
                  className="font-semibold text-danger underline"
                >
                  Cancel schedule
                </button>
              </Form>
            </div>
          ) : null}
          <Link
            to={`/admin/newsletter/preview/${newsletter.id}`}
            target="_blank"
            rel="noopener"
            className={sidePanelLinkClass}
          >
            Preview
          </Link>
          <Link to={`/admin/newsletter/social/${newsletter.id}`} className={sidePanelLinkClass}>
            Social pack
          </Link>
          {published ? (
            <div className="flex flex-col gap-2">
              <Link
                to={`/newsletter/${newsletter.slug}`}
                className="rounded-brand border-2 border-brand-strong px-4 py-2 text-center font-semibold text-brand-strong no-underline hover:bg-brand/10"
              >
                View
              </Link>
              <Link
                to={`/admin/newsletter/send/${newsletter.id}`}
                className="rounded-brand bg-brand-strong px-4 py-2 text-center font-semibold text-white no-underline hover:opacity-90"
              >
                Send as email
              </Link>
              <Form method="post" action={actionUrl}>
                <IntentSubmit
                  intent="unpublish"
                  busyIntent={busyIntent}
                  busyLabel="Unpublishing…"
                  className="w-full rounded-brand border-2 border-black/30 px-4 py-2 font-semibold hover:bg-black/5"
                >
                  Unpublish
                </IntentSubmit>
              </Form>
            </div>
          ) : (
            <PublishButtons busyIntent={busyIntent} />
          )}
          {published ? null : (
            <SchedulePicker schedule={schedule} error={scheduleError} busyIntent={busyIntent} />
          )}
          <SharePreview actionUrl={actionUrl} sharing={sharing} share={share} />
          <div className="border-t border-black/10 pt-4">
            <Link
              to={`${actionUrl}?confirmDelete=1`}
              onClick={onDelete}
              className="block rounded-brand px-4 py-2 text-center font-semibold text-danger no-underline hover:bg-danger/10"
            >
              Delete
            </Link>
          </div>
        </div>
      ) : (
        <div className="rounded-brand border border-black/10 bg-black/[0.03] p-5 text-sm leading-relaxed">
          <h2 className="text-lg font-bold">How it works</h2>
          <p className="mt-2">
            Create Newsletter saves it as a draft that only staff can see. From there, changes are
            saved automatically, and Publish puts it on the newsletter page.
          </p>
          <div className="mt-4">
            <PublishButtons busyIntent={busyIntent} />
          </div>
        </div>
      )}
    </aside>
  );
}

/** Publish now, or publish and go on to the send form (issue 35): they submit the editor's form. */
function PublishButtons({ busyIntent }: { busyIntent: FormDataEntryValue | null }) {
  return (
    <div className="flex flex-col gap-2">
      {PUBLISH_BUTTONS.map((button) => (
        <button
          key={button.intent}
          type="submit"
          form="newsletter-form"
          name="intent"
          value={button.intent}
          aria-describedby={button.describedBy}
          className={`w-full rounded-brand px-4 py-2 font-semibold ${button.look}`}
        >
          {busyIntent === button.intent ? "Publishing…" : button.label}
        </button>
      ))}
      <p id="publish-send-hint" className="text-sm opacity-80">
        Publishes, then opens the email’s review: nothing is sent until you confirm there.
      </p>
    </div>
  );
}

/** Publish later: a time in the tenant's zone, and "send as email" as part of the same action. */
function SchedulePicker({
  schedule,
  error,
  busyIntent,
}: {
  schedule: ScheduleView;
  error: string | null;
  busyIntent: FormDataEntryValue | null;
}) {
  return (
    <fieldset className="min-w-0 space-y-2 border-t border-black/10 pt-4">
      <legend className="sr-only">Schedule</legend>
      <label htmlFor="publishAt" className="block font-semibold">
        Publish at{" "}
        <span className="font-normal opacity-80">({schedule.timeZone.replaceAll("_", " ")})</span>
      </label>
      <input
        id="publishAt"
        name="publishAt"
        form="newsletter-form"
        type="datetime-local"
        defaultValue={schedule.local}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? "publishAt-error" : undefined}
        className="block w-full rounded-brand border border-black/30 bg-surface px-3 py-2"
      />
      {error ? (
        <p id="publishAt-error" className="text-sm font-medium text-danger">
          {error}
        </p>
      ) : null}
      <Checkbox
        name="sendEmail"
        form="newsletter-form"
        defaultChecked={schedule.send}
        className="flex items-start gap-2 text-sm"
        label={
          <span>Also send it by email to the “{schedule.list}” list when it is published</span>
        }
      />
      <IntentSubmit
        intent="schedule"
        busyIntent={busyIntent}
        busyLabel="Scheduling…"
        form="newsletter-form"
        className="w-full rounded-brand border-2 border-ok px-4 py-2 font-semibold text-ok hover:bg-ok/10"
      >
        {schedule.at ? "Reschedule" : "Schedule"}
      </IntentSubmit>
    </fieldset>
  );
}

/** A signed link for reviewers without an account: 7 days, revocable. */
function SharePreview({
  actionUrl,
  sharing,
  share,
}: {
  actionUrl: string;
  sharing: boolean;
  share: { url: string; expiresAt: string } | null;
}) {
  return (
    <div className="space-y-2 border-t border-black/10 pt-4 text-sm">
      <h3 className="font-semibold">Share a preview</h3>
      <p className="opacity-80">
        Anyone with the link can read this newsletter, as it is now, for 7 days.
      </p>
      {share ? (
        <div className="space-y-1">
          <label htmlFor="share-url" className="block font-semibold">
            Share link
          </label>
          <input
            id="share-url"
            readOnly
            value={share.url}
            onFocus={(event) => event.currentTarget.select()}
            className="block w-full rounded-brand border border-black/30 bg-black/5 px-2 py-1 font-mono text-xs"
          />
          <p>Works until {formatDate(share.expiresAt)}.</p>
        </div>
      ) : null}
      <Form method="post" action={actionUrl} className="flex flex-wrap gap-x-4 gap-y-1">
        <button type="submit" name="intent" value="share" className="font-semibold underline">
          {share ? "Create another link" : "Create a share link"}
        </button>
        {sharing || share ? (
          <button
            type="submit"
            name="intent"
            value="revoke-share"
            className="font-semibold text-danger underline"
          >
            Revoke share links
          </button>
        ) : null}
      </Form>
    </div>
  );
}

/** A button posting `intent` that says `busyLabel` while that intent is on its way. */
function IntentSubmit({
  intent,
  busyIntent,
  busyLabel,
  form,
  className,
  children,
}: {
  intent: string;
  busyIntent: FormDataEntryValue | null;
  busyLabel: string;
  /** the id of the form it posts, when it stands outside it */
  form?: string;
  className: string;
  children: string;
}) {
  return (
    <button type="submit" form={form} name="intent" value={intent} className={className}>
      {busyIntent === intent ? busyLabel : children}
    </button>
  );
}
