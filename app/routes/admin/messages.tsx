import { requireTenantAccess } from "../../../server/auth/guards";
import { listContactMessages } from "../../../server/contact/messages";
import { scopeOf } from "../../../server/http/context";
import { formatDate } from "../../../shared/format";
import { AdminPage } from "../../components/admin-header";
import { noindexMeta } from "../../lib/meta";
import type { Route } from "./+types/messages";

export const meta: Route.MetaFunction = () => noindexMeta("Contact messages");

const SHOWN = 200;

/** Messages sent through this tenant's contact form (DESIGN.md §7.2), newest first. */
export async function loader({ context }: Route.LoaderArgs) {
  requireTenantAccess(context);
  const scope = scopeOf(context);
  const messages = await listContactMessages(scope, { limit: SHOWN });
  return {
    messages,
  };
}

export default function Messages({ loaderData }: Route.ComponentProps) {
  return (
    <AdminPage title="Contact messages" width="medium">
      {loaderData.messages.length === 0 ? (
        <p className="rounded-brand border border-dashed border-black/30 p-8 text-center text-lg">
          No messages yet. Messages sent through the contact form appear here.
        </p>
      ) : (
        <ul className="space-y-4">
          {loaderData.messages.map((message) => (
            <li
              key={message.id}
              className="rounded-brand border border-black/10 bg-surface p-5 shadow-sm"
            >
              <div className="flex flex-wrap items-baseline justify-between gap-2">
                <p className="font-semibold">
                  {message.name}
                  {message.company ? (
                    <span className="font-normal"> · {message.company}</span>
                  ) : null}
                </p>
                <time dateTime={message.created_at} className="text-sm">
                  {formatDate(message.created_at)}
                </time>
              </div>
              <p className="text-sm">
                <a href={`mailto:${message.email}`}>{message.email}</a>
              </p>
              <p className="mt-3 whitespace-pre-line leading-relaxed">{message.message}</p>
            </li>
          ))}
        </ul>
      )}
      {loaderData.messages.length === SHOWN ? (
        <p className="mt-4 text-sm">Showing the newest {SHOWN} messages.</p>
      ) : null}
    </AdminPage>
  );
}
