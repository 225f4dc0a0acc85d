import { requireTenantAccess } from "../../../server/auth/guards";
import { scopeOf } from "../../../server/http/context";
import type { OutboxEntry } from "../../../server/mail/outbox";
import { listOutbox } from "../../../server/mail/outbox";
import { plural } from "../../../shared/format";
import { z } from "../../../shared/zod";
import { AdminPage } from "../../components/admin-header";
import { MailStatusBadge } from "../../components/mail-status";
import { Pagination } from "../../components/pagination";
import { type Column, DataTable } from "../../components/ui/data-table";
import { noindexMeta } from "../../lib/meta";
import { Link } from "../../lib/page-scripts";
import { StaffTime } from "../../lib/time-zone";
import type { Route } from "./+types/outbox";

export const meta: Route.MetaFunction = () => noindexMeta("Outbox");

const pageSchema = z.coerce.number().int().min(1).max(1_000_000).catch(1);

/** /admin/outbox (DESIGN.md §5): every message of this tenant, sent or kept, newest first. */
export async function loader({ url, context }: Route.LoaderArgs) {
  requireTenantAccess(context);
  const { db, tenantId, transport } = scopeOf(context);
  const page = pageSchema.parse(url.searchParams.get("page") ?? undefined);
  return {
    transport: transport.kind,
    mail: await listOutbox({ db, tenantId }, page),
  };
}

const OUTBOX_COLUMNS: Column<OutboxEntry>[] = [
  {
    header: "Date",
    className: "sm:whitespace-nowrap",
    cell: (message) => <StaffTime iso={message.createdAt} />,
  },
  { header: "To", className: "break-all", cell: (message) => message.to },
  {
    header: "Subject",
    cell: (message) => (
      <Link to={`/admin/outbox/${message.id}`} className="font-semibold">
        {message.subject || "(no subject)"}
      </Link>
    ),
  },
  { header: "Kind", className: "sm:whitespace-nowrap", cell: (message) => message.kind },
  {
    header: "Status",
    cell: (message) => (
      <div>
        <MailStatusBadge status={message.status} />
        {message.status === "failed" ? (
          <p className="mt-1 text-xs">
            {plural(message.attempts, "attempt")}
            {message.error ? (
              <span className="block break-words text-danger">{message.error}</span>
            ) : null}
          </p>
        ) : null}
      </div>
    ),
  },
];

export default function Outbox({ loaderData }: Route.ComponentProps) {
  const { mail } = loaderData;
  const pageHref = (page: number) => (page <= 1 ? "/admin/outbox" : `/admin/outbox?page=${page}`);
  return (
    <AdminPage title="Outbox">
      <p className="max-w-3xl">
        {loaderData.transport === "outbox"
          ? "No mail server is configured (SMTP_URL), so messages are kept here instead of being sent. Open one to read it as the recipient would."
          : "Every message sent to this site's subscribers and visitors. Open one to read it as the recipient saw it."}
      </p>
      {mail.total === 0 ? (
        <p className="mt-6 rounded-brand border border-dashed border-black/30 p-8 text-center text-lg">
          No messages yet.
        </p>
      ) : (
        <>
          <p className="mt-6 text-sm">
            {plural(mail.total, "message")} · page {mail.page} of {mail.pageCount}
          </p>
          <DataTable
            className="mt-2"
            columns={OUTBOX_COLUMNS}
            rows={mail.items}
            rowKey={(message) => message.id}
          />
          <Pagination
            page={mail.page}
            pageCount={mail.pageCount}
            href={pageHref}
            labels={["← Newer", "Older →"]}
          />
        </>
      )}
    </AdminPage>
  );
}
