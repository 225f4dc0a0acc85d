import { dmarcCheck } from "./dmarc";
import { type DnsLookup, DnsUnavailableError, normalDomain } from "./dns";
import { dkimChecks } from "./domain-dkim";
import type {
  DmarcSummary,
  DomainHealth,
  DomainHealthInput,
  RecordCheck,
} from "./domain-health-types";
import { checkSpf, spfRecords, spfWithAddresses } from "./spf";

/**
 * A tenant's sender domain checked against DNS (issue 36, target 5;
 * docs/decisions/048-sender-domain-health.md): SPF of the From domain and of the bounce (VERP)
 * domain against the host Herald sends through, the DKIM record of every key Herald signs with and
 * of every new key waiting to (domain-dkim.ts), DMARC (policy, alignment of DKIM d= and the return path with the From
 * domain) and the MX records. Each record: ok, missing or wrong, what was found, and the exact record
 * to add. What reads the tenant and stores the answer: server/tenants/domain-checks.ts.
 */

export type * from "./domain-health-types";

function spfCheck(
  key: "spf" | "bounce-spf",
  label: string,
  domain: string,
  ips: readonly string[],
  sendingHost: string | null,
) {
  return async (dns: DnsLookup): Promise<RecordCheck> => {
    const found = spfRecords(await dns.txt(domain));
    const base = { key, label, name: domain, type: "TXT" as const, found };
    const fix = (existing: string | null, add: readonly string[]) => ({
      name: domain,
      type: "TXT" as const,
      value: spfWithAddresses(existing, add),
    });
    if (!sendingHost || ips.length === 0) {
      const why = sendingHost
        ? `The sending host ${sendingHost} has no address in DNS, so nothing can be checked against it.`
        : "Without SMTP_URL mail stays in the outbox: there is no sending host to check.";
      return {
        ...base,
        status: found.length === 1 ? "ok" : found.length === 0 ? "missing" : "wrong",
        detail: why,
        fix: null,
        fixNote: "Set SMTP_URL to the relay Herald sends through, then check again.",
      };
    }
    if (found.length === 0) {
      return {
        ...base,
        status: "missing",
        detail: `No SPF record: receivers cannot tell that ${sendingHost} may send for ${domain}.`,
        fix: fix(null, ips),
      };
    }
    if (found.length > 1) {
      return {
        ...base,
        status: "wrong",
        detail: `${found.length} SPF records: receivers treat that as an error (permerror). Keep one.`,
        fix: fix(found[0] ?? null, ips),
        fixNote: "Put this record in place of all of them.",
      };
    }
    const failing: string[] = [];
    const reasons: string[] = [];
    for (const ip of ips) {
      const verdict = await checkSpf(dns, ip, domain);
      if (verdict.result !== "pass") {
        failing.push(ip);
        reasons.push(`${verdict.result} for ${ip}${verdict.reason ? ` (${verdict.reason})` : ""}`);
      }
    }
    if (failing.length === 0) {
      return {
        ...base,
        status: "ok",
        detail: `Authorises ${ips.includes(sendingHost) ? sendingHost : `${sendingHost} (${ips.join(", ")})`}.`,
        fix: null,
      };
    }
    const tooMany = reasons.some((reason) => reason.includes("DNS lookups"));
    return {
      ...base,
      status: "wrong",
      detail: `Does not authorise ${sendingHost}: SPF says ${reasons.join("; ")}.`,
      fix: tooMany ? null : fix(found[0] ?? null, failing),
      ...(tooMany
        ? {
            fixNote:
              "Replace some include: terms with the addresses they stand for (at most 10 lookups), and add the sending host's addresses.",
          }
        : {}),
    };
  };
}

