import { type ReactNode, useEffect, useId, useRef, useState } from "react";
import { createPortal } from "react-dom";
import { TextInput } from "./ui/form";

/**
 * A small question the editor asks in the page (a link's address, an image's alt text), in a
 * native modal <dialog>: focus moves into it and back, Escape cancels, and nothing is lost from the
 * editor meanwhile (issue 15, part 8: no browser prompt() windows).
 */
export function EditorDialog({
  title,
  label,
  hint,
  initialValue,
  inputType = "text",
  confirmLabel,
  extra,
  onConfirm,
  onCancel,
}: {
  title: string;
  label: string;
  hint?: string;
  initialValue: string;
  inputType?: "text" | "url";
  confirmLabel: string;
  /** another button beside Cancel (e.g. Remove link) */
  extra?: { label: string; onClick: () => void };
  onConfirm: (value: string) => void;
  onCancel: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [value, setValue] = useState(initialValue);
  const titleId = useId();
  const inputId = useId();
  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
    return () => element?.close();
  }, []);
  const button = (look: string, children: ReactNode, onClick: () => void, type = "button") => (
    <button
      type={type === "submit" ? "submit" : "button"}
      onClick={type === "submit" ? undefined : onClick}
      className={`rounded-brand px-4 py-2 font-semibold ${look}`}
    >
      {children}
    </button>
  );
  // In <body>, not inside the newsletter form: a form may not hold another form.
  return createPortal(
    <dialog
      ref={dialog}
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        onCancel();
      }}
      className="m-auto w-[min(32rem,calc(100vw-2rem))] rounded-brand border border-black/20 bg-surface p-0 text-ink shadow-xl backdrop:bg-black/40"
    >
      {/* Its own form: Enter confirms; the newsletter form is not submitted. */}
      <form
        method="dialog"
        className="space-y-4 p-5"
        onSubmit={(event) => {
          event.preventDefault();
          event.stopPropagation();
          onConfirm(value);
        }}
      >
        <h2 id={titleId} className="text-lg font-bold">
          {title}
        </h2>
        <div>
          <label htmlFor={inputId} className="block font-semibold">
            {label}
          </label>
          {hint ? (
            <p id={`${inputId}-hint`} className="mt-1 text-sm opacity-80">
              {hint}
            </p>
          ) : null}
          <TextInput
            id={inputId}
            type={inputType}
            value={value}
            onChange={(event) => setValue(event.currentTarget.value)}
            aria-describedby={hint ? `${inputId}-hint` : undefined}
            autoFocus
            spellCheck={inputType !== "url"}
            className="mt-1"
          />
        </div>
        <div className="flex flex-wrap gap-2">
          {button(
            "bg-brand-strong text-on-brand-strong hover:opacity-90",
            confirmLabel,
            () => undefined,
            "submit",
          )}
          {extra ? button("border-2 border-danger text-danger", extra.label, extra.onClick) : null}
          {button("border-2 border-black/30", "Cancel", onCancel)}
        </div>
      </form>
    </dialog>,
    document.body,
  );
}
