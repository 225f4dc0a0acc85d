import { type FieldMetadata, getInputProps, getTextareaProps } from "@conform-to/react";
import type { ComponentProps, ReactNode } from "react";
import { MAX_EMAIL_LENGTH } from "../../../shared/schemas/email";

interface FieldShellProps {
  id: string;
  label: ReactNode;
  hint?: string;
  errors?: string[];
  optional?: boolean;
  children: ReactNode;
}

/** Label, control, hint and the field's errors, wired together for screen readers. */
export function FieldShell({ id, label, hint, errors, optional, children }: FieldShellProps) {
  return (
    <div>
      <label htmlFor={id} className="block font-semibold">
        {label}
        {optional ? <span className="ml-1 font-normal opacity-80">(optional)</span> : null}
      </label>
      {hint ? (
        <p id={`${id}-hint`} className="mt-1 text-sm opacity-80">
          {hint}
        </p>
      ) : null}
      <div className="mt-1">{children}</div>
      <FieldErrors id={`${id}-error`} errors={errors} />
    </div>
  );
}

export function FieldErrors({ id, errors }: { id: string; errors?: string[] }) {
  if (!errors?.length) return <div id={id} />;
  return (
    <ul id={id} className="mt-1 text-sm font-medium text-danger">
      {errors.map((error) => (
        <li key={error}>{error}</li>
      ))}
    </ul>
  );
}

const controlClass =
  "block w-full rounded-brand border border-black/30 bg-surface px-3 py-2 text-base text-ink shadow-sm focus:border-brand-strong aria-[invalid=true]:border-danger aria-[invalid=true]:ring-1 aria-[invalid=true]:ring-danger";

export function TextInput(props: ComponentProps<"input">) {
  return <input {...props} className={`${controlClass} ${props.className ?? ""}`} />;
}

/** A subscriber's email address: required, as long as the server takes, filled in by browsers. */
export function EmailInput(props: Omit<ComponentProps<"input">, "type">) {
  return (
    <TextInput type="email" required maxLength={MAX_EMAIL_LENGTH} autoComplete="email" {...props} />
  );
}

export function TextArea(props: ComponentProps<"textarea">) {
  return <textarea {...props} className={`${controlClass} ${props.className ?? ""}`} />;
}

export function SubmitButton({
  children,
  pending,
  ...props
}: ComponentProps<"button"> & { pending?: boolean }) {
  return (
    <button
      type="submit"
      aria-disabled={pending || undefined}
      {...props}
      className="inline-block rounded-brand bg-brand-strong px-5 py-3 font-semibold text-on-brand-strong hover:opacity-90 disabled:opacity-60"
    >
      {children}
    </button>
  );
}

/**
 * The off-screen honeypot field of public forms (DESIGN.md §7.8): people never fill it. Give each
 * one its own `id` when a page holds several forms.
 */
export function Honeypot({ name = "website", id = `hp-${name}` }: { name?: string; id?: string }) {
  return (
    <div aria-hidden="true" className="absolute left-[-10000px] top-auto h-px w-px overflow-hidden">
      <label htmlFor={id}>Leave this field empty</label>
      <input id={id} type="text" name={name} tabIndex={-1} autoComplete="off" />
    </div>
  );
}

/** A form's success message ("Changes saved."): nothing when there is none. */
export function FormNotice({ message }: { message: string | null | undefined | false }) {
  if (!message) return null;
  return (
    <p role="status" className="rounded-brand border-2 border-ok p-3 font-medium">
      {message}
    </p>
  );
}

/** The form's own errors (not one field's), announced as they appear; nothing when there are none. */
export function FormAlert({
  id,
  errors,
  className = "",
}: {
  id?: string;
  errors: readonly string[] | undefined;
  className?: string;
}) {
  if (!errors?.length) return null;
  return (
    <div
      role="alert"
      id={id}
      className={`rounded-brand border-2 border-danger p-3 font-medium text-danger ${className}`}
    >
      {errors.join(" ")}
    </div>
  );
}

