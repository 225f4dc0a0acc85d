import { Link } from "react-router";
import { z } from "zod";
import { requireTenantAccess } from "../../../server/auth/guards";
import { scopeOf } from "../../../server/http/context";
import { listOutbox } from "../../../server/mail/outbox";
import { formatDateTime, plural } from "../../../shared/format";
import { AdminHeader } from "../../components/admin-header";
import { MailStatusBadge } from "../../components/mail-status";
import { Pagination } from "../../components/pagination";
import { stackedCell, stackedHead, stackedRow } from "../../components/stacked-table";
import type { Route } from "./+types/outbox";

export const meta: Route.MetaFunction = () => [
  { title: "Outbox" },
  { name: "robots", content: "noindex" },
];

const pageSchema = z.coerce.number().int().min(1).max(1_000_000).catch(1);

/** /admin/outbox (DESIGN.md §5): every message of this tenant, sent or kept, newest first. */
export async function loader({ request, context }: Route.LoaderArgs) {
  const user = requireTenantAccess(context, request);
  const { db, tenantId, transport } = scopeOf(context);
  const page = pageSchema.parse(new URL(request.url).searchParams.get("page") ?? undefined);
  return {
    tenantName: scopeOf(context).tenant.branding.companyName,
    isSuperAdmin: user.isSuperAdmin,
    transport: transport.kind,
    mail: await listOutbox({ db, tenantId }, page),
  };
}

export default function Outbox({ loaderData }: Route.ComponentProps) {
  const { mail } = loaderData;
  const pageHref = (page: number) => (page <= 1 ? "/admin/outbox" : `/admin/outbox?page=${page}`);
  return (
    <main>
      <AdminHeader
        title="Outbox"
        tenantName={loaderData.tenantName}
        isSuperAdmin={loaderData.isSuperAdmin}
      />
      <div className="mx-auto max-w-6xl px-4 py-8 sm:px-6">
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
            <div className="mt-2 overflow-x-auto rounded-brand border border-black/10">
              <table className="w-full text-left text-sm">
                <thead className={stackedHead}>
                  <tr>
                    <th scope="col" className="px-3 py-2">
                      Date
                    </th>
                    <th scope="col" className="px-3 py-2">
                      To
                    </th>
                    <th scope="col" className="px-3 py-2">
                      Subject
                    </th>
                    <th scope="col" className="px-3 py-2">
                      Kind
                    </th>
                    <th scope="col" className="px-3 py-2">
                      Status
                    </th>
                  </tr>
                </thead>
                <tbody className="block sm:table-row-group">
                  {mail.items.map((message) => (
                    <tr key={message.id} className={stackedRow}>
                      <td data-label="Date" className={`${stackedCell} sm:whitespace-nowrap`}>
                        <time dateTime={message.createdAt}>
                          {formatDateTime(message.createdAt)}
                        </time>
                      </td>
                      <td data-label="To" className={`${stackedCell} break-all`}>
                        {message.to}
                      </td>
                      <td data-label="Subject" className={stackedCell}>
                        <Link to={`/admin/outbox/${message.id}`} className="font-semibold">
                          {message.subject || "(no subject)"}
                        </Link>
                      </td>
                      <td data-label="Kind" className={`${stackedCell} sm:whitespace-nowrap`}>
                        {message.kind}
                      </td>
                      <td data-label="Status" className={stackedCell}>
                        <div>
                          <MailStatusBadge status={message.status} />
                          {message.status === "failed" ? (
                            <p className="mt-1 text-xs">
                              {plural(message.attempts, "attempt")}
                              {message.error ? (
                                <span className="block break-words text-danger">
                                  {message.error}
                                </span>
                              ) : null}
                            </p>
                          ) : null}
                        </div>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <Pagination
              page={mail.page}
              pageCount={mail.pageCount}
              href={pageHref}
              labels={["← Newer", "Older →"]}
            />
          </>
        )}
      </div>
    </main>
  );
}
