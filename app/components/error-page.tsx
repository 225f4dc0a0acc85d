import type { ReactNode } from "react";
import { isRouteErrorResponse } from "react-router";
import { Link } from "../lib/page-scripts";

/** The page a route shows when it fails or finds nothing: what happened and the way back. */
export function ErrorPage({
  eyebrow,
  title,
  text,
  back,
  documentTitle = true,
}: {
  /** a small line above the title (the status, say) */
  eyebrow?: string;
  title: string;
  text: string;
  /** the link back: a plain <a> or a <Link> */
  back: ReactNode;
  /** sets the document's <title> to the page's title */
  documentTitle?: boolean;
}) {
  return (
    <main className="mx-auto max-w-2xl px-6 py-24 text-center">
      {documentTitle ? <title>{title}</title> : null}
      {eyebrow ? (
        <p className="text-sm font-semibold uppercase tracking-wider text-brand-strong">
          {eyebrow}
        </p>
      ) : null}
      <h1 className="mt-2 text-3xl font-bold">{title}</h1>
      <p className="mt-4 text-lg">{text}</p>
      <p className="mt-8">{back}</p>
    </main>
  );
}

/**
 * The error boundary of a reading-room page (an issue, a tag, a year, a preview): its own words
 * when the loader found nothing (404), a general failure otherwise, and the way back to the archive.
 */
export function NewsletterErrorPage({
  error,
  notFound,
  failure,
  back = "Back to all newsletters",
}: {
  error: unknown;
  notFound: { title: string; text: string };
  /** what the page says when loading failed */
  failure: string;
  back?: string;
}) {
  const missing = isRouteErrorResponse(error) && error.status === 404;
  return (
    <ErrorPage
      eyebrow={missing ? "404" : "Error"}
      title={missing ? notFound.title : "Something went wrong"}
      text={missing ? notFound.text : failure}
      back={
        <Link to="/newsletter" className="font-semibold">
          {back}
        </Link>
      }
      documentTitle={false}
    />
  );
}
