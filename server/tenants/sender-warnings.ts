import { domainOfAddress } from "../../shared/schemas/dkim";
import type { Db } from "../db";
import { getEnv } from "../env";
import { tenantDkim } from "./dkim";
import { aligned } from "./dmarc";
import { normalDomain } from "./dns";
import { readDomainCheck } from "./domain-checks";

/**
 * What the review screen warns of before a campaign goes out (issue 36, target 5): mail that would
 * go out unsigned (no DKIM key, or its record missing or not matching at the last check) or
 * unaligned (the From domain not aligned with DKIM d= under the domain's DMARC rules). Read from the
 * tenant's key and its last stored check (server/tenants/domain-checks.ts): no DNS at review time.
 */
export async function senderDomainWarnings(
  root: Db,
  tenantId: string,
  fromAddress: string,
): Promise<string[]> {
  const from = normalDomain(domainOfAddress(fromAddress));
  const [
    {
      active: [active],
    },
    stored,
  ] = await Promise.all([tenantDkim(root, tenantId), readDomainCheck(root, tenantId)]);
  const warnings: string[] = [];
  if (!active) {
    return [
      "This campaign would go out unsigned: the tenant has no DKIM key (tenant manager, DKIM signing). Gmail and Yahoo expect bulk mail to be signed.",
    ];
  }
  const health = stored?.health;
  const sameKey =
    health?.dkim?.selector === active.selector && health.dkim.domain === active.domain;
  const dkimRecord = sameKey ? health?.records.find((record) => record.key === "dkim") : undefined;
  if (dkimRecord && (dkimRecord.status === "missing" || dkimRecord.status === "wrong")) {
    warnings.push(
      `This campaign would go out effectively unsigned: at the last check (${stored?.checkedAt.slice(0, 10)}) the DKIM record at ${active.recordName} was ${dkimRecord.status === "missing" ? "missing" : "not the key Herald signs with"}, so receivers cannot verify the signature.`,
    );
  }
  const dmarc = health && health.fromDomain === from ? health.dmarc : null;
  const d = normalDomain(active.domain);
  const org = dmarc?.orgDomain ?? (from.endsWith(`.${d}`) ? d : null);
  const adkim = dmarc?.adkim ?? "r";
  if (!aligned(d, from, adkim, org)) {
    const returnPath = getEnv().BOUNCE_DOMAIN;
    const spfAligned = aligned(returnPath, from, dmarc?.aspf ?? "r", org);
    warnings.push(
      `This campaign would go out unaligned: its From domain ${from} is not aligned with the DKIM signature's d=${d}${adkim === "s" ? " (DMARC asks for strict alignment)" : ""}${spfAligned ? "" : `, nor with the return path ${returnPath}, so DMARC fails`}. Send from an address at ${d}, or generate a DKIM key for ${from}.`,
    );
  }
  return warnings;
}
