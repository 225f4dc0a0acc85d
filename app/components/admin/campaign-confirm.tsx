/** The campaign page's confirmation before cancelling (app/routes/admin/campaign.tsx). */
import { Form } from "react-router";
import { plural } from "../../../shared/format";
import { Link } from "../../lib/page-scripts";

/** "Cancel campaign" asks first, on the page (no JavaScript needed). */
export function ConfirmCancel({ recipients }: { recipients: number }) {
  return (
    <section aria-labelledby="confirm-heading" className="rounded-brand border-2 border-danger p-4">
      <h3 id="confirm-heading" className="text-lg font-bold">
        Cancel this campaign?
      </h3>
      <p className="mt-1">
        {recipients > 0
          ? `The ${plural(recipients, "message")} not yet sent will not be sent. This cannot be undone.`
          : "Nothing has been sent yet, and nothing will be. This cannot be undone."}
      </p>
      <div className="mt-3 flex flex-wrap gap-3">
        <Form method="post">
          <input type="hidden" name="action" value="cancel" />
          <input type="hidden" name="confirmed" value="yes" />
          <button
            type="submit"
            className="rounded-brand bg-danger px-4 py-2 font-semibold text-white"
          >
            Yes, cancel the campaign
          </button>
        </Form>
        <NotNow>Keep it</NotNow>
      </div>
    </section>
  );
}

export function NotNow({ children }: { children: string }) {
  return (
    <Link
      to="."
      relative="path"
      className="rounded-brand border-2 border-black/30 px-4 py-2 font-semibold text-ink no-underline"
    >
      {children}
    </Link>
  );
}
