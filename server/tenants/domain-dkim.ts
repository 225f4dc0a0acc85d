import type { DkimAlgorithm } from "../../shared/schemas/dkim";
import { tagsOf } from "./dmarc";
import type { DnsLookup } from "./dns";
import type { DkimKeyRecord, DomainHealthInput, RecordCheck } from "./domain-health-types";

/**
 * The DKIM part of the sender domain check (docs/decisions/048-sender-domain-health.md): one record
 * check per key, for every key that signs (an RSA and an Ed25519 key may sign side by side,
 * decision 049) and every new key waiting for its record. Each record must carry the key's p= and k=.
 */

type Asked = Pick<RecordCheck, "key" | "label" | "name" | "type">;

/** A record to check: what it is (also answered when DNS fails), and the check. */
export interface PlannedCheck {
  asked: Asked;
  run: (dns: DnsLookup) => Promise<RecordCheck>;
}

/** A key's algorithm in a label or a warning: "RSA key, selector s1". */
export const DKIM_KEY_NAMES: Record<DkimAlgorithm, string> = { rsa: "RSA", ed25519: "Ed25519" };

const ONE_KEY_LABEL = "DKIM (the key Herald signs with)";

/** A label per key: the algorithm is named when the tenant's keys are of two. */
export function dkimChecks(input: DomainHealthInput, fromDomain: string): PlannedCheck[] {
  const active = input.dkim;
  const pending = input.pendingDkim ?? [];
  const named = new Set([...active, ...pending].map((key) => key.algorithm)).size > 1;
  const algorithm = (key: DkimKeyRecord) => (named ? `${DKIM_KEY_NAMES[key.algorithm]} ` : "");
  const plan = (asked: Omit<Asked, "name" | "type">, key: DkimKeyRecord, which: string) => {
    const full = { ...asked, name: key.recordName, type: "TXT" as const };
    return { asked: full, run: (dns: DnsLookup) => keyRecordCheck(dns, key, full, which) };
  };
  const checks: PlannedCheck[] = active.map((key) =>
    plan(
      {
        key: "dkim",
        label: named ? `DKIM (${algorithm(key)}key, selector ${key.selector})` : ONE_KEY_LABEL,
      },
      key,
      named ? `the ${algorithm(key)}key` : "the active key",
    ),
  );
  if (active.length === 0) {
    const asked = {
      key: "dkim" as const,
      label: ONE_KEY_LABEL,
      name: `(selector)._domainkey.${fromDomain}`,
      type: "TXT" as const,
    };
    checks.push({
      asked,
      run: async () => ({
        ...asked,
        status: "missing",
        found: [],
        detail: "This tenant has no DKIM key: its mail goes out unsigned.",
        fix: null,
        fixNote:
          "Generate a key under DKIM signing on this page, then publish the record it shows.",
      }),
    });
  }
  for (const key of pending) {
    // A rotation's key replaces the signing key of its algorithm; another algorithm's signs beside.
    const rotation = active.some((signing) => signing.algorithm === key.algorithm);
    checks.push(
      plan(
        {
          key: "dkim-pending",
          label: `DKIM of the new ${algorithm(key)}key (publish before you ${rotation ? "switch" : "add it"})`,
        },
        key,
        `the new ${algorithm(key)}key`,
      ),
    );
  }
  return checks;
}

/** The TXT record at a key's selector: is it the key (its p= and k=)? */
async function keyRecordCheck(
  dns: DnsLookup,
  key: DkimKeyRecord,
  asked: Asked,
  which: string,
): Promise<RecordCheck> {
  const found = (await dns.txt(key.recordName)).filter((value) => tagsOf(value).has("p"));
  const fix = { name: key.recordName, type: "TXT" as const, value: key.recordValue };
  const wanted = tagsOf(key.recordValue);
  const same = (value: string) => {
    const tags = tagsOf(value);
    return (
      (tags.get("p") ?? "").replace(/\s+/g, "") === wanted.get("p") &&
      (tags.get("k") ?? "rsa").toLowerCase() === wanted.get("k")
    );
  };
  const common = { ...asked, found };
  if (found.length === 0) {
    return {
      ...common,
      status: "missing",
      detail: `No DKIM record at selector ${key.selector}: receivers cannot verify ${which}'s signatures.`,
      fix,
    };
  }
  if (!found.some(same)) {
    return {
      ...common,
      status: "wrong",
      detail: `The record at selector ${key.selector} is not ${which}: its signatures fail.`,
      fix,
    };
  }
  return {
    ...common,
    status: "ok",
    detail: `Matches ${which} (selector ${key.selector}, d=${key.domain}).`,
    fix: null,
  };
}
