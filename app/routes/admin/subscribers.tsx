import { useState } from "react";
import { data, Form, Link, useNavigation, useSearchParams } from "react-router";
import { requireTenantAccess } from "../../../server/auth/guards";
import { requestContext, tenantContext } from "../../../server/http/context";
import {
  countByList,
  countByStatus,
  decodeCsvUpload,
  feedbackSummary,
  ImportFileError,
  type ImportReport,
  importSubscribersCsv,
  listSubscribers,
  subscriberFilterFrom,
} from "../../../server/subscribers/admin";
import { subscriptionContextFrom } from "../../../server/subscribers/context";
import { formatDate, plural } from "../../../shared/format";
import { MAX_IMPORT_BYTES, SUBSCRIBER_STATUSES } from "../../../shared/schemas/subscribers";
import { AdminHeader } from "../../components/admin-header";
import { Pagination } from "../../components/pagination";
import { stackedCell, stackedHead, stackedRow } from "../../components/stacked-table";
import type { Route } from "./+types/subscribers";

export const meta: Route.MetaFunction = () => [
  { title: "Subscribers" },
  { name: "robots", content: "noindex" },
];

/** /admin/subscribers: the tenant's audience — counts, search, CSV import and export, feedback. */
export async function loader({ request, context }: Route.LoaderArgs) {
  const user = requireTenantAccess(context, request);
  const ctx = subscriptionContextFrom(context);
  const filter = subscriberFilterFrom(new URL(request.url).searchParams);
  const [lists, statuses, subscribers, feedback] = await Promise.all([
    countByList(ctx),
    countByStatus(ctx),
    listSubscribers(ctx, filter, filter.page),
    feedbackSummary(ctx),
  ]);
  return {
    tenantName: context.get(tenantContext).branding.companyName,
    isSuperAdmin: user.isSuperAdmin,
    lists,
    statuses,
    subscribers,
    feedback,
  };
}

type ImportAnswer =
  | { ok: true; fileName: string; report: ImportReport }
  | { ok: false; message: string };

const UNREADABLE = "The upload could not be read. Choose a CSV file of at most 1 MB and try again.";

/** POST (multipart, field `file`): imports subscribers from CSV and answers the report. */
export async function action({ request, context }: Route.ActionArgs) {
  requireTenantAccess(context, request);
  const ctx = subscriptionContextFrom(context);
  const fail = (message: string, status = 400) =>
    data<ImportAnswer>({ ok: false, message }, { status });
  let file: FormDataEntryValue | null;
  try {
    file = (await request.formData()).get("file");
  } catch {
    return fail(UNREADABLE);
  }
  if (!(file instanceof File) || file.size === 0) return fail("Choose a CSV file to import.");
  try {
    const report = await importSubscribersCsv(
      ctx,
      decodeCsvUpload(new Uint8Array(await file.arrayBuffer())),
    );
    context
      .get(requestContext)
      .logger.info(
        { imported: report.imported, refused: report.refused.length },
        "subscribers imported",
      );
    return data<ImportAnswer>({ ok: true, fileName: file.name, report });
  } catch (error) {
    if (error instanceof ImportFileError) return fail(error.message);
    throw error;
  }
}

const STATUS_LOOK: Record<string, string> = {
  active: "bg-ok/15 text-ok",
  unconfirmed: "bg-secondary/25 text-ink",
  unsubscribed: "bg-black/10 text-ink",
  bounced: "bg-danger/15 text-ink",
  complained: "bg-danger/15 text-ink",
};

const fieldClass = "mt-1 w-full rounded-brand border border-black/30 bg-surface px-3 py-2";
const outlineButton =
  "rounded-brand border-2 border-brand-strong px-4 py-2 font-semibold text-brand-strong no-underline hover:bg-brand/10";

