import type { ReactNode } from "react";
import type { SUBSCRIBER_STATUSES } from "../../shared/schemas/subscribers";
import { Link } from "../lib/page-scripts";
import { dangerButton, Notice, Panel, primaryButton, secondaryButton } from "./subscription-page";

export interface CentreList {
  key: string;
  name: string;
  description: string;
}

/**
 * What the preference centre shows. `step` comes from the URL, so every state works without
 * JavaScript and survives a reload (the page ships none of the app's: it is plain forms and the
 * form enhancements' inline script, decision 044):
 * - edit: the checkboxes (the subscriber's lists, or the selection being edited);
 * - review: the 'Confirm Your Changes' panel for `selection`;
 * - sent: 'Verification Email Sent';
 * - updated: the emailed link has been confirmed and the lists are the new ones.
 */
export interface CentreData {
  email: string;
  status: (typeof SUBSCRIBER_STATUSES)[number];
  lists: CentreList[];
  /** keys of the lists the subscriber is on now */
  current: string[];
  /** keys checked in the form */
  selection: string[];
  step: "edit" | "review" | "sent" | "updated";
}

interface PreferenceCentreProps {
  centre: CentreData;
  /** the page the centre lives on: /preferences/{token} */
  path: string;
  /** why the last 'Send Verification Email' failed */
  sendError?: string | null;
}

const STATUS_LABEL: Record<CentreData["status"], string> = {
  active: "Active",
  unsubscribed: "Unsubscribed",
  unconfirmed: "Awaiting confirmation",
  // suppressed (issue 12): signing up again, with the emailed confirmation, resumes mail
  bounced: "Paused: mail bounced",
  complained: "Paused: marked as spam",
};

function hrefOf(path: string, extra: [string, string][] = []) {
  const query = new URLSearchParams(extra).toString();
  return query ? `${path}?${query}` : path;
}

/**
 * The checkboxes, 'Save Changes' and 'Unsubscribe from All', then the review or sent panel. Save is
 * a plain submit button; the form enhancements disable it as 'No Changes to Save' while the boxes
 * are ticked as the subscriber's lists are now (`data-saved` on each box says how they are).
 */
export function PreferenceCentre({ centre, path, sendError }: PreferenceCentreProps) {
  const locked = centre.step === "review" || centre.step === "sent";

  return (
    <Panel labelledBy="lists-heading">
      <div className="flex flex-wrap items-baseline justify-between gap-x-4 gap-y-1">
        <h2 id="lists-heading" className="text-xl font-bold sm:text-2xl">
          Your newsletters
        </h2>
        <p className="text-sm">
          <span className="sr-only">Status: </span>
          <span
            className={`rounded-full px-2.5 py-0.5 text-xs font-semibold uppercase tracking-wide ${
              centre.status === "active" ? "bg-ok/15 text-ok" : "bg-black/10"
            }`}
          >
            {STATUS_LABEL[centre.status]}
          </span>
        </p>
      </div>
      <p className="mt-1 break-words">
        Subscriptions of <strong>{centre.email}</strong>
      </p>

      {centre.step === "updated" ? (
        <div className="mt-5">
          <Notice
            tone="ok"
            title="Your preferences have been updated."
            testId="preferences-updated"
          >
            We have emailed you a confirmation of your new subscriptions.
          </Notice>
        </div>
      ) : null}

      <form method="get" action={path} className="mt-5">
        <fieldset disabled={locked} className="min-w-0">
          <legend className="font-semibold">Choose the newsletters you want to receive</legend>
          <ul className="mt-3 space-y-3">
            {centre.lists.map((list) => {
              const id = `list-${list.key}`;
              return (
                <li key={list.key}>
                  <label
                    htmlFor={id}
                    className="flex cursor-pointer items-start gap-3 rounded-brand border border-black/15 p-3 hover:border-brand-strong has-[:checked]:border-brand-strong has-[:checked]:bg-brand/5 has-[:disabled]:cursor-default sm:p-4"
                  >
                    <input
                      id={id}
                      type="checkbox"
                      name="list"
                      value={list.key}
                      defaultChecked={centre.selection.includes(list.key)}
                      data-saved={centre.current.includes(list.key)}
                      // The list's name names the box; its description describes it.
                      aria-labelledby={`${id}-name`}
                      aria-describedby={list.description ? `${id}-description` : undefined}
                      className="mt-1 size-5 shrink-0 accent-[var(--brand-primary-strong)]"
                    />
                    <span className="min-w-0">
                      <span id={`${id}-name`} className="block font-semibold">
                        {list.name}
                      </span>
                      {list.description ? (
                        <span id={`${id}-description`} className="mt-0.5 block text-sm opacity-85">
                          {list.description}
                        </span>
                      ) : null}
                    </span>
                  </label>
                </li>
              );
            })}
          </ul>
        </fieldset>
        {locked ? null : (
          <div className="mt-6 flex flex-col gap-3 sm:flex-row sm:flex-wrap sm:items-center">
            <button
              type="submit"
              name="intent"
              value="review"
              data-unchanged-label="No Changes to Save"
              className={primaryButton}
            >
              Save Changes
            </button>
            <button
              type="submit"
              name="intent"
              value="unsubscribe-all"
              disabled={centre.current.length === 0}
              className={dangerButton}
            >
              Unsubscribe from All
            </button>
          </div>
        )}
      </form>

      {centre.step === "review" ? (
        <ReviewPanel centre={centre} path={path} sendError={sendError} />
      ) : null}
      {centre.step === "sent" ? <SentPanel centre={centre} path={path} /> : null}
    </Panel>
  );
}

