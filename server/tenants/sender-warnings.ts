import { domainOfAddress } from "../../shared/schemas/dkim";
import type { Db } from "../db";
import { getEnv } from "../env";
import { tenantDkim } from "./dkim";
import { aligned } from "./dmarc";
import { normalDomain } from "./dns";
import { readDomainCheck } from "./domain-checks";
import { DKIM_KEY_NAMES } from "./domain-dkim";

/**
 * What the review screen warns of before a campaign goes out (issue 36, target 5): mail that would
 * go out unsigned (no DKIM key, or every key's record missing or not matching at the last check),
 * partly unverifiable (one of two keys' records so) or unaligned (the From domain aligned with no
 * signing key's d= under the domain's DMARC rules). Read from the tenant's keys and its last stored
 * check (server/tenants/domain-checks.ts): no DNS at review time.
 */
export async function senderDomainWarnings(
  root: Db,
  tenantId: string,
  fromAddress: string,
): Promise<string[]> {
  const from = normalDomain(domainOfAddress(fromAddress));
  const [{ active }, stored] = await Promise.all([
    tenantDkim(root, tenantId),
    readDomainCheck(root, tenantId),
  ]);
  if (active.length === 0) {
    return [
      "This campaign would go out unsigned: the tenant has no DKIM key (tenant manager, DKIM signing). Gmail and Yahoo expect bulk mail to be signed.",
    ];
  }
  const warnings: string[] = [];
  const when = stored?.checkedAt.slice(0, 10);
  // A key's record at the last check: the check whose fix is this very record (name and value),
  // so a key checked while it was a rotation's new key counts, and another key at the same
  // selector does not.
  const failing = active.flatMap((key) => {
    const record = stored?.health.records.find(
      (check) =>
        (check.status === "missing" || check.status === "wrong") &&
        check.fix?.name === key.recordName &&
        check.fix.value === key.recordValue,
    );
    if (!record) return [];
    const what = record.status === "missing" ? "missing" : "not the key Herald signs with";
    return [{ key, said: `the DKIM record at ${key.recordName} was ${what}` }];
  });
  if (failing.length > 0 && failing.length === active.length) {
    warnings.push(
      `This campaign would go out effectively unsigned: at the last check (${when}) ${failing.map((f) => f.said).join(", and ")}, so receivers cannot verify ${failing.length > 1 ? "either signature" : "the signature"}.`,
    );
  } else {
    for (const { key, said } of failing) {
      const others = active
        .filter((other) => other !== key)
        .map((other) => DKIM_KEY_NAMES[other.algorithm]);
      warnings.push(
        `One of this campaign's DKIM signatures cannot be verified: at the last check (${when}) ${said}. Receivers that read only its ${DKIM_KEY_NAMES[key.algorithm]} signature treat it as unsigned; only its ${others.join(" and ")} signature can pass.`,
      );
    }
  }
  const dmarc = stored?.health.fromDomain === from ? stored.health.dmarc : null;
  const adkim = dmarc?.adkim ?? "r";
  const domains = [...new Set(active.map((key) => normalDomain(key.domain)))];
  const orgOf = (d: string) => dmarc?.orgDomain ?? (from.endsWith(`.${d}`) ? d : null);
  if (!domains.some((d) => aligned(d, from, adkim, orgOf(d)))) {
    const returnPath = getEnv().BOUNCE_DOMAIN;
    const spfAligned = aligned(returnPath, from, dmarc?.aspf ?? "r", orgOf(domains[0] ?? from));
    const signatures =
      domains.length > 1
        ? `any DKIM signature's d= (${domains.join(", ")})`
        : `the DKIM signature's d=${domains[0]}`;
    warnings.push(
      `This campaign would go out unaligned: its From domain ${from} is not aligned with ${signatures}${adkim === "s" ? " (DMARC asks for strict alignment)" : ""}${spfAligned ? "" : `, nor with the return path ${returnPath}, so DMARC fails`}. Send from an address at ${domains.join(" or ")}, or generate a DKIM key for ${from}.`,
    );
  }
  return warnings;
}