/** A text-like input bound to a Conform field, inside its FieldShell (label, hint, errors). */
export function InputField({
  field,
  label,
  hint,
  optional,
  type = "text",
  ...props
}: {
  field: FieldMetadata<string | number | undefined>;
  label: string;
  hint?: string;
  optional?: boolean;
  type?: "text" | "email" | "password" | "number" | "url" | "tel";
} & Omit<ComponentProps<"input">, "type" | "id" | "name" | "defaultValue" | "form">) {
  return (
    <FieldShell id={field.id} label={label} hint={hint} errors={field.errors} optional={optional}>
      <TextInput {...getInputProps(field, { type })} {...props} />
    </FieldShell>
  );
}

/** A labelled <select> of a filter form (a GET form: the choice lives in the URL). */
export function FilterSelect({
  name,
  label,
  options,
  defaultValue,
  className = "mt-1 rounded-brand border border-black/30 bg-surface px-3 py-2",
}: {
  name: string;
  label: string;
  options: readonly { value: string; label: string }[];
  defaultValue: string;
  className?: string;
}) {
  return (
    <div>
      <label htmlFor={`filter-${name}`} className="block text-sm font-semibold">
        {label}
      </label>
      <select id={`filter-${name}`} name={name} defaultValue={defaultValue} className={className}>
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </div>
  );
}

/** The text box of a filter form, named q: like the other filters, the search lives in the URL. */
export function FilterSearch({
  id = "filter-q",
  label,
  defaultValue,
  maxLength,
  className,
}: {
  id?: string;
  label: string;
  defaultValue: string;
  maxLength?: number;
  className?: string;
}) {
  return (
    <div className={className}>
      <label htmlFor={id} className="block text-sm font-semibold">
        {label}
      </label>
      <input
        id={id}
        name="q"
        type="search"
        maxLength={maxLength}
        defaultValue={defaultValue}
        className={plainFieldClass}
      />
    </div>
  );
}

/**
 * A text-like input inside its FieldShell, for forms whose errors come keyed by field name (the
 * ones not built with Conform): the input is wired to its hint and errors.
 */
export function TextField({
  id,
  name = id,
  label,
  hint,
  errors,
  optional,
  ...props
}: {
  id: string;
  name?: string;
  label: string;
  hint?: string;
  errors?: string[];
  optional?: boolean;
} & Omit<ComponentProps<"input">, "id" | "name">) {
  return (
    <FieldShell id={id} label={label} hint={hint} errors={errors} optional={optional}>
      <TextInput
        id={id}
        name={name}
        aria-invalid={errors?.length ? true : undefined}
        aria-describedby={hint ? `${id}-hint ${id}-error` : `${id}-error`}
        {...props}
      />
    </FieldShell>
  );
}

/** The name staff give what they make (a list, a segment): required, at most 100 characters. */
export function NameField({ defaultValue, errors }: { defaultValue: string; errors?: string[] }) {
  return (
    <TextField
      id="name"
      label="Name"
      required
      maxLength={100}
      defaultValue={defaultValue}
      errors={errors}
    />
  );
}

/** A titled panel of an admin page: its intro, then the last refusal (announced), then its forms. */
export function SettingsPanel({
  id,
  title,
  intro,
  message,
  danger = false,
  children,
}: {
  id: string;
  title: string;
  intro: ReactNode;
  message: string | null;
  danger?: boolean;
  children: ReactNode;
}) {
  return (
    <section
      aria-labelledby={id}
      className={`mt-10 rounded-brand border p-5 ${danger ? "border-danger/40" : "border-black/10 bg-surface"}`}
    >
      <h2 id={id} className="text-xl font-bold">
        {title}
      </h2>
      {intro}
      {message ? (
        <p role="alert" className="mt-3 font-medium text-danger">
          {message}
        </p>
      ) : null}
      {children}
    </section>
  );
}

