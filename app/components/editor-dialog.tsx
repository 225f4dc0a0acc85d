import { type ReactNode, useEffect, useId, useRef, useState } from "react";
import { createPortal } from "react-dom";
import { TextArea, TextInput } from "./ui/form";

export interface DialogField {
  name: string;
  label: string;
  hint?: string;
  type?: "text" | "url" | "textarea" | "select";
  /** for a select: value and label of each choice */
  choices?: readonly { value: string; label: string }[];
  required?: boolean;
  maxLength?: number;
}

export type DialogValues = Record<string, string>;

export interface DialogAction {
  label: string;
  /** danger: a button that removes something */
  look?: "danger" | "plain";
  /** may answer new values for the fields (e.g. details fetched from a page) */
  onClick: (values: DialogValues) => unknown;
}

/**
 * Questions the editor asks in the page (a link's address, an image's alt text and caption, a
 * block's fields), in a native modal <dialog>: focus moves into it and back, Escape cancels, and
 * nothing is lost from the editor meanwhile (issue 15, part 8: no browser prompt() windows).
 */
export function EditorFormDialog({
  title,
  fields,
  initialValues,
  confirmLabel,
  actions = [],
  notice,
  onConfirm,
  onCancel,
}: {
  title: string;
  fields: readonly DialogField[];
  initialValues: DialogValues;
  confirmLabel: string;
  /** other buttons beside Cancel (e.g. Remove link, Fill in from the page) */
  actions?: readonly DialogAction[];
  /** a line under the fields, read out when it changes */
  notice?: string;
  onConfirm: (values: DialogValues) => void;
  onCancel: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [values, setValues] = useState(initialValues);
  const [busy, setBusy] = useState(false);
  const titleId = useId();
  const baseId = useId();
  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
    return () => element?.close();
  }, []);
  const button = (look: string, children: ReactNode, onClick?: () => void) => (
    <button
      type={onClick ? "button" : "submit"}
      onClick={onClick}
      disabled={busy}
      className={`rounded-brand px-4 py-2 font-semibold disabled:opacity-60 ${look}`}
    >
      {children}
    </button>
  );
  async function act(action: DialogAction) {
    setBusy(true);
    try {
      const changed = await action.onClick(values);
      if (changed && typeof changed === "object") setValues(changed as DialogValues);
    } finally {
      setBusy(false);
    }
  }
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
          onConfirm(values);
        }}
      >
        <h2 id={titleId} className="text-lg font-bold">
          {title}
        </h2>
        {fields.map((field, index) => {
          const id = `${baseId}-${field.name}`;
          const common = {
            id,
            value: values[field.name] ?? "",
            required: field.required,
            maxLength: field.maxLength,
            "aria-describedby": field.hint ? `${id}-hint` : undefined,
            autoFocus: index === 0,
            className: "mt-1",
          };
          const onChange = (event: { currentTarget: { value: string } }) => {
            const value = event.currentTarget.value;
            setValues((current) => ({ ...current, [field.name]: value }));
          };
          return (
            <div key={field.name}>
              <label htmlFor={id} className="block font-semibold">
                {field.label}
              </label>
              {field.hint ? (
                <p id={`${id}-hint`} className="mt-1 text-sm opacity-80">
                  {field.hint}
                </p>
              ) : null}
              {field.type === "textarea" ? (
                <TextArea {...common} rows={3} onChange={onChange} />
              ) : field.type === "select" ? (
                <select
                  {...common}
                  onChange={onChange}
                  className="mt-1 block w-full rounded-brand border border-black/30 bg-surface px-3 py-2 text-ink"
                >
                  {field.choices?.map((choice) => (
                    <option key={choice.value} value={choice.value}>
                      {choice.label}
                    </option>
                  ))}
                </select>
              ) : (
                <TextInput
                  {...common}
                  type={field.type === "url" ? "url" : "text"}
                  spellCheck={field.type !== "url"}
                  onChange={onChange}
                />
              )}
            </div>
          );
        })}
        <p aria-live="polite" className={notice ? "text-sm font-medium" : "sr-only"}>
          {notice}
        </p>
        <div className="flex flex-wrap gap-2">
          {button("bg-brand-strong text-on-brand-strong hover:opacity-90", confirmLabel)}
          {actions.map((action) =>
            button(
              action.look === "danger"
                ? "border-2 border-danger text-danger"
                : "border-2 border-brand-strong",
              action.label,
              () => void act(action),
            ),
          )}
          {button("border-2 border-black/30", "Cancel", onCancel)}
        </div>
      </form>
    </dialog>,
    document.body,
  );
}

/** A dialog with one question (a link's address). */
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
  return (
    <EditorFormDialog
      title={title}
      fields={[{ name: "value", label, hint, type: inputType }]}
      initialValues={{ value: initialValue }}
      confirmLabel={confirmLabel}
      actions={extra ? [{ label: extra.label, look: "danger", onClick: extra.onClick }] : []}
      onConfirm={(values) => onConfirm(values.value ?? "")}
      onCancel={onCancel}
    />
  );
}
