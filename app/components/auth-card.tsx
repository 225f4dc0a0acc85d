import type { ReactNode } from "react";

/** The narrow card of the staff sign-in pages (sign-in, second factor, reset, invitation). */
export function AuthCard({ title, children }: { title: string; children: ReactNode }) {
  return (
    <main className="mx-auto max-w-md px-4 py-16 sm:py-24">
      <div className="rounded-brand border border-black/10 bg-surface p-6 shadow-sm sm:p-8">
        <h1 className="text-2xl font-bold">{title}</h1>
        {children}
      </div>
    </main>
  );
}

/** What just happened, for the pages above: a status, or an alert when it failed. */
export function AuthMessage({ tone, children }: { tone: "ok" | "error"; children: ReactNode }) {
  return (
    <p
      role={tone === "ok" ? "status" : "alert"}
      className={`mt-5 rounded-brand border-2 p-3 font-medium ${tone === "ok" ? "border-ok" : "border-danger text-danger"}`}
    >
      {children}
    </p>
  );
}
