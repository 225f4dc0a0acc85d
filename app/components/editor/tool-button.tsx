import type { ReactNode } from "react";

/** A button of the editor's toolbar: it keeps the editor's selection, which it acts on. */
export function ToolButton({
  label,
  title,
  pressed,
  disabled,
  onClick,
  wide,
  children,
}: {
  label: string;
  title?: string;
  pressed?: boolean;
  disabled?: boolean;
  onClick: () => void;
  wide?: boolean;
  children: ReactNode;
}) {
  return (
    <button
      type="button"
      aria-label={label}
      title={title ?? label}
      aria-pressed={pressed === undefined ? undefined : pressed}
      disabled={disabled}
      onClick={onClick}
      // Keep the editor's selection: the button acts on it.
      onMouseDown={(event) => event.preventDefault()}
      className={`grid h-9 place-items-center rounded-brand text-sm font-semibold ${
        wide ? "px-3" : "w-9"
      } ${
        pressed
          ? "bg-brand-strong text-on-brand-strong"
          : "text-ink hover:bg-black/10 disabled:hover:bg-transparent"
      } disabled:cursor-not-allowed disabled:opacity-40`}
    >
      {children}
    </button>
  );
}

export function Separator() {
  return <span aria-hidden="true" className="mx-0.5 h-6 w-px bg-black/15" />;
}

export function Icon({ path }: { path: string }) {
  return (
    <svg
      viewBox="0 0 24 24"
      aria-hidden="true"
      className="size-5"
      fill="none"
      stroke="currentColor"
      strokeWidth="2"
      strokeLinecap="round"
      strokeLinejoin="round"
    >
      <path d={path} />
    </svg>
  );
}
