import { useCallback, useEffect, useRef, useState } from "react";
import { useFetcher } from "react-router";

const AUTOSAVE_DELAY_MS = 2000;

/**
 * What the newsletter form's action answers to an autosave (app/routes/admin/newsletter-form.server.ts;
 * its clientAction turns a failed request into "error").
 */
export type AutosaveAnswer = {
  autosave: { status: "saved" | "not-draft" | "error" } | { status: "invalid"; errors: string[] };
};

/** What the autosave indicator says. */
export type AutosaveView = "idle" | "pending" | "saving" | "saved" | "invalid" | "failed";

export function AutosaveStatus({
  view,
  errors,
  show,
}: {
  view: AutosaveView;
  errors: string[];
  show: boolean;
}) {
  const text: Record<AutosaveView, string> = {
    idle: "",
    pending: "Unsaved changes",
    saving: "Saving…",
    saved: "All changes saved",
    invalid: `Not saved yet: ${errors.join(" ")}`,
    failed: "Autosave failed",
  };
  if (!show) return null;
  return (
    <p
      aria-live="polite"
      data-testid="autosave-status"
      className={`text-sm ${view === "failed" || view === "invalid" ? "font-semibold text-danger" : "opacity-80"}`}
    >
      {text[view]}
    </p>
  );
}

/** Saves the draft 2 s after the last change, through a fetcher, so the page stays as it is. */
export function useAutosave({
  formRef,
  actionUrl,
  enabled,
}: {
  formRef: React.RefObject<HTMLFormElement | null>;
  actionUrl: string;
  enabled: boolean;
}) {
  const fetcher = useFetcher<Partial<AutosaveAnswer>>({ key: `autosave:${actionUrl}` });
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const [pending, setPending] = useState(false);

  const cancel = useCallback(() => {
    if (timer.current) clearTimeout(timer.current);
    timer.current = null;
    setPending(false);
  }, []);

  const { submit } = fetcher;
  const schedule = useCallback(() => {
    if (!enabled) return;
    if (timer.current) clearTimeout(timer.current);
    setPending(true);
    timer.current = setTimeout(() => {
      timer.current = null;
      setPending(false);
      const form = formRef.current;
      if (!form) return;
      const formData = new FormData(form);
      formData.set("intent", "autosave");
      // An autosave changes nothing the page shows: no loader runs again after it.
      void submit(formData, { method: "post", action: actionUrl, defaultShouldRevalidate: false });
    }, AUTOSAVE_DELAY_MS);
  }, [enabled, formRef, actionUrl, submit]);

  useEffect(() => cancel, [cancel]);

  const outcome = fetcher.data?.autosave ?? null;
  let view: AutosaveView = "idle";
  if (fetcher.state !== "idle") view = "saving";
  else if (pending) view = "pending";
  else if (outcome?.status === "saved") view = "saved";
  else if (outcome?.status === "invalid") view = "invalid";
  else if (outcome) view = "failed";
  const errors = outcome && "errors" in outcome ? outcome.errors : [];
  return { schedule, cancel, view, errors };
}
