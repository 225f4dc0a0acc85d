import type { reviewCampaign } from "../../../server/campaigns/review";
import { plural } from "../../../shared/format";
import { AdminSection } from "../admin-header";
import { SubmitButton } from "../ui/form";
import { waitText } from "./ab-test-report";

/** What reviewCampaign found, and whether the audience changed since the review the staff saw. */
export type CampaignReviewView = Awaited<ReturnType<typeof reviewCampaign>> & {
  /** set when the audience changed between the review and "Send to N recipients" */
  changed: boolean;
};

/** The widths the review shows the email at: a mail client's reading pane, then a phone. */
const PREVIEW_WIDTHS = [
  { name: "Desktop", width: 600 },
  { name: "Phone", width: 375 },
] as const;

/**
 * The review before a campaign goes out (issue 16, point 7): what the recipients will see and how
 * many they are, at desktop and phone width, a test send, then "Send to N recipients". Its buttons
 * submit the compose form above (`form="campaign-form"`), with the count this review showed.
 */
export function CampaignReview({
  review,
  scheduled,
  busy,
  testLabel,
  form = "campaign-form",
  send = { name: "intent", value: "create" },
  children,
}: {
  review: CampaignReviewView;
  scheduled: boolean;
  busy: boolean;
  /** the test send's button; none where the page has no test send */
  testLabel?: string;
  /** the id of the form the buttons submit */
  form?: string;
  /** the send button's name and value */
  send?: { name: string; value: string };
  /** more actions beside the buttons (a way back) */
  children?: React.ReactNode;
}) {
  const who = plural(review.recipients, "recipient");
  return (
    <AdminSection id="review-heading" title="Review">
      {review.changed ? (
        <p role="alert" className="mt-2 rounded-brand border-2 border-secondary p-3 font-medium">
          {`The audience changed since you reviewed it: it is now ${who}. Check it, then send.`}
        </p>
      ) : null}
      {review.senderWarnings.length > 0 ? (
        <div
          data-testid="sender-warnings"
          className="mt-2 rounded-brand border-2 border-secondary p-3"
        >
          <p className="font-semibold">Sender domain</p>
          <ul className="mt-1 list-disc space-y-1 pl-5">
            {review.senderWarnings.map((warning) => (
              <li key={warning}>{warning}</li>
            ))}
          </ul>
          <p className="mt-1 text-sm">
            See Sender domain health on the tenant's page in the tenant manager.
          </p>
        </div>
      ) : null}
      <dl className="mt-3 grid gap-x-6 gap-y-2 sm:grid-cols-[10rem_1fr]">
        <dt className="font-semibold">Subject</dt>
        <dd>{review.subject}</dd>
        <dt className="font-semibold">From</dt>
        <dd>{review.from}</dd>
        <dt className="font-semibold">Replies go to</dt>
        <dd>{review.replyTo ?? "The sender"}</dd>
        <dt className="font-semibold">Lists</dt>
        <dd>{review.lists.join(", ")}</dd>
        <dt className="font-semibold">Recipients</dt>
        <dd data-testid="recipient-count">
          <span className="font-semibold">{who}</span>
          <span className="block text-sm opacity-80">
            Active subscribers of these lists and segments, each once; unsubscribed, bounced and
            complained addresses are never included.
          </span>
        </dd>
        {review.abSplit ? (
          <>
            <dt className="font-semibold">A/B test</dt>
            <dd data-testid="ab-split">
              <ul className="list-disc space-y-1 pl-5">
                {review.abSplit.arms.map((arm, index) => (
                  <li key={arm.subject}>
                    {`${String.fromCharCode(65 + index)}: “${arm.subject}” to ${plural(arm.recipients, "recipient")} at random`}
                  </li>
                ))}
              </ul>
              <span className="block text-sm opacity-80">
                {`The other ${plural(review.abSplit.rest, "recipient")} get the subject with the most ${review.abSplit.winnerBy} after ${waitText(review.abSplit.waitMinutes)} (or when you pick the winner).`}
              </span>
            </dd>
          </>
        ) : null}
      </dl>
      <div className="mt-5 space-y-6">
        {PREVIEW_WIDTHS.map(({ name, width }) => (
          <figure key={name} className="min-w-0">
            <figcaption className="text-sm font-semibold">{`${name} · ${width} px`}</figcaption>
            {/* The frame keeps the mail's own width; a narrower screen scrolls it sideways. */}
            <div className="mt-2 overflow-x-auto">
              <iframe
                sandbox=""
                srcDoc={review.html}
                title={`Email preview, ${name.toLowerCase()} width`}
                style={{ width, minWidth: width }}
                className="box-content block h-[32rem] rounded-brand border border-black/20 bg-white"
              />
            </div>
          </figure>
        ))}
      </div>
      <div className="mt-5 flex flex-wrap items-center gap-3">
        <input type="hidden" name="confirmedRecipients" value={review.recipients} form={form} />
        <input type="hidden" name="confirmedAudience" value={review.audience} form={form} />
        <SubmitButton name={send.name} value={send.value} form={form} disabled={busy}>
          {scheduled ? `Schedule for ${who}` : `Send to ${who}`}
        </SubmitButton>
        {testLabel ? (
          <button
            type="submit"
            name="intent"
            value="test"
            form={form}
            className="rounded-brand border-2 border-brand-strong px-5 py-3 font-semibold text-brand-strong"
          >
            {testLabel}
          </button>
        ) : null}
        {children}
      </div>
    </AdminSection>
  );
}
