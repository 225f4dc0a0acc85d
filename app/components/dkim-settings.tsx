import type { DkimRecord, TenantDkim } from "../../server/tenants/dkim";
import {
  DKIM_ALGORITHM_LABELS,
  DKIM_ALGORITHMS,
  type DkimAlgorithm,
} from "../../shared/schemas/dkim";
import { StaffTime } from "../lib/time-zone";
import { TenantForm } from "./admin/tenant-form";
import {
  Checkbox,
  dangerSubmitClass,
  FieldShell,
  outlineButtonClass,
  SettingsPanel,
  SubmitButton,
  TextField,
} from "./ui/form";

const DKIM_TEXT_FIELDS = [
  {
    name: "selector",
    label: "Selector",
    hint: "A DNS label: letters, digits and hyphens.",
    maxLength: 63,
  },
  {
    name: "domain",
    label: "Signing domain",
    hint: "The domain of the sender address, unless you sign for another one.",
    maxLength: 253,
  },
] as const;

export interface DkimFormValues {
  selector: string;
  domain: string;
  algorithm: string;
}

/** The DKIM part of the tenant manager's email settings (issue 12, part 5). */
export function DkimSettings({
  tenantId,
  dkim,
  defaults,
  values,
  fields,
  message,
}: {
  tenantId: string;
  dkim: TenantDkim;
  defaults: DkimFormValues;
  /** what was submitted, when it was refused */
  values: DkimFormValues | null;
  fields: Record<string, string[]>;
  message: string | null;
}) {
  const shown = values ?? defaults;
  return (
    <SettingsPanel
      id="dkim"
      title="DKIM signing"
      message={message}
      intro={
        <p className="mt-2">
          With a key, every message of this tenant is signed (DKIM), so receivers can check that it
          comes from your domain. Publish the TXT record at your DNS host; without a key mail goes
          out unsigned. The private key stays on the server and is never shown.
        </p>
      }
    >
      {dkim.active.length === 0 ? (
        <p className="mt-4 font-semibold">No DKIM key: this tenant's mail goes out unsigned.</p>
      ) : (
        dkim.active.map((record) => (
          <KeyRecord
            key={record.selector}
            title={
              dkim.active.length > 1
                ? `Current ${DKIM_ALGORITHM_LABELS[record.algorithm]} key (signs this tenant's mail)`
                : "Current key (signs this tenant's mail)"
            }
            record={record}
          />
        ))
      )}
      {dkim.active.length > 1 ? (
        <p className="mt-2 text-sm">
          Every message carries both signatures, the RSA one first: receivers that do not verify
          Ed25519 yet check the RSA one (RFC 8463).
        </p>
      ) : null}

      {dkim.pending.map((record) => {
        const replaces = dkim.active.some((each) => each.algorithm === record.algorithm);
        return (
          <div className="mt-6" key={record.selector}>
            <KeyRecord
              title={
                replaces
                  ? `New ${DKIM_ALGORITHM_LABELS[record.algorithm]} key (waiting for its DNS record)`
                  : `Second key, ${DKIM_ALGORITHM_LABELS[record.algorithm]} (waiting for its DNS record)`
              }
              record={record}
            />
            <p className="mt-2 text-sm">
              {replaces
                ? "Publish this record beside the current one and wait until it resolves; then switch. Keep the old record published for a few days, so mail signed before the switch still verifies."
                : "Publish this record and wait until it resolves; then add it, and every message carries both signatures."}
            </p>
            <TenantForm tenantId={tenantId} className="mt-3 flex flex-wrap gap-3">
              <input type="hidden" name="algorithm" value={record.algorithm} />
              <SubmitButton name="intent" value="dkim:activate">
                {replaces ? "Switch to the new key" : "Sign with both keys"}
              </SubmitButton>
              <button
                type="submit"
                name="intent"
                value="dkim:discard"
                className={outlineButtonClass}
              >
                Discard the new key
              </button>
            </TenantForm>
          </div>
        );
      })}

      <TenantForm tenantId={tenantId} className="mt-6 space-y-4" noValidate>
        <h3 className="font-semibold">
          {dkim.active.length > 0 ? "Rotate or add a key: generate a new key" : "Generate a key"}
        </h3>
        <div className="grid gap-4 md:grid-cols-3">
          {DKIM_TEXT_FIELDS.map(({ name, ...field }) => (
            <TextField
              key={name}
              id={`dkim-${name}`}
              name={name}
              errors={fields[name]}
              defaultValue={shown[name]}
              spellCheck={false}
              autoComplete="off"
              {...field}
            />
          ))}
          <FieldShell
            id="dkim-algorithm"
            label="Key type"
            hint="RSA-2048 is verified everywhere. Ed25519 (RFC 8463) is shorter and faster, but not every receiver verifies it yet."
            errors={fields.algorithm}
          >
            <select
              id="dkim-algorithm"
              name="algorithm"
              aria-invalid={fields.algorithm ? true : undefined}
              aria-describedby="dkim-algorithm-hint dkim-algorithm-error"
              defaultValue={shown.algorithm}
              className="block w-full rounded-brand border border-black/30 bg-surface px-3 py-2"
            >
              {DKIM_ALGORITHMS.map((algorithm: DkimAlgorithm) => (
                <option key={algorithm} value={algorithm}>
                  {DKIM_ALGORITHM_LABELS[algorithm]}
                </option>
              ))}
            </select>
          </FieldShell>
        </div>
        <SubmitButton name="intent" value="dkim:generate">
          {dkim.active.length > 0 ? "Generate a new key" : "Generate key"}
        </SubmitButton>
        {dkim.active.length > 0 ? (
          <p className="text-sm">
            The new key waits beside the current one until you switch to it. A key of the type
            already signing replaces it; a key of the other type signs beside it, so every message
            carries an RSA and an Ed25519 signature.
          </p>
        ) : null}
      </TenantForm>

      {dkim.active.length > 1 ? (
        // Two keys sign: stop one of them; the other signs alone (remove it then to go unsigned).
        dkim.active.map(({ algorithm }) => {
          const other = dkim.active.find((each) => each.algorithm !== algorithm)?.algorithm;
          return (
            <TenantForm
              key={algorithm}
              tenantId={tenantId}
              className="mt-6 flex flex-wrap items-center gap-4"
            >
              <input type="hidden" name="algorithm" value={algorithm} />
              <Checkbox
                name="confirm"
                label={`Remove the ${DKIM_ALGORITHM_LABELS[algorithm]} key: the ${other ? DKIM_ALGORITHM_LABELS[other] : "other"} key signs this tenant's mail alone`}
              />
              <button type="submit" name="intent" value="dkim:remove" className={dangerSubmitClass}>
                {`Remove the ${algorithm === "rsa" ? "RSA" : DKIM_ALGORITHM_LABELS[algorithm]} key`}
              </button>
            </TenantForm>
          );
        })
      ) : dkim.active.length > 0 ? (
        <TenantForm tenantId={tenantId} className="mt-6 flex flex-wrap items-center gap-4">
          <Checkbox name="confirm" label="Remove the key: this tenant's mail goes out unsigned" />
          <button type="submit" name="intent" value="dkim:remove" className={dangerSubmitClass}>
            Remove DKIM key
          </button>
        </TenantForm>
      ) : null}
    </SettingsPanel>
  );
}

