import type { FieldMetadata } from "@conform-to/react";
import { useEffect, useRef } from "react";
import { Link } from "../../lib/page-scripts";
import { NewsletterEditor } from "../newsletter-editor";
import { FieldErrors } from "../ui/form";
import { AutosaveStatus, type useAutosave } from "./newsletter-autosave";

/** Parts of the newsletter form (app/routes/admin/newsletter-form.tsx). */

/** The rich-text Content field: label, hint, editor and errors, wired for screen readers. */
export function ContentField({
  field,
  onChange,
}: {
  field: FieldMetadata<string>;
  onChange(): void;
}) {
  return (
    <div>
      <label id={`${field.id}-label`} htmlFor={field.id} className="block font-semibold">
        Content
      </label>
      <p id={`${field.id}-hint`} className="mt-1 text-sm opacity-80">
        Headings, lists, quotes, links and images are kept; scripts and other unsafe HTML are
        removed when you save.
      </p>
      <div className="mt-2">
        <NewsletterEditor
          id={field.id}
          labelId={`${field.id}-label`}
          name={field.name}
          defaultValue={String(field.initialValue ?? "")}
          invalid={!field.valid}
          describedBy={`${field.id}-hint ${field.id}-error`}
          uploadUrl="/admin/uploads"
          onChange={onChange}
        />
      </div>
      <FieldErrors id={`${field.id}-error`} errors={field.errors} />
    </div>
  );
}

/**
 * The form's save bar: the autosave state, Cancel and the save button. It sits at the top of the
 * form and, on wider screens, stays at the top of the window as the writer scrolls; the editor's
 * toolbar stops just below it (the --save-bar-height it sets), so neither ever covers the other.
 */
export function SaveBar({
  autosave,
  showAutosave,
  saveLabel,
}: {
  autosave: Pick<ReturnType<typeof useAutosave>, "view" | "errors">;
  /** a newsletter not yet created has nothing to autosave */
  showAutosave: boolean;
  saveLabel: string;
}) {
  const barRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const bar = barRef.current;
    const form = bar?.closest("form");
    if (!bar || !form) return;
    const measure = () => {
      const sticky = getComputedStyle(bar).position === "sticky";
      form.style.setProperty("--save-bar-height", sticky ? `${bar.offsetHeight}px` : "0px");
    };
    const observer = new ResizeObserver(measure);
    observer.observe(bar);
    window.addEventListener("resize", measure);
    return () => {
      observer.disconnect();
      window.removeEventListener("resize", measure);
    };
  }, []);
  return (
    <div
      ref={barRef}
      data-testid="save-bar"
      className="z-20 flex flex-col gap-3 rounded-t-brand border-b border-black/10 bg-surface px-5 py-3 shadow-[0_1px_3px_rgb(0_0_0/0.06)] sm:sticky sm:top-0 sm:flex-row sm:items-center sm:px-6"
    >
      <AutosaveStatus view={autosave.view} errors={autosave.errors} show={showAutosave} />
      <div className="flex gap-3 sm:ml-auto">
        <Link
          to="/admin/dashboard"
          className="whitespace-nowrap rounded-brand border-2 border-black/30 px-4 py-2 text-center font-semibold text-ink no-underline hover:bg-black/5"
        >
          Cancel
        </Link>
        <button
          type="submit"
          name="intent"
          value="save"
          className="flex-1 whitespace-nowrap rounded-brand bg-brand-strong px-5 py-2 font-semibold text-on-brand-strong hover:opacity-90 sm:flex-none"
        >
          {saveLabel}
        </button>
      </div>
    </div>
  );
}
