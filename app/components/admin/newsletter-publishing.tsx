import type { MouseEvent } from "react";
import { Form, Link } from "react-router";

/**
 * The newsletter editor's side panel and its delete confirmation (app/routes/admin/newsletter-form.tsx):
 * status, Publish / Unpublish / View, and Delete, which asks first — in the browser with a dialog,
 * without JavaScript on a page of its own (`?confirmDelete=1`).
 */

export function ConfirmDelete({ title, actionUrl }: { title: string; actionUrl: string }) {
  return (
    <section
      aria-labelledby="confirm-delete-heading"
      className="mb-6 rounded-brand border-2 border-danger bg-surface p-5"
    >
      <h2 id="confirm-delete-heading" className="text-xl font-bold">
        Delete this newsletter?
      </h2>
      <p className="mt-2">
        “{title}” and its comments will be removed for good. This cannot be undone.
      </p>
      <div className="mt-4 flex flex-wrap gap-3">
        <Form method="post" action={actionUrl}>
          <button
            type="submit"
            name="intent"
            value="delete"
            className="rounded-brand bg-danger px-4 py-2 font-semibold text-white"
          >
            Yes, delete
          </button>
        </Form>
        <Link
          to={actionUrl}
          className="rounded-brand border-2 border-black/30 px-4 py-2 font-semibold text-ink no-underline"
        >
          Keep it
        </Link>
      </div>
    </section>
  );
}

export function PublishingPanel({
  newsletter,
  actionUrl,
  busyIntent,
  onDelete,
}: {
  newsletter: { id: string; slug: string; status: string } | null;
  actionUrl: string;
  /** the intent being submitted, if any: its button says so */
  busyIntent: FormDataEntryValue | null;
  onDelete(event: MouseEvent): void;
}) {
  const published = newsletter?.status === "published";
  return (
    <aside aria-label="Publishing" className="lg:sticky lg:top-6 lg:self-start">
      {newsletter ? (
        <div className="space-y-4 rounded-brand border border-black/10 bg-surface p-5 shadow-sm">
          <div className="flex items-center justify-between gap-3">
            <h2 className="text-lg font-bold">Status</h2>
            <span
              className={`rounded-full px-3 py-1 text-sm font-semibold ${
                published ? "bg-ok text-white" : "bg-black/10 text-ink"
              }`}
              data-testid="newsletter-status"
            >
              {published ? "Published" : "Draft"}
            </span>
          </div>
          <p className="text-sm opacity-80">
            {published
              ? "Readers can see this newsletter. Changes go live when you press Update Newsletter."
              : "Only staff can see this draft. Changes are saved automatically."}
          </p>
          {published ? (
            <div className="flex flex-col gap-2">
              <Link
                to={`/newsletter/${newsletter.slug}`}
                className="rounded-brand border-2 border-brand-strong px-4 py-2 text-center font-semibold text-brand-strong no-underline hover:bg-brand/10"
              >
                View
              </Link>
              <Form method="post" action={actionUrl}>
                <button
                  type="submit"
                  name="intent"
                  value="unpublish"
                  className="w-full rounded-brand border-2 border-black/30 px-4 py-2 font-semibold hover:bg-black/5"
                >
                  {busyIntent === "unpublish" ? "Unpublishing…" : "Unpublish"}
                </button>
              </Form>
            </div>
          ) : (
            <button
              type="submit"
              form="newsletter-form"
              name="intent"
              value="publish"
              className="w-full rounded-brand bg-ok px-4 py-2 font-semibold text-white hover:opacity-90"
            >
              {busyIntent === "publish" ? "Publishing…" : "Publish"}
            </button>
          )}
          <div className="border-t border-black/10 pt-4">
            <Link
              to={`${actionUrl}?confirmDelete=1`}
              onClick={onDelete}
              className="block rounded-brand px-4 py-2 text-center font-semibold text-danger no-underline hover:bg-danger/10"
            >
              Delete
            </Link>
          </div>
        </div>
      ) : (
        <div className="rounded-brand border border-black/10 bg-black/[0.03] p-5 text-sm leading-relaxed">
          <h2 className="text-lg font-bold">How it works</h2>
          <p className="mt-2">
            Create Newsletter saves it as a draft that only staff can see. From there, changes are
            saved automatically, and Publish puts it on the newsletter page.
          </p>
        </div>
      )}
    </aside>
  );
}
