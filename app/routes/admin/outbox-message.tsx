import type { ReactNode } from "react";
import { data } from "react-router";
import { requireTenantAccess } from "../../../server/auth/guards";
import { withoutOpenPixel } from "../../../server/campaigns/tracking-links";
import { scopeOf } from "../../../server/http/context";
import { getOutboxMessage } from "../../../server/mail/outbox";
import { plural } from "../../../shared/format";
import { AdminPage, AdminSection, BackLink } from "../../components/admin-header";
import { MailStatusBadge } from "../../components/mail-status";
import { noindexMeta } from "../../lib/meta";
import { StaffTime } from "../../lib/time-zone";
import type { Route } from "./+types/outbox-message";

export const meta: Route.MetaFunction = ({ loaderData }) =>
  noindexMeta(loaderData ? `${loaderData.message.subject} | Outbox` : "Outbox");

/** /admin/outbox/:id: one message of this tenant, as the recipient sees it. */
export async function loader({ params, context }: Route.LoaderArgs) {
  requireTenantAccess(context);
  const { db, tenantId } = scopeOf(context);
  const id = /^\d{1,15}$/.test(params.id) ? Number(params.id) : null;
  const message = id === null ? null : await getOutboxMessage({ db, tenantId }, id);
  // Another tenant's message does not exist here.
  if (!message) throw data({ message: "Message not found" }, { status: 404 });
  return {
    message: { ...message, html: withoutOpenPixel(message.html) },
  };
}

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="grid gap-1 border-b border-black/10 py-2 sm:grid-cols-[11rem_1fr] sm:gap-4">
      <dt className="font-semibold">{label}</dt>
      <dd className="min-w-0 break-words">{children}</dd>
    </div>
  );
}

export default function OutboxMessage({ loaderData }: Route.ComponentProps) {
  const { message } = loaderData;
  return (
    <AdminPage title="Outbox" width="wide" className="space-y-8">
      <BackLink to="/admin/outbox">All messages</BackLink>
      <section aria-labelledby="message-subject">
        <h2 id="message-subject" className="text-2xl font-bold break-words">
          {message.subject || "(no subject)"}
        </h2>
        <dl className="mt-4 text-sm">
          <Row label="From">{message.from}</Row>
          <Row label="To">{message.to}</Row>
          <Row label="Subject">{message.subject}</Row>
          <Row label="Date">
            <StaffTime iso={message.createdAt} />
          </Row>
          <Row label="Status">
            <MailStatusBadge status={message.status} />{" "}
            <span className="ml-1">
              {message.status === "outbox" ? (
                "kept in the outbox: no mail server is configured"
              ) : message.sentAt ? (
                <>
                  handed to the mail server <StaffTime iso={message.sentAt} />
                </>
              ) : null}
            </span>
            {message.status === "failed" ? (
              <span className="mt-1 block">
                {plural(message.attempts, "attempt")}
                {message.nextAttemptAt ? (
                  <>
                    ; next try <StaffTime iso={message.nextAttemptAt} />
                  </>
                ) : (
                  "; no more tries"
                )}
                {message.error ? <span className="block text-danger">{message.error}</span> : null}
              </span>
            ) : null}
          </Row>
          <Row label="Kind">{message.kind}</Row>
          <Row label="Message-ID">
            <span className="font-mono text-xs">{message.messageId ?? "—"}</span>
          </Row>
          {message.headers.map(([name, value]) => (
            <Row key={name} label={name}>
              <span className="font-mono text-xs">{value}</span>
            </Row>
          ))}
        </dl>
      </section>

      <AdminSection id="html-part" title="HTML part">
        {/* No sandbox allowances: nothing in the message runs, submits or navigates this page. */}
        <iframe
          sandbox=""
          srcDoc={message.html}
          title="Email preview"
          className="mt-3 h-[70vh] min-h-[28rem] w-full rounded-brand border border-black/20 bg-white"
        />
      </AdminSection>

      <AdminSection id="text-part" title="Text part">
        <pre className="mt-3 overflow-x-auto whitespace-pre-wrap break-words rounded-brand border border-black/20 bg-black/[0.03] p-4 text-sm">
          {message.text}
        </pre>
      </AdminSection>
    </AdminPage>
  );
}