function mxCheck(key: "mx" | "bounce-mx", domain: string, input: DomainHealthInput) {
  return async (dns: DnsLookup): Promise<RecordCheck> => {
    const hosts = await dns.mx(domain);
    const found = hosts.map((host) => `${host.priority} ${host.exchange}`);
    const bounce = key === "bounce-mx";
    const base = {
      key,
      label: bounce ? "MX of the bounce (VERP) domain" : "MX of the From domain",
      name: domain,
      type: "MX" as const,
      found,
    };
    const fix = bounce
      ? { name: domain, type: "MX" as const, value: `10 ${input.bounceMxHost}.` }
      : null;
    if (hosts.length === 0) {
      return {
        ...base,
        status: "missing",
        detail: bounce
          ? "No MX: bounce and complaint reports sent to bounces+…@ this domain never reach Herald."
          : `No MX: ${domain} receives no mail, and receivers distrust mail from a domain that takes none.`,
        fix,
        ...(bounce
          ? {}
          : { fixNote: `Add the MX record of the mail service that receives ${domain}'s mail.` }),
      };
    }
    for (const host of hosts) {
      if (host.exchange === "" || host.exchange === ".") continue;
      if ((await dns.addresses(host.exchange)).length === 0) {
        return {
          ...base,
          status: "wrong",
          detail: `The MX host ${host.exchange} has no address in DNS.`,
          fix,
          ...(bounce ? {} : { fixNote: `Point the MX at a host that receives ${domain}'s mail.` }),
        };
      }
    }
    return {
      ...base,
      status: "ok",
      detail: `Mail for ${domain} goes to ${found.join(", ")}.`,
      fix: null,
    };
  };
}

/** Checks every record of the input's domains; a record DNS could not be asked about is "unchecked". */
export async function checkDomainHealth(
  dns: DnsLookup,
  input: DomainHealthInput,
  now = new Date(),
): Promise<DomainHealth> {
  const fromDomain = normalDomain(input.fromAddress.split("@").pop() ?? "");
  const bounceDomain = normalDomain(input.bounceDomain);
  const sendingIps = input.sendingHost
    ? await dns.addresses(input.sendingHost).catch(() => [] as string[])
    : [];
  const unchecked = (
    partial: Pick<RecordCheck, "key" | "label" | "name" | "type">,
    error: unknown,
  ) => ({
    ...partial,
    status: "unchecked" as const,
    found: [],
    detail: error instanceof DnsUnavailableError ? error.message : "The check failed.",
    fix: null,
  });
  const guarded = async (
    partial: Pick<RecordCheck, "key" | "label" | "name" | "type">,
    run: (dns: DnsLookup) => Promise<RecordCheck>,
  ) => run(dns).catch((error: unknown) => unchecked(partial, error));
  const spf = guarded(
    { key: "spf", label: "SPF of the From domain", name: fromDomain, type: "TXT" },
    spfCheck("spf", "SPF of the From domain", fromDomain, sendingIps, input.sendingHost),
  );
  const bounceSpf =
    bounceDomain === fromDomain
      ? null
      : guarded(
          {
            key: "bounce-spf",
            label: "SPF of the bounce (VERP) domain",
            name: bounceDomain,
            type: "TXT",
          },
          spfCheck(
            "bounce-spf",
            "SPF of the bounce (VERP) domain",
            bounceDomain,
            sendingIps,
            input.sendingHost,
          ),
        );
  const dkim = dkimChecks(input, fromDomain).map(({ asked, run }) => guarded(asked, run));
  let summary: DmarcSummary = {
    policy: null,
    policyDomain: null,
    orgDomain: null,
    adkim: "r",
    aspf: "r",
    dkimAligned: false,
    spfAligned: false,
  };
  const dmarc = guarded(
    {
      key: "dmarc",
      label: "DMARC (policy and alignment)",
      name: `_dmarc.${fromDomain}`,
      type: "TXT",
    },
    async (lookup) => {
      const answer = await dmarcCheck(lookup, input, fromDomain);
      summary = answer.summary;
      return answer.check;
    },
  );
  // One domain for both: its MX is the bounce domain's (it must reach Herald's listener).
  const mx =
    bounceDomain === fromDomain
      ? null
      : guarded(
          { key: "mx", label: "MX of the From domain", name: fromDomain, type: "MX" },
          mxCheck("mx", fromDomain, input),
        );
  const bounceMx = guarded(
    { key: "bounce-mx", label: "MX of the bounce (VERP) domain", name: bounceDomain, type: "MX" },
    mxCheck("bounce-mx", bounceDomain, input),
  );
  const records = (await Promise.all([spf, bounceSpf, ...dkim, dmarc, mx, bounceMx])).filter(
    (check): check is RecordCheck => check !== null,
  );
  return {
    checkedAt: now.toISOString(),
    fromDomain,
    bounceDomain,
    sendingHost: input.sendingHost,
    sendingIps,
    dkim: input.dkim.map(({ selector, domain, algorithm }) => ({ selector, domain, algorithm })),
    dmarc: summary,
    records,
  };
}
