import type { ReactNode } from "react";

/** The band above a previewed newsletter: what this page is, and what can be done from it. */
export function PreviewBar({ children }: { children: ReactNode }) {
  return (
    <section
      aria-label="Preview"
      className="sticky top-0 z-30 border-b-4 border-secondary bg-ink text-surface"
    >
      <div className="mx-auto flex max-w-6xl flex-wrap items-center gap-x-4 gap-y-2 px-4 py-3 text-sm sm:px-6">
        {children}
      </div>
    </section>
  );
}
