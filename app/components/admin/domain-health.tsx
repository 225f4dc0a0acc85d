import { Form } from "react-router";
import type { StoredDomainCheck } from "../../../server/tenants/domain-checks";
import type { RecordCheck, RecordStatus } from "../../../server/tenants/domain-health";
import type { SenderRates } from "../../../server/tenants/sender-rates";
import { StaffTime } from "../../lib/time-zone";
import { SettingsPanel, SubmitButton } from "../ui/form";

/** What the tenant page's loader gives this section. */
export interface DomainHealthData {
  check: StoredDomainCheck | null;
  rates: SenderRates;
}

const STATUS_LABELS: Record<RecordStatus, string> = {
  ok: "OK",
  missing: "Missing",
  wrong: "Wrong",
  unchecked: "Not checked",
};

const STATUS_CLASSES: Record<RecordStatus, string> = {
  ok: "border-ok/40 bg-ok/10 text-ok",
  missing: "border-danger/40 bg-danger/10 text-danger",
  wrong: "border-danger/40 bg-danger/10 text-danger",
  unchecked: "border-black/20 bg-black/5",
};

function percent(rate: number | null): string {
  return rate === null ? "—" : `${(rate * 100).toFixed(2)}%`;
}

/**
 * "Sender domain health" on the tenant page (issue 36, target 5): each DNS record the tenant's mail
 * depends on, its status and the exact record to add; the complaint and bounce rates of the last 30
 * days against Gmail's and Yahoo's bulk-sender limits; a button that checks again now.
 */
export function DomainHealthSection({
  tenantId,
  data,
  message,
}: {
  tenantId: string;
  data: DomainHealthData;
  message: string | null;
}) {
  const { check, rates } = data;
  return (
    <SettingsPanel
      id="domain-health"
      title="Sender domain health"
      message={message}
      intro={
        <p className="mt-2">
          Whether DNS says receivers may trust this tenant's mail: SPF for the host Herald sends
          through, the DKIM record of each key Herald signs with, DMARC and its alignment with the
          From domain, and the MX records. Checked daily and whenever you ask.
        </p>
      }
    >
      <Form method="post" className="mt-4 flex flex-wrap items-center gap-4">
        <input type="hidden" name="tenantId" value={tenantId} />
        <SubmitButton name="intent" value="domain-health:check">
          Check now
        </SubmitButton>
        <p className="text-sm">
          {check ? (
            <>
              Last checked <StaffTime iso={check.checkedAt} />
              {check.trigger === "daily" ? " (daily check)" : ""}: From domain{" "}
              <code>{check.health.fromDomain}</code>, bounce domain{" "}
              <code>{check.health.bounceDomain}</code>
              {check.health.sendingHost ? (
                <>
                  , sending host <code>{check.health.sendingHost}</code>
                  {check.health.sendingIps.length &&
                  !check.health.sendingIps.includes(check.health.sendingHost)
                    ? ` (${check.health.sendingIps.join(", ")})`
                    : ""}
                </>
              ) : null}
              .
            </>
          ) : (
            "Not checked yet."
          )}
        </p>
      </Form>
      {check ? (
        <ul className="mt-4 space-y-4" data-testid="domain-records">
          {check.health.records.map((record) => (
            // Two DKIM keys: two records of one kind, at two names.
            <RecordItem key={`${record.key} ${record.name}`} record={record} />
          ))}
        </ul>
      ) : null}
      <Rates rates={rates} />
    </SettingsPanel>
  );
}

function RecordItem({ record }: { record: RecordCheck }) {
  return (
    <li
      className="rounded-brand border border-black/10 p-4"
      data-record={record.key}
      data-status={record.status}
      data-name={record.name}
    >
      <div className="flex flex-wrap items-baseline gap-x-3 gap-y-1">
        <h3 className="font-semibold">{record.label}</h3>
        <span
          className={`rounded-brand border px-2 py-0.5 text-sm font-semibold ${STATUS_CLASSES[record.status]}`}
        >
          {STATUS_LABELS[record.status]}
        </span>
        <code className="break-all text-sm">{`${record.type} ${record.name}`}</code>
      </div>
      <p className="mt-1">{record.detail}</p>
      {record.found.length > 0 ? (
        <div className="mt-1 text-sm">
          Found:{" "}
          {record.found.map((value) => (
            <code key={value} className="block break-all">
              {value}
            </code>
          ))}
        </div>
      ) : null}
      {record.fix ? (
        <dl
          className="mt-2 grid gap-x-4 gap-y-1 rounded-brand bg-black/5 p-3 text-sm sm:grid-cols-[8rem_1fr]"
          data-fix={record.key}
        >
          <dt className="font-semibold">Add this record</dt>
          <dd />
          <dt>Name</dt>
          <dd>
            <code className="break-all">{record.fix.name}</code>
          </dd>
          <dt>Type</dt>
          <dd>
            <code>{record.fix.type}</code>
          </dd>
          <dt>Value</dt>
          <dd>
            <code className="break-all" data-fix-value>
              {record.fix.value}
            </code>
          </dd>
        </dl>
      ) : null}
      {record.fixNote ? <p className="mt-2 text-sm font-medium">{record.fixNote}</p> : null}
    </li>
  );
}

function Rates({ rates }: { rates: SenderRates }) {
  return (
    <div className="mt-6" data-testid="sender-rates">
      <h3 className="font-semibold">Complaints and bounces, last 30 days</h3>
      <dl className="mt-2 grid gap-x-6 gap-y-2 sm:grid-cols-[12rem_1fr]">
        <dt className="font-semibold">Complaint rate</dt>
        <dd data-rate="complaints" data-status={rates.complaintStatus}>
          {`${percent(rates.complaintRate)} (${rates.complaints} of ${rates.delivered} delivered)`}
          <span className="block text-sm">
            {rates.complaintStatus === "over"
              ? "At or over Gmail's and Yahoo's limit of 0.3%: their filters will hold this tenant's mail back. Send only to people who asked, and make unsubscribing easy."
              : rates.complaintStatus === "high"
                ? "Under the 0.3% limit of Gmail and Yahoo, but over the 0.1% they ask senders to stay below."
                : "Gmail and Yahoo require bulk senders to stay under 0.3% (spam reports per message delivered), and ask for below 0.1%."}
          </span>
        </dd>
        <dt className="font-semibold">Bounce rate</dt>
        <dd data-rate="bounces" data-status={rates.bounceStatus}>
          {`${percent(rates.bounceRate)} (${rates.bounces} hard bounces)`}
          <span className="block text-sm">
            {rates.bounceStatus === "over"
              ? "Over 2%: clean the list (bounced addresses are suppressed already) and check how they were collected."
              : "Gmail and Yahoo publish no bounce limit; keep hard bounces under 2%, the common guidance. Bounced addresses are never mailed again."}
          </span>
        </dd>
      </dl>
    </div>
  );
}
