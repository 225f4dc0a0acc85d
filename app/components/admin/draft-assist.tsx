import { type ReactNode, useEffect, useState } from "react";
import { useFetcher } from "react-router";
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

/** Where a draft goes: the newsletter it is drafted from and the id of the field it fills. */
interface AssistProps {
  newsletterId: string;
  fieldId: string;
}

/** The two drafts asked for, and their button's words before and while it is asked. */
const ASSIST_BUTTONS = {
  subject: { idle: "Suggest a subject line", busy: "Asking for subject lines…" },
  linkedin: { idle: "Draft the LinkedIn post", busy: "Drafting the post…" },
} as const;

/** One request for a draft of `intent`: its fetcher, whether it is under way, its answer. */
function useAssist(intent: keyof typeof ASSIST_BUTTONS, newsletterId: string) {
  const fetcher = useFetcher<AssistAnswer>();
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  const busy = fetcher.state !== "idle";
  return { intent, newsletterId, fetcher, hydrated, busy, answer: busy ? undefined : fetcher.data };
}

/**
 * The button that asks POST /admin/newsletter/assist/:id for a draft, then the place its answer is
 * said: the error, or what `children` make of the answer. Nothing until the page's scripts run:
 * the button answers in the page, never as a new page.
 */
function Assist({
  request: { intent, newsletterId, fetcher, hydrated, busy, answer },
  className,
  testId,
  children,
}: {
  request: ReturnType<typeof useAssist>;
  className: string;
  testId?: string;
  children: ReactNode;
}) {
  if (!hydrated) return null;
  return (
    <div className={className} data-testid={testId}>
      <fetcher.Form method="post" action={`/admin/newsletter/assist/${newsletterId}`}>
        <button
          type="submit"
          name="intent"
          value={intent}
          className={outlineButtonClass}
          disabled={busy}
        >
          {ASSIST_BUTTONS[intent][busy ? "busy" : "idle"]}
        </button>
      </fetcher.Form>
      <div aria-live="polite">
        {answer?.error ? (
          <p role="alert" className="font-medium text-danger">
            {answer.error}
          </p>
        ) : null}
        {children}
      </div>
    </div>
  );
}

/**
 * "Suggest a subject line" (issue 36, target 4; decision 047): asks the language model for a few
 * subject lines in the leader's voice; picking one puts it into the subject field (`fieldId`),
 * where it can be edited. Nothing is saved or sent by this.
 */
export function SubjectSuggestions({ newsletterId, fieldId }: AssistProps) {
  const request = useAssist("subject", newsletterId);
  const suggestions = request.answer?.suggestions;
  return (
    <Assist request={request} className="space-y-3" testId="subject-suggestions">
      {suggestions?.length ? (
        <fieldset className="rounded-brand border border-black/15 p-3">
          <legend className="px-1 text-sm font-semibold">
            Suggestions: pick one to put it in the subject, then edit it as you like
          </legend>
          <ul className="space-y-2">
            {suggestions.map((line) => (
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
    </Assist>
  );
}

/**
 * "Draft the LinkedIn post": asks for a post in the leader's voice and puts it into the page's
 * LinkedIn text field (`fieldId`) to be edited; it never saves or publishes.
 */
export function LinkedInDraftButton({ newsletterId, fieldId }: AssistProps) {
  const request = useAssist("linkedin", newsletterId);
  const draft = request.answer?.draft;
  useEffect(() => {
    if (draft) fillField(fieldId, draft);
  }, [draft, fieldId]);
  return (
    <Assist request={request} className="space-y-2">
      {draft ? (
        <p className="text-sm">Draft put in the post's text: edit it before you publish.</p>
      ) : null}
    </Assist>
  );
}
