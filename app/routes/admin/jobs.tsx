import { Form, useActionData } from "react-router";
import { AdminPage, AdminSection } from "../../components/admin-header";
import { type Column, DataTable } from "../../components/ui/data-table";
import { compactOutlineClass, FormAlert, FormNotice } from "../../components/ui/form";
import { noindexMeta } from "../../lib/meta";
import { StaffTime } from "../../lib/time-zone";
import type { Route } from "./+types/jobs";
import type { action } from "./jobs.server";

export { action, loader } from "./jobs.server";

export const meta: Route.MetaFunction = () => noindexMeta("Background jobs");

type Data = Route.ComponentProps["loaderData"];
type Listed = Data["open"]["failed"][number];
type Summary = {
  kind: string;
  tenant: string;
  waiting: number;
  running: number;
  failed: number;
  done: number;
};

/** One row per kind and tenant, a column per state. */
function summarise(counts: Data["counts"]): Summary[] {
  const rows = new Map<string, Summary>();
  for (const { kind, tenantId, state, count } of counts) {
    const tenant = tenantId ?? "(install)";
    const key = `${kind}\n${tenant}`;
    const row = rows.get(key) ?? { kind, tenant, waiting: 0, running: 0, failed: 0, done: 0 };
    row[state] += count;
    rows.set(key, row);
  }
  return [...rows.values()];
}

const number = (header: string, pick: (row: Summary) => number): Column<Summary> => ({
  header,
  align: "right",
  cell: (row) => pick(row),
});

const SUMMARY: Column<Summary>[] = [
  { header: "Job", cell: (row) => row.kind },
  { header: "Tenant", cell: (row) => row.tenant },
  number("Waiting", (row) => row.waiting),
  number("Running", (row) => row.running),
  number("Failed", (row) => row.failed),
  number("Done", (row) => row.done),
];

const base: Column<Listed>[] = [
  { header: "Job", cell: (job) => `#${job.id} ${job.kind}` },
  { header: "Tenant", cell: (job) => job.tenant_id ?? "(install)" },
  { header: "Tries", align: "right", cell: (job) => `${job.attempts} of ${job.max_attempts}` },
];

const WAITING: Column<Listed>[] = [
  ...base,
  { header: "Runs at", cell: (job) => <StaffTime iso={job.run_at} /> },
  { header: "Last error", className: "break-words", cell: (job) => job.last_error ?? "—" },
];

const RUNNING: Column<Listed>[] = [
  ...base,
  { header: "Started", cell: (job) => (job.started_at ? <StaffTime iso={job.started_at} /> : "—") },
  { header: "Progress", className: "break-all", cell: (job) => job.progress ?? "—" },
];

const FAILED: Column<Listed>[] = [
  ...base,
  {
    header: "Failed",
    cell: (job) => (job.finished_at ? <StaffTime iso={job.finished_at} /> : "—"),
  },
  { header: "Last error", className: "break-words", cell: (job) => job.last_error ?? "—" },
  {
    header: "Action",
    cell: (job) => (
      <Form method="post">
        <input type="hidden" name="jobId" value={job.id} />
        <button type="submit" name="intent" value="retry" className={compactOutlineClass}>
          Retry job {job.id}
        </button>
      </Form>
    ),
  },
];

export default function Jobs({ loaderData }: Route.ComponentProps) {
  const result = useActionData<typeof action>();
  const { counts, open, oldestWaitingSeconds } = loaderData;
  return (
    <AdminPage title="Background jobs" className="space-y-10">
      <FormNotice message={result?.ok ? result.message : null} />
      <FormAlert errors={result && !result.ok ? [result.message] : undefined} />
      <p>
        Imports, checks, backups, mail retries and the hourly purge run as jobs, in the web process
        or in <code>herald worker</code>. The oldest due job has waited{" "}
        <strong>{Math.round(oldestWaitingSeconds)} s</strong>.
      </p>
      <AdminSection id="job-summary" title="By kind and tenant">
        <DataTable
          className="mt-3"
          columns={SUMMARY}
          rows={summarise(counts)}
          rowKey={(row) => `${row.kind}\n${row.tenant}`}
          empty="No jobs yet."
        />
      </AdminSection>
      <AdminSection id="jobs-failed" title="Failed">
        <DataTable
          className="mt-3"
          columns={FAILED}
          rows={open.failed}
          rowKey={(job) => job.id}
          empty="No failed jobs."
        />
      </AdminSection>
      <AdminSection id="jobs-running" title="Running">
        <DataTable
          className="mt-3"
          columns={RUNNING}
          rows={open.running}
          rowKey={(job) => job.id}
          empty="Nothing running."
        />
      </AdminSection>
      <AdminSection id="jobs-waiting" title="Waiting">
        <DataTable
          className="mt-3"
          columns={WAITING}
          rows={open.waiting}
          rowKey={(job) => job.id}
          empty="Nothing waiting."
        />
      </AdminSection>
    </AdminPage>
  );
}
