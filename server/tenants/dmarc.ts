import { type DnsLookup, normalDomain } from "./dns";
import type { DmarcSummary, DomainHealthInput, RecordCheck } from "./domain-health-types";

/**
 * DMARC for the sender domain check (RFC 7489; docs/decisions/048-sender-domain-health.md): the
 * policy record of the From domain or its organisational domain (found by RFC 9091's tree walk, no
 * public suffix list), its policy, and whether DKIM d= and the return path align with the From domain.
 */

export const DEFAULT_DMARC = "v=DMARC1; p=none; adkim=r; aspf=r";

/** `tag=value; …` as a map (DKIM and DMARC records), names in lower case. */
export function tagsOf(record: string): Map<string, string> {
  const tags = new Map<string, string>();
  for (const part of record.split(";")) {
    const at = part.indexOf("=");
    if (at > 0) tags.set(part.slice(0, at).trim().toLowerCase(), part.slice(at + 1).trim());
  }
  return tags;
}

/** DMARC identifier alignment (RFC 7489 §3.1): strict is the same name, relaxed the same organisation. */
export function aligned(domain: string, from: string, mode: "r" | "s", org: string | null) {
  const [a, b] = [normalDomain(domain), normalDomain(from)];
  if (a === b) return true;
  if (mode === "s") return false;
  const base = org ?? b;
  const under = (name: string) => name === base || name.endsWith(`.${base}`);
  return under(a) && under(b);
}

/** The From domain and its parents (at least two labels), nearest first: DMARC's tree walk. */
function walk(domain: string): string[] {
  const labels = domain.split(".");
  const names: string[] = [];
  for (let at = 0; labels.length - at >= 2 && names.length < 8; at++) {
    names.push(labels.slice(at).join("."));
  }
  return names.length ? names : [domain];
}

export async function dmarcCheck(
  dns: DnsLookup,
  input: DomainHealthInput,
  fromDomain: string,
): Promise<{ check: RecordCheck; summary: DmarcSummary }> {
  const found: { domain: string; record: string }[] = [];
  for (const domain of walk(fromDomain)) {
    const records = (await dns.txt(`_dmarc.${domain}`)).filter((value) =>
      /^v=DMARC1\s*(;|$)/i.test(value.trim()),
    );
    if (records.length === 1 && records[0]) found.push({ domain, record: records[0] });
  }
  const policyAt = found[0] ?? null;
  const orgDomain = found.at(-1)?.domain ?? null;
  const tags = tagsOf(policyAt?.record ?? "");
  const mode = (tag: string): "r" | "s" => (tags.get(tag)?.toLowerCase() === "s" ? "s" : "r");
  const adkim = mode("adkim");
  const aspf = mode("aspf");
  const policy =
    (policyAt && policyAt.domain !== fromDomain ? tags.get("sp") : undefined) ??
    tags.get("p") ??
    null;
  // Any signing key whose d= aligns will do: DMARC passes on one aligned, verified signature.
  const dkimDomains = [...new Set(input.dkim.map((key) => normalDomain(key.domain)))];
  const dkimAligned = dkimDomains.some((domain) => aligned(domain, fromDomain, adkim, orgDomain));
  const spfAligned = aligned(input.bounceDomain, fromDomain, aspf, orgDomain);
  const summary: DmarcSummary = {
    policy,
    policyDomain: policyAt?.domain ?? null,
    orgDomain,
    adkim,
    aspf,
    dkimAligned,
    spfAligned,
  };
  const name = `_dmarc.${policyAt?.domain ?? fromDomain}`;
  const base = {
    key: "dmarc" as const,
    label: "DMARC (policy and alignment)",
    name,
    type: "TXT" as const,
  };
  const foundText = policyAt ? [policyAt.record] : [];
  if (!policyAt) {
    return {
      summary,
      check: {
        ...base,
        found: [],
        status: "missing",
        detail: `No DMARC record for ${fromDomain}: Gmail and Yahoo require one of bulk senders.`,
        fix: { name, type: "TXT", value: DEFAULT_DMARC },
      },
    };
  }
  const alignment = [
    dkimDomains.length
      ? `DKIM ${dkimDomains
          .map(
            (domain) =>
              `d=${domain} ${aligned(domain, fromDomain, adkim, orgDomain) ? "aligned" : "not aligned"}`,
          )
          .join(", ")}`
      : "no DKIM signature",
    `return path ${input.bounceDomain} ${spfAligned ? "aligned" : "not aligned"}`,
  ].join("; ");
  const answer = (
    status: "ok" | "wrong",
    detail: string,
    fix: string | null,
    fixNote?: string,
  ) => ({
    summary,
    check: {
      ...base,
      found: foundText,
      status,
      detail,
      fix: fix === null ? null : { name, type: "TXT" as const, value: fix },
      ...(fixNote ? { fixNote } : {}),
    },
  });
  if (!policy || !["none", "quarantine", "reject"].includes(policy.toLowerCase())) {
    return answer(
      "wrong",
      `The record has no valid policy (p=${policy ?? ""}): receivers ignore it.`,
      withTag(policyAt.record, "p", "none"),
    );
  }
  if (!dkimAligned && !spfAligned) {
    const relaxedHelps =
      adkim === "s" && dkimDomains.some((domain) => aligned(domain, fromDomain, "r", orgDomain));
    return answer(
      "wrong",
      `p=${policy}, but nothing is aligned with the From domain ${fromDomain} (${alignment}): DMARC fails.`,
      relaxedHelps ? withTag(policyAt.record, "adkim", "r") : null,
      relaxedHelps
        ? undefined
        : `Generate the DKIM key for ${fromDomain} (DKIM signing on this page), or send from an address at ${dkimDomains.join(" or ") || "a domain with a DKIM key"}.`,
    );
  }
  return answer("ok", `p=${policy} (adkim=${adkim}, aspf=${aspf}); ${alignment}.`, null);
}

/** A DMARC record with one tag set (replaced where it is, else added after v=). */
function withTag(record: string, tag: string, value: string): string {
  const parts = record
    .split(";")
    .map((part) => part.trim())
    .filter(Boolean);
  const at = parts.findIndex((part) => part.toLowerCase().startsWith(`${tag}=`));
  if (at >= 0) parts[at] = `${tag}=${value}`;
  else parts.splice(1, 0, `${tag}=${value}`);
  return parts.join("; ");
}