/** A zone-file line: TXT strings hold at most 255 characters each (RFC 1035 §3.3.14). */
function zoneFileLine(record: DkimRecord): string {
  const parts = record.recordValue.match(/.{1,255}/g) ?? [];
  return `${record.recordName}. IN TXT ( ${parts.map((part) => `"${part}"`).join(" ")} )`;
}

function KeyRecord({ title, record }: { title: string; record: DkimRecord }) {
  return (
    <div className="mt-4" data-dkim-record={record.selector}>
      <h3 className="font-semibold">{title}</h3>
      <dl className="mt-2 text-sm">
        <Row term="Selector">
          <code>{record.selector}</code>
        </Row>
        <Row term="Signing domain">
          <code>{record.domain}</code>
        </Row>
        <Row term="Key type">{DKIM_ALGORITHM_LABELS[record.algorithm]}</Row>
        <Row term="Record type">TXT</Row>
        <Row term="Record name">
          <code data-dkim="name">{record.recordName}</code>
        </Row>
        <Row term="Record value">
          <code data-dkim="value" className="break-all">
            {record.recordValue}
          </code>
        </Row>
        <Row term="Zone file">
          <code className="break-all">{zoneFileLine(record)}</code>
        </Row>
        <Row term="Generated">
          {record.createdBy} · <StaffTime iso={record.createdAt} />
        </Row>
      </dl>
    </div>
  );
}

function Row({ term, children }: { term: string; children: React.ReactNode }) {
  return (
    <div className="grid gap-1 border-b border-black/5 py-2 sm:grid-cols-4">
      <dt className="font-semibold">{term}</dt>
      <dd className="min-w-0 [overflow-wrap:anywhere] sm:col-span-3">{children}</dd>
    </div>
  );
}
