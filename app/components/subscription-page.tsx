import type { ReactNode } from "react";
import { type MetaDescriptor, useRouteLoaderData } from "react-router";
import { Link, withFormEnhancements } from "../lib/page-scripts";
import type { RootData } from "../root";

interface MetaArgs {
  matches: ReadonlyArray<{ id: string; loaderData?: unknown } | undefined>;
}

/** What each kind of subscription page is for: its meta description. */
const DESCRIPTIONS = {
  unsubscribe: "Stop receiving all newsletters sent to your email address.",
  preferences: "Choose which newsletters you receive, or unsubscribe from all of them.",
  confirm: "Confirm that you want to receive our newsletters.",
} as const;

/**
 * Title and description of a subscription page. These pages hold a visitor's address or a signed
 * link, so they are kept out of search engines and carry no canonical or sharing tags.
 */
export function subscriptionMeta(
  { matches }: MetaArgs,
  title: string,
  kind: keyof typeof DESCRIPTIONS,
): MetaDescriptor[] {
  const root = matches.find((match) => match?.id === "root")?.loaderData as RootData | undefined;
  const siteName = root?.tenant.companyName ?? "Herald";
  return [
    { title: `${title} | ${siteName}` },
    { name: "description", content: DESCRIPTIONS[kind] },
    { name: "robots", content: "noindex" },
  ];
}

/** Personal pages: never kept by a shared cache or the browser's back-forward cache of others. */
export function subscriptionHeaders() {
  return { "Cache-Control": "private, no-store" };
}

/**
 * The subscription pages' forms are plain HTML with the form enhancements. With
 * subscriptionHeaders, what their route modules export alike:
 * `export { headers, handle } from "../../components/subscription-page"`.
 */
export { subscriptionHeaders as headers, withFormEnhancements as handle };

/** The tenant's company name, for "You will no longer hear from …" and the footer link. */
export function useCompanyName(): string {
  const root = useRouteLoaderData("root") as RootData | undefined;
  return root?.tenant.companyName ?? "Herald";
}

/** The frame of every subscription page: one h1, a lead, the page's panels and its footer links. */
export function SubscriptionPage({
  title,
  lead,
  children,
  footer,
}: {
  title: string;
  lead?: ReactNode;
  children: ReactNode;
  footer: "privacy-and-site" | "privacy-and-terms";
}) {
  const companyName = useCompanyName();
  return (
    <main>
      <div className="bg-brand/10 py-10 sm:py-12">
        <div className="mx-auto max-w-2xl px-4 sm:px-6">
          <p className="text-sm font-semibold uppercase tracking-wider text-brand-strong">
            {companyName} newsletters
          </p>
          <h1 className="mt-2 text-3xl font-bold leading-tight sm:text-4xl">{title}</h1>
          {lead ? <div className="mt-3 text-lg leading-relaxed">{lead}</div> : null}
        </div>
      </div>
      <div className="mx-auto max-w-2xl px-4 pt-8 sm:px-6 sm:pt-10">
        <div className="space-y-6">{children}</div>
        <nav
          aria-label="Subscription"
          className="mt-10 flex flex-wrap gap-x-6 gap-y-2 border-t border-black/10 pt-5 text-sm"
        >
          <Link to="/privacy">Privacy Policy</Link>
          {footer === "privacy-and-terms" ? (
            <Link to="/terms">Terms of Service</Link>
          ) : (
            <Link to="/">{companyName}</Link>
          )}
        </nav>
      </div>
    </main>
  );
}

/** A white card on the page's tint; `labelledBy` names it for screen readers. */
export function Panel({
  children,
  labelledBy,
  className = "",
}: {
  children: ReactNode;
  labelledBy?: string;
  className?: string;
}) {
  return (
    <section
      aria-labelledby={labelledBy}
      className={`rounded-brand border border-black/10 bg-surface p-5 shadow-sm sm:p-7 ${className}`}
    >
      {children}
    </section>
  );
}

/**
 * A message about what just happened. Errors are alerts; everything else is a polite status.
 * `testId` lets tests find a message without depending on its wording.
 */
export function Notice({
  tone,
  title,
  children,
  testId,
}: {
  tone: "ok" | "error" | "info";
  title?: string;
  children?: ReactNode;
  testId?: string;
}) {
  const look =
    tone === "ok"
      ? "border-ok text-ink"
      : tone === "error"
        ? "border-danger text-danger"
        : "border-brand-strong text-ink";
  return (
    <div
      role={tone === "error" ? "alert" : "status"}
      data-testid={testId}
      className={`rounded-brand border-2 bg-surface p-4 ${look}`}
    >
      {title ? <p className={`font-semibold ${tone === "ok" ? "text-ok" : ""}`}>{title}</p> : null}
      {children ? <div className={title ? "mt-1" : "font-medium"}>{children}</div> : null}
    </div>
  );
}

/** A form's own errors (not a field's), which the form's aria-describedby names by `id`. */
export function FormErrorNotice({
  id,
  errors,
}: {
  id: string;
  errors: readonly string[] | undefined;
}) {
  if (!errors?.length) return null;
  return (
    <div id={id}>
      <Notice tone="error">{errors.join(" ")}</Notice>
    </div>
  );
}

export const primaryButton =
  "inline-flex min-h-11 items-center justify-center rounded-brand bg-brand-strong px-5 py-2.5 font-semibold text-on-brand-strong hover:opacity-90 disabled:cursor-not-allowed disabled:opacity-55 aria-disabled:opacity-70";
export const secondaryButton =
  "inline-flex min-h-11 items-center justify-center rounded-brand border-2 border-brand-strong px-5 py-2 font-semibold text-brand-strong no-underline hover:bg-brand/10 disabled:cursor-not-allowed disabled:opacity-55";
export const dangerButton =
  "inline-flex min-h-11 items-center justify-center rounded-brand border-2 border-danger px-5 py-2 font-semibold text-danger hover:bg-danger/10 disabled:cursor-not-allowed disabled:opacity-55";