/**
 * A step of the centre that has just appeared (review, or sent): keyboard and screen-reader focus
 * moves to its heading (`autofocus`, which needs no script).
 */
function StepPanel({
  id,
  title,
  tone,
  children,
}: {
  id: string;
  title: string;
  tone: "review" | "done";
  children: ReactNode;
}) {
  const done = tone === "done";
  return (
    <section
      role={done ? "status" : undefined}
      aria-labelledby={id}
      className={`mt-6 rounded-brand border-2 p-4 sm:p-6 ${done ? "border-ok bg-surface" : "border-brand-strong bg-brand/5"}`}
    >
      <h3
        id={id}
        tabIndex={-1}
        // biome-ignore lint/a11y/noAutofocus: the step the visitor just asked for takes focus, as it did with React
        autoFocus
        className={`text-lg font-bold outline-none ${done ? "text-ok" : ""}`}
      >
        {title}
      </h3>
      {children}
    </section>
  );
}

function ReviewPanel({ centre, path, sendError }: PreferenceCentreProps) {
  const nameOf = (key: string) => centre.lists.find((list) => list.key === key)?.name ?? key;
  const joining = centre.selection.filter((key) => !centre.current.includes(key)).map(nameOf);
  const leaving = centre.current.filter((key) => !centre.selection.includes(key)).map(nameOf);
  const editHref = hrefOf(path, [
    ["intent", "edit"],
    ...centre.selection.map((key): [string, string] => ["list", key]),
  ]);

  if (joining.length === 0 && leaving.length === 0) {
    return (
      <div className="mt-6 space-y-4">
        <Notice tone="info" title="No Changes to Save">
          Your selection is the same as your current subscriptions.
        </Notice>
        <Link to={hrefOf(path)} className={secondaryButton}>
          Back to my newsletters
        </Link>
      </div>
    );
  }

  return (
    <StepPanel id="review-heading" title="Confirm Your Changes" tone="review">
      <div className="mt-3 grid gap-4 sm:grid-cols-2">
        <ChangeList title="You will join" names={joining} empty="No new newsletters" />
        <ChangeList title="You will leave" names={leaving} empty="Nothing" />
      </div>
      {centre.selection.length === 0 ? (
        <p className="mt-4 font-medium">
          You will no longer receive any of our newsletters at {centre.email}.
        </p>
      ) : null}
      <p className="mt-4">
        To make sure it is you, we will email a verification link to{" "}
        <strong className="break-words">{centre.email}</strong>. Your changes apply when you open
        it.
      </p>
      {sendError ? (
        <div className="mt-4">
          <Notice tone="error">{sendError}</Notice>
        </div>
      ) : null}
      <form method="post" className="mt-5 flex flex-col gap-3 sm:flex-row sm:items-center">
        <input type="hidden" name="intent" value="send" />
        {centre.selection.map((key) => (
          <input key={key} type="hidden" name="list" value={key} />
        ))}
        <button type="submit" className={primaryButton} data-busy-label="Sending…">
          Send Verification Email
        </button>
        <Link to={editHref} className={secondaryButton}>
          Cancel
        </Link>
      </form>
    </StepPanel>
  );
}

function ChangeList({ title, names, empty }: { title: string; names: string[]; empty: string }) {
  return (
    <div>
      <p className="font-semibold">{title}</p>
      {names.length > 0 ? (
        <ul className="mt-1 list-disc space-y-1 pl-5">
          {names.map((name) => (
            <li key={name}>{name}</li>
          ))}
        </ul>
      ) : (
        <p className="mt-1 opacity-80">{empty}</p>
      )}
    </div>
  );
}

function SentPanel({ centre, path }: PreferenceCentreProps) {
  return (
    <StepPanel id="sent-heading" title="Verification Email Sent" tone="done">
      <p className="mt-2">
        We sent a link to <strong className="break-words">{centre.email}</strong>. Open it to apply
        your changes: the link is valid for 24 hours and works once. Until then your subscriptions
        stay as they are.
      </p>
      <p className="mt-4">
        <Link to={hrefOf(path)} className="font-semibold">
          Back to my newsletters
        </Link>
      </p>
    </StepPanel>
  );
}