function ImportReportView({ answer }: { answer: ImportAnswer }) {
  if (!answer.ok) {
    return (
      <p role="alert" className="rounded-brand border-2 border-danger p-3 font-medium text-danger">
        {answer.message}
      </p>
    );
  }
  const { report } = answer;
  return (
    <section
      aria-labelledby="import-report"
      role="status"
      className="rounded-brand border-2 border-ok bg-surface p-5"
    >
      <h2 id="import-report" className="text-lg font-bold">
        Imported {report.imported} rows; refused {report.refused.length} rows
      </h2>
      <p className="mt-1 text-sm">
        From <span className="font-mono">{answer.fileName}</span>: {report.created} new,{" "}
        {report.updated} updated. No email was sent.
      </p>
      {report.keptUnsubscribed > 0 ? (
        <p className="mt-2 text-sm">
          {plural(report.keptUnsubscribed, "row")} matched people who had unsubscribed; they stay
          unsubscribed. Put <strong>active</strong> in a row's status column to subscribe someone
          again.
        </p>
      ) : null}
      {report.refused.length > 0 ? (
        <div className="mt-4 overflow-x-auto rounded-brand border border-black/10">
          <table className="w-full text-left text-sm">
            <caption className="px-3 pt-3 pb-1 text-left font-semibold">Refused rows</caption>
            <thead className={stackedHead}>
              <tr>
                <th scope="col" className="px-3 py-2">
                  Row
                </th>
                <th scope="col" className="px-3 py-2">
                  Email as given
                </th>
                <th scope="col" className="px-3 py-2">
                  Reason
                </th>
              </tr>
            </thead>
            <tbody className="block sm:table-row-group">
              {report.refused.map((row) => (
                <tr key={row.line} className={stackedRow}>
                  <td data-label="Row" className={`${stackedCell} tabular-nums`}>
                    {row.line}
                  </td>
                  <td data-label="Email" className={`${stackedCell} break-all font-mono`}>
                    {row.email || "—"}
                  </td>
                  <td data-label="Reason" className={stackedCell}>
                    {row.reason}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}

function ImportForm() {
  const navigation = useNavigation();
  const [tooLarge, setTooLarge] = useState(false);
  const importing =
    navigation.state === "submitting" && navigation.formEncType === "multipart/form-data";
  return (
    <Form
      method="post"
      // The answer is shown in this section: the page opens on it, with or without JavaScript.
      action="/admin/subscribers#import"
      encType="multipart/form-data"
      className="space-y-3"
      onSubmit={(event) => {
        const input = event.currentTarget.elements.namedItem("file");
        const file = input instanceof HTMLInputElement ? input.files?.[0] : undefined;
        // The host refuses bodies over 1 MiB before the page could explain; say it here.
        if (file && file.size > MAX_IMPORT_BYTES) {
          event.preventDefault();
          setTooLarge(true);
        }
      }}
    >
      <div>
        <label htmlFor="import-file" className="block font-semibold">
          CSV file (at most 1 MB)
        </label>
        <input
          id="import-file"
          name="file"
          type="file"
          accept=".csv,text/csv"
          required
          aria-describedby="import-help"
          onChange={() => setTooLarge(false)}
          className="mt-1 block w-full max-w-md text-sm file:mr-3 file:rounded-brand file:border-2 file:border-brand-strong file:bg-surface file:px-3 file:py-1.5 file:font-semibold file:text-brand-strong"
        />
      </div>
      {tooLarge ? (
        <p role="alert" className="font-medium text-danger">
          The file is larger than 1 MB. Split it into smaller files.
        </p>
      ) : null}
      <div id="import-help" className="max-w-3xl space-y-1 text-sm">
        <p>
          Columns: <code>email</code> (required), <code>name</code>, <code>lists</code> (list keys
          separated by <code>;</code> or <code>|</code>; none means the default list) and{" "}
          <code>status</code> (<code>active</code> or <code>unsubscribed</code>; none means active).
        </p>
        <p>
          Known addresses are updated: a name replaces the old one, named lists replace the old
          lists. People who unsubscribed stay unsubscribed unless their row says <code>active</code>
          . Imported people get no email. Rows with errors are listed and skipped; the others are
          saved together.
        </p>
      </div>
      <button
        type="submit"
        aria-disabled={importing || undefined}
        className="rounded-brand bg-brand-strong px-4 py-2 font-semibold text-on-brand-strong"
      >
        {importing ? "Importing…" : "Import CSV"}
      </button>
    </Form>
  );
}

export default function Subscribers({ loaderData, actionData }: Route.ComponentProps) {
  const { lists, statuses, subscribers, feedback } = loaderData;
  const [searchParams] = useSearchParams();
  const filterParams = new URLSearchParams();
  for (const name of ["q", "status", "list"]) {
    const value = searchParams.get(name);
    if (value) filterParams.set(name, value);
  }
  const status = filterParams.get("status");
  const filtered =
    filterParams.has("q") || filterParams.has("list") || (status !== null && status !== "all");
  const pageHref = (page: number) => {
    const params = new URLSearchParams(filterParams);
    if (page > 1) params.set("page", String(page));
    return `/admin/subscribers${params.size ? `?${params}` : ""}`;
  };
  const listName = (key: string) => lists.find((list) => list.key === key)?.name ?? key;

  return (
    <main>
      <AdminHeader
        title="Subscribers"
        tenantName={loaderData.tenantName}
        isSuperAdmin={loaderData.isSuperAdmin}
        actions={
          <a
            href={`/admin/subscribers/export.csv${filterParams.size ? `?${filterParams}` : ""}`}
            download
            className={outlineButton}
          >
            Export CSV
          </a>
        }
      />
      <div className="mx-auto max-w-6xl space-y-10 px-4 py-8 sm:px-6">
        <section aria-labelledby="counts-heading" className="grid gap-6 lg:grid-cols-2">
          <div>
            <h2 id="counts-heading" className="text-xl font-bold">
              By status
            </h2>
            <dl className="mt-3 grid grid-cols-2 gap-3 sm:grid-cols-4">
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
                  <dd className="text-2xl font-bold tabular-nums">
                    {Number(count).toLocaleString("en-US")}
                  </dd>
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
                      {list.active.toLocaleString("en-US")}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>

        <section aria-labelledby="search-heading">
          <h2 id="search-heading" className="text-xl font-bold">
            Find subscribers
          </h2>
          <Form
            method="get"
            role="search"
            aria-label="Find subscribers"
            className="mt-3 grid gap-3 sm:grid-cols-[2fr_1fr_1fr_auto] sm:items-end"
          >
            <div>
              <label htmlFor="filter-q" className="block text-sm font-semibold">
                Email or name contains
              </label>
              <input
                id="filter-q"
                name="q"
                type="search"
                maxLength={200}
                defaultValue={searchParams.get("q") ?? ""}
                className={fieldClass}
              />
            </div>
            <div>
              <label htmlFor="filter-status" className="block text-sm font-semibold">
                Status
              </label>
              <select
                id="filter-status"
                name="status"
                defaultValue={searchParams.get("status") ?? "all"}
                className={fieldClass}
              >
                <option value="all">All</option>
                {SUBSCRIBER_STATUSES.map((status) => (
                  <option key={status} value={status}>
                    {status[0].toUpperCase() + status.slice(1)}
                  </option>
                ))}
              </select>
            </div>
            <div>
              <label htmlFor="filter-list" className="block text-sm font-semibold">
                List
              </label>
              <select
                id="filter-list"
                name="list"
                defaultValue={searchParams.get("list") ?? ""}
                className={fieldClass}
              >
                <option value="">All lists</option>
                {lists.map((list) => (
                  <option key={list.key} value={list.key}>
                    {list.name}
                  </option>
                ))}
              </select>
            </div>
            <div className="flex gap-2">
              <button type="submit" className={outlineButton}>
                Search
              </button>
              {filtered ? (
                <Link to="/admin/subscribers" className="px-2 py-2 font-medium">
                  Clear
                </Link>
              ) : null}
            </div>
          </Form>

          <p className="mt-6 text-sm" aria-live="polite">
            {subscribers.total === 0
              ? filtered
                ? "No subscribers match this search."
                : "No subscribers yet. People who sign up, or whom you import, appear here."
              : `${plural(subscribers.total, "subscriber")}${filtered ? " match" : ""} · page ${subscribers.page} of ${subscribers.pageCount}`}
          </p>
          {subscribers.items.length > 0 ? (
            <div className="mt-2 overflow-x-auto rounded-brand border border-black/10">
              <table className="w-full text-left text-sm">
                <thead className={stackedHead}>
                  <tr>
                    <th scope="col" className="px-3 py-2">
                      Email
                    </th>
                    <th scope="col" className="px-3 py-2">
                      Name
                    </th>
                    <th scope="col" className="px-3 py-2">
                      Status
                    </th>
                    <th scope="col" className="px-3 py-2">
                      Lists
                    </th>
                    <th scope="col" className="px-3 py-2">
                      Subscribed
                    </th>
                  </tr>
                </thead>
                <tbody className="block sm:table-row-group">
                  {subscribers.items.map((subscriber) => (
                    <tr key={subscriber.id} className={stackedRow}>
                      <td data-label="Email" className={`${stackedCell} break-all font-medium`}>
                        {subscriber.email}
                      </td>
                      <td data-label="Name" className={`${stackedCell} break-words`}>
                        {subscriber.name || "—"}
                      </td>
                      <td data-label="Status" className={stackedCell}>
                        <span
                          className={`inline-block self-start rounded-brand px-2 py-0.5 text-xs font-semibold ${STATUS_LOOK[subscriber.status] ?? ""}`}
                        >
                          {subscriber.status}
                        </span>
                      </td>
                      <td data-label="Lists" className={stackedCell}>
                        {subscriber.lists.length ? subscriber.lists.map(listName).join(", ") : "—"}
                      </td>
                      <td data-label="Subscribed" className={`${stackedCell} sm:whitespace-nowrap`}>
                        {subscriber.subscribedAt ? (
                          <time dateTime={subscriber.subscribedAt}>
                            {formatDate(subscriber.subscribedAt)}
                          </time>
                        ) : (
                          "—"
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : null}
          <Pagination page={subscribers.page} pageCount={subscribers.pageCount} href={pageHref} />
        </section>

        <section
          id="import"
          aria-labelledby="import-heading"
          className="scroll-mt-4 space-y-4 rounded-brand border border-black/10 p-5"
        >
          <h2 id="import-heading" className="text-xl font-bold">
            Import CSV
          </h2>
          {actionData ? <ImportReportView answer={actionData} /> : null}
          <ImportForm />
        </section>

        <section aria-labelledby="feedback-heading">
          <h2 id="feedback-heading" className="text-xl font-bold">
            Why people unsubscribed
          </h2>
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
        </section>
      </div>
    </main>
  );
}
