import { Form } from "react-router";
import { Link } from "../lib/page-scripts";

/** The 403 page: /unauthorized and any staff page the signed-in account may not open. */
export function AccessDenied({ email, detail }: { email?: string | null; detail?: string }) {
  return (
    <main className="mx-auto max-w-2xl px-6 py-24 text-center">
      <p className="text-sm font-semibold uppercase tracking-wider text-brand-strong">403</p>
      <h1 className="mt-2 text-3xl font-bold sm:text-4xl">Access denied</h1>
      <p className="mt-4 text-lg">
        {email ? (
          <>
            You are signed in as <strong>{email}</strong>, which does not have access to this page.
          </>
        ) : (
          "You do not have access to this page with the account you are signed in with."
        )}
        {detail ? ` ${detail}` : null}
      </p>
      {/* A div, not a p: a form inside a p is invalid HTML and breaks hydration. */}
      <div className="mt-8 flex flex-wrap items-center justify-center gap-4">
        <Form method="post" action="/admin/logout">
          <input type="hidden" name="redirectTo" value="/admin/login" />
          <button
            type="submit"
            className="rounded-brand bg-brand-strong px-5 py-2.5 font-semibold text-on-brand-strong"
          >
            Sign in as someone else
          </button>
        </Form>
        <Link to="/" className="font-semibold">
          Back to the home page
        </Link>
      </div>
    </main>
  );
}
