import type { countByList, countByStatus } from "../../../server/subscribers/search";
import type { feedbackSummary } from "../../../server/subscribers/unsubscribe";
import { formatCount, formatDate } from "../../../shared/format";
import { AdminSection } from "../admin-header";

/** The subscribers page's counts: by status, and active subscribers per list. */
export function SubscriberCounts({
  statuses,
  lists,
}: {
  statuses: Awaited<ReturnType<typeof countByStatus>>;
  lists: Awaited<ReturnType<typeof countByList>>;
}) {
  return (
    <section aria-labelledby="counts-heading" className="grid gap-6 lg:grid-cols-2">
      <div>
        <h2 id="counts-heading" className="text-xl font-bold">
          By status
        </h2>
        <dl className="mt-3 grid grid-cols-2 gap-3 sm:grid-cols-3">
          {[
            ["Total", statuses.total],
            ["Active", statuses.active],
            ["Unconfirmed", statuses.unconfirmed],
            ["Unsubscribed", statuses.unsubscribed],
            ["Bounced", statuses.bounced],
            ["Complained", statuses.complained],
          ].map(([label, count]) => (
            <div key={label} className="rounded-brand border border-black/10 bg-surface p-3">
              <dt className="text-sm font-medium">{label}</dt>
              <dd className="text-2xl font-bold tabular-nums">{formatCount(Number(count))}</dd>
            </div>
          ))}
        </dl>
      </div>
      <div>
        <h2 className="text-xl font-bold">Active subscribers per list</h2>
        <table className="mt-3 w-full text-left">
          <thead className="sr-only">
            <tr>
              <th scope="col">List</th>
              <th scope="col">Active subscribers</th>
            </tr>
          </thead>
          <tbody>
            {lists.map((list) => (
              <tr key={list.key} className="border-b border-black/10">
                <td className="py-2 pr-4">
                  {list.name} <span className="text-sm opacity-80">{`(${list.key})`}</span>
                </td>
                <td className="py-2 text-right text-lg font-semibold tabular-nums">
                  {formatCount(list.active)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** Why people unsubscribed: counts per reason and the latest "Other" answers. */
export function UnsubscribeFeedback({
  feedback,
}: {
  feedback: Awaited<ReturnType<typeof feedbackSummary>>;
}) {
  return (
    <AdminSection id="feedback-heading" title="Why people unsubscribed">
      <div className="mt-3 grid gap-6 lg:grid-cols-[1fr_2fr]">
        <table className="w-full text-left">
          <thead className="sr-only">
            <tr>
              <th scope="col">Reason</th>
              <th scope="col">Answers</th>
            </tr>
          </thead>
          <tbody>
            {feedback.reasons.map((row) => (
              <tr key={row.reason} className="border-b border-black/10">
                <td className="py-2 pr-4">{row.reason}</td>
                <td className="py-2 text-right font-semibold tabular-nums">{row.count}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <div>
          <h3 className="font-semibold">Latest "Other" answers</h3>
          {feedback.others.length === 0 ? (
            <p className="mt-2 text-sm">None yet.</p>
          ) : (
            <ul className="mt-2 space-y-2">
              {feedback.others.map((other, index) => (
                <li
                  // biome-ignore lint/suspicious/noArrayIndexKey: answers have no id of their own and never reorder
                  key={index}
                  className="rounded-brand border border-black/10 bg-surface p-3"
                >
                  <p className="whitespace-pre-line break-words">{other.text}</p>
                  <p className="mt-1 text-xs opacity-80">
                    <time dateTime={other.createdAt}>{formatDate(other.createdAt)}</time>
                  </p>
                </li>
              ))}
            </ul>
          )}
        </div>
      </div>
    </AdminSection>
  );
}