/** A form's destructive button (remove, delete). */
export const dangerSubmitClass = "rounded-brand bg-danger px-4 py-2 font-semibold text-white";
/** An outlined button beside a primary one. */
export const outlineButtonClass =
  "rounded-brand border-2 border-brand-strong px-5 py-2.5 font-semibold text-brand-strong";
/** A link that looks like an outlined button. */
export const outlineLinkClass = `${outlineButtonClass} no-underline`;
/** A smaller outlined button or link, for a list's toolbar and filters (the subscribers pages). */
export const compactOutlineClass =
  "rounded-brand border-2 border-brand-strong px-4 py-2 font-semibold text-brand-strong no-underline hover:bg-brand/10";
/** A bare input or select in a filter bar or a form without FieldShell. */
export const plainFieldClass =
  "mt-1 w-full rounded-brand border border-black/30 bg-surface px-3 py-2";

/** A textarea bound to a Conform field, inside its FieldShell (label, hint, errors). */
export function TextAreaField({
  field,
  label,
  hint,
  rows,
}: {
  field: FieldMetadata<string | undefined>;
  label: string;
  hint?: string;
  rows: number;
}) {
  return (
    <FieldShell id={field.id} label={label} hint={hint} errors={field.errors}>
      <TextArea {...getTextareaProps(field)} rows={rows} />
    </FieldShell>
  );
}

/** One yes-or-no box with its label beside it, drawn like the boxes of a ChoiceGroup. */
export function Checkbox({
  label,
  className = "flex items-center gap-3",
  ...props
}: { label: ReactNode; className?: string } & Omit<ComponentProps<"input">, "type" | "className">) {
  return (
    <label className={className}>
      <input type="checkbox" {...props} className="size-4 shrink-0 accent-brand-strong" />
      {label}
    </label>
  );
}

/**
 * A fieldset of checkboxes or radio buttons that share one name: its legend, a hint under it, one
 * labelled box an option (an option's own hint goes under its label), and, when the action checks
 * the group (`checked`), its errors at `${name}-error`, which the fieldset points at.
 */
export function ChoiceGroup({
  type = "checkbox",
  legend,
  name,
  options,
  chosen,
  hint,
  checked = false,
  errors,
  required,
  className = "mt-2 space-y-2",
  fieldsetClassName,
}: {
  type?: "checkbox" | "radio";
  legend: string;
  name: string;
  options: readonly { value: string; label: ReactNode; hint?: string }[];
  /** the ticked value (a radio group) or values */
  chosen: string | readonly string[];
  hint?: string;
  checked?: boolean;
  errors?: string[];
  required?: boolean;
  /** the box around the options: a stack by default */
  className?: string;
  fieldsetClassName?: string;
}) {
  const hintId = `${name}-hint`;
  const errorId = `${name}-error`;
  const describedBy = [hint ? hintId : null, checked ? errorId : null].filter(Boolean).join(" ");
  const isChosen = (value: string) =>
    typeof chosen === "string" ? chosen === value : chosen.includes(value);
  return (
    <fieldset aria-describedby={describedBy || undefined} className={fieldsetClassName}>
      <legend className="font-semibold">{legend}</legend>
      {hint ? (
        <p id={hintId} className="text-sm opacity-80">
          {hint}
        </p>
      ) : null}
      <div className={className}>
        {options.map((option) => (
          <label
            key={option.value}
            className={`flex gap-3 ${option.hint ? "items-start" : "items-center"}`}
          >
            <input
              type={type}
              name={name}
              value={option.value}
              defaultChecked={isChosen(option.value)}
              required={required}
              className={`size-4 shrink-0 accent-brand-strong ${option.hint ? "mt-1" : ""}`}
            />
            {option.hint ? (
              <span>
                <span className="font-medium">{option.label}</span>
                <span className="block text-sm opacity-80">{option.hint}</span>
              </span>
            ) : (
              option.label
            )}
          </label>
        ))}
      </div>
      {checked ? <FieldErrors id={errorId} errors={errors} /> : null}
    </fieldset>
  );
}
