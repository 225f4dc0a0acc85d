/** mail_log.status (server/db/schema.ts MailStatus); components do not import from server/. */
export type MailStatus = "pending" | "sent" | "outbox" | "failed";

const LOOK: Record<MailStatus, string> = {
  sent: "bg-ok/15 text-ok",
  outbox: "bg-brand/15 text-ink",
  failed: "bg-danger/15 text-danger",
  pending: "bg-secondary/25 text-ink",
};

/** A mail_log status as a small badge: sent, outbox (kept, not sent), failed, pending. */
export function MailStatusBadge({ status }: { status: MailStatus }) {
  return (
    <span
      className={`inline-block rounded-brand px-2 py-0.5 text-xs font-semibold ${LOOK[status] ?? ""}`}
    >
      {status}
    </span>
  );
}
