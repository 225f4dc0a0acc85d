import { useEffect, useState } from "react";
import { type FetcherWithComponents, useFetcher } from "react-router";
import { outlineButtonClass } from "../ui/form";

/** What POST /admin/newsletter/assist/:id answers (app/routes/admin/newsletter-assist.ts). */
export interface AssistAnswer {
  suggestions?: string[];
  draft?: string;
  error?: string;
}

/** Puts text into a form field as if typed (React and the browser's own form both see it). */
export function fillField(id: string, text: string): void {
  const field = document.getElementById(id) as HTMLInputElement | HTMLTextAreaElement | null;
  if (!field) return;
  const setter = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(field), "value")?.set;
  setter?.call(field, text);
  field.dispatchEvent(new Event("input", { bubbles: true }));
  field.focus();
}

/** Shown once the page's scripts run: the buttons answer in the page, never as a new page. */
function useHydrated(): boolean {
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  return hydrated;
}

/** The button that asks POST /admin/newsletter/assist/:id for a draft, through `fetcher`. */
function AssistButton({
  fetcher,
  newsletterId,
  intent,
  label,
}: {
  fetcher: FetcherWithComponents<AssistAnswer>;
  newsletterId: string;
  intent: "subject" | "linkedin";
  label: string;
}) {
  return (
    <fetcher.Form method="post" action={`/admin/newsletter/assist/${newsletterId}`}>
      <button
        type="submit"
        name="intent"
        value={intent}
        className={outlineButtonClass}
        disabled={fetcher.state !== "idle"}
      >
        {label}
      </button>
    </fetcher.Form>
  );
}

/**
 * "Suggest a subject line" (issue 36, target 4; decision 047): asks the language model for a few
 * subject lines in the leader's voice; picking one puts it into the subject field, where it can be
 * edited. Nothing is saved or sent by this.
 */
export function SubjectSuggestions({
  newsletterId,
  fieldId,
}: {
  newsletterId: string;
  /** the id of the subject input the chosen line goes into */
  fieldId: string;
}) {
  const fetcher = useFetcher<AssistAnswer>();
  const hydrated = useHydrated();
  if (!hydrated) return null;
  const busy = fetcher.state !== "idle";
  const answer = busy ? undefined : fetcher.data;
  return (
    <div className="space-y-3" data-testid="subject-suggestions">
      <AssistButton
        fetcher={fetcher}
        newsletterId={newsletterId}
        intent="subject"
        label={busy ? "Asking for subject lines…" : "Suggest a subject line"}
      />
      <div aria-live="polite">
        {answer?.error ? (
          <p role="alert" className="font-medium text-danger">
            {answer.error}
          </p>
        ) : null}
        {answer?.suggestions?.length ? (
          <fieldset className="rounded-brand border border-black/15 p-3">
            <legend className="px-1 text-sm font-semibold">
              Suggestions: pick one to put it in the subject, then edit it as you like
            </legend>
            <ul className="space-y-2">
              {answer.suggestions.map((line) => (
                <li key={line}>
                  <button
                    type="button"
                    className="w-full rounded-brand border border-black/15 px-3 py-2 text-left hover:bg-brand/10"
                    onClick={() => fillField(fieldId, line)}
                  >
                    {line}
                  </button>
                </li>
              ))}
            </ul>
          </fieldset>
        ) : null}
      </div>
    </div>
  );
}

/**
 * "Draft the LinkedIn post": asks for a post in the leader's voice and puts it into the page's
 * LinkedIn text field (`fieldId`) to be edited; it never saves or publishes.
 */
export function LinkedInDraftButton({
  newsletterId,
  fieldId,
}: {
  newsletterId: string;
  fieldId: string;
}) {
  const fetcher = useFetcher<AssistAnswer>();
  const hydrated = useHydrated();
  const draft = fetcher.state === "idle" ? fetcher.data?.draft : undefined;
  useEffect(() => {
    if (draft) fillField(fieldId, draft);
  }, [draft, fieldId]);
  if (!hydrated) return null;
  const busy = fetcher.state !== "idle";
  const error = busy ? undefined : fetcher.data?.error;
  return (
    <div className="space-y-2">
      <AssistButton
        fetcher={fetcher}
        newsletterId={newsletterId}
        intent="linkedin"
        label={busy ? "Drafting the post…" : "Draft the LinkedIn post"}
      />
      <div aria-live="polite">
        {error ? (
          <p role="alert" className="font-medium text-danger">
            {error}
          </p>
        ) : draft ? (
          <p className="text-sm">Draft put in the post's text: edit it before you publish.</p>
        ) : null}
      </div>
    </div>
  );
}
