import type { FieldMetadata } from "@conform-to/react";
import { Link } from "react-router";
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

/** The form's sticky footer: the autosave state, Cancel and the save button. */
export function FormFooter({
  autosave,
  showAutosave,
  saveLabel,
}: {
  autosave: Pick<ReturnType<typeof useAutosave>, "view" | "errors">;
  /** a newsletter not yet created has nothing to autosave */
  showAutosave: boolean;
  saveLabel: string;
}) {
  return (
    <div className="flex flex-col gap-3 rounded-b-brand border-t border-black/10 bg-surface/95 px-5 py-3 backdrop-blur sm:sticky sm:bottom-0 sm:flex-row sm:items-center sm:px-6">
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
