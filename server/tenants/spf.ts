import { BlockList, isIPv4, isIPv6 } from "node:net";
import type { DnsLookup } from "./dns";

/**
 * SPF as a receiver evaluates it (RFC 7208 §4–§6): does the domain's record authorise an address?
 * ip4, ip6, a, mx, include, exists, all and redirect=, with the limit of 10 DNS-querying terms
 * (include, a, mx, ptr, exists, redirect) and of 2 lookups that find nothing. Macros (%{…}) are not
 * expanded: such a term matches nothing, and the result says so.
 */

export type SpfResult = "pass" | "fail" | "softfail" | "neutral" | "none" | "permerror";

export interface SpfVerdict {
  result: SpfResult;
  /** why, in words, when it is not a plain pass or fail */
  reason?: string;
}

const QUALIFIERS: Record<string, SpfResult> = {
  "+": "pass",
  "-": "fail",
  "~": "softfail",
  "?": "neutral",
};

const LOOKUP_LIMIT = 10;
const VOID_LIMIT = 2;

class SpfPermError extends Error {}

/** The SPF records among a name's TXT records (there must be exactly one). */
export function spfRecords(txt: readonly string[]): string[] {
  return txt.filter((value) => /^v=spf1(\s|$)/i.test(value.trim()));
}

interface State {
  lookups: number;
  voids: number;
}

function countLookup(state: State) {
  state.lookups += 1;
  if (state.lookups > LOOKUP_LIMIT) {
    throw new SpfPermError(`more than ${LOOKUP_LIMIT} DNS lookups (RFC 7208 §4.6.4)`);
  }
}

function countVoid(state: State, found: number) {
  if (found > 0) return;
  state.voids += 1;
  if (state.voids > VOID_LIMIT) {
    throw new SpfPermError(`more than ${VOID_LIMIT} lookups found nothing (RFC 7208 §4.6.4)`);
  }
}

/** `target/len` of an a or mx term: the domain (or the current one) and the prefix lengths. */
function targetAndPrefixes(argument: string | undefined, current: string) {
  const match = /^([^/]*)(?:\/(\d{1,2}))?(?:\/\/(\d{1,3}))?$/.exec(argument ?? "");
  return {
    domain: match?.[1] || current,
    v4: match?.[2] ? Number(match[2]) : 32,
    v6: match?.[3] ? Number(match[3]) : 128,
  };
}

function inNetwork(ip: string, network: string, prefix: number): boolean {
  const family = isIPv4(network) ? "ipv4" : isIPv6(network) ? "ipv6" : null;
  if (!family || family !== (isIPv4(ip) ? "ipv4" : "ipv6")) return false;
  const list = new BlockList();
  list.addSubnet(network, prefix, family);
  return list.check(ip, family);
}

function anyInNetwork(ip: string, addresses: readonly string[], v4: number, v6: number) {
  return addresses.some((address) => inNetwork(ip, address, isIPv4(address) ? v4 : v6));
}

async function evaluate(
  dns: DnsLookup,
  ip: string,
  domain: string,
  state: State,
  notes: string[],
): Promise<SpfResult> {
  const records = spfRecords(await dns.txt(domain));
  if (records.length === 0) return "none";
  if (records.length > 1) throw new SpfPermError(`${domain} has ${records.length} SPF records`);
  const terms = (records[0] ?? "").trim().split(/\s+/).slice(1);
  let redirect: string | null = null;
  for (const term of terms) {
    const modifier = /^([a-z][a-z0-9_.-]*)=(.*)$/i.exec(term);
    if (modifier) {
      if (modifier[1]?.toLowerCase() === "redirect") redirect = modifier[2] ?? null;
      continue;
    }
    const match = /^([+\-~?]?)([a-z0-9]+)(?::(.*)|(\/.*))?$/i.exec(term);
    if (!match) throw new SpfPermError(`"${term}" is not an SPF term`);
    const result = QUALIFIERS[match[1] || "+"] ?? "pass";
    const name = (match[2] ?? "").toLowerCase();
    const argument = match[3] ?? match[4];
    if (argument?.includes("%")) {
      if (["include", "a", "mx", "ptr", "exists"].includes(name)) countLookup(state);
      notes.push(`"${term}" uses a macro, which this check does not expand`);
      continue;
    }
    if (await matches(dns, ip, domain, name, argument, state, notes)) return result;
  }
  if (redirect) {
    countLookup(state);
    const target = await evaluate(dns, ip, redirect, state, notes);
    if (target === "none") throw new SpfPermError(`redirect=${redirect} has no SPF record`);
    return target;
  }
  return "neutral";
}

async function matches(
  dns: DnsLookup,
  ip: string,
  domain: string,
  name: string,
  argument: string | undefined,
  state: State,
  notes: string[],
): Promise<boolean> {
  switch (name) {
    case "all":
      return true;
    case "ip4":
    case "ip6": {
      const [network = "", prefix] = (argument ?? "").split("/");
      const ok = name === "ip4" ? isIPv4(network) : isIPv6(network);
      if (!ok) throw new SpfPermError(`"${name}:${argument}" is not a network`);
      return inNetwork(ip, network, prefix ? Number(prefix) : name === "ip4" ? 32 : 128);
    }
    case "a": {
      countLookup(state);
      const target = targetAndPrefixes(argument, domain);
      const addresses = await dns.addresses(target.domain);
      countVoid(state, addresses.length);
      return anyInNetwork(ip, addresses, target.v4, target.v6);
    }
    case "mx": {
      countLookup(state);
      const target = targetAndPrefixes(argument, domain);
      const hosts = await dns.mx(target.domain);
      countVoid(state, hosts.length);
      if (hosts.length > LOOKUP_LIMIT) throw new SpfPermError(`${target.domain} has over 10 MX`);
      for (const host of hosts) {
        if (anyInNetwork(ip, await dns.addresses(host.exchange), target.v4, target.v6)) return true;
      }
      return false;
    }
    case "include": {
      countLookup(state);
      if (!argument) throw new SpfPermError("include without a domain");
      const inner = await evaluate(dns, ip, argument, state, notes);
      if (inner === "none") throw new SpfPermError(`include:${argument} has no SPF record`);
      if (inner === "permerror") throw new SpfPermError(`include:${argument} is broken`);
      return inner === "pass";
    }
    case "exists": {
      countLookup(state);
      const addresses = argument ? await dns.addresses(argument) : [];
      countVoid(state, addresses.length);
      return addresses.length > 0;
    }
    case "ptr":
      countLookup(state);
      notes.push("ptr is not evaluated (RFC 7208 §5.5: do not use it)");
      return false;
    default:
      throw new SpfPermError(`unknown mechanism "${name}"`);
  }
}

/** What `domain`'s SPF record says of mail from `ip`. */
export async function checkSpf(dns: DnsLookup, ip: string, domain: string): Promise<SpfVerdict> {
  const notes: string[] = [];
  try {
    const result = await evaluate(dns, ip, domain, { lookups: 0, voids: 0 }, notes);
    return notes.length ? { result, reason: notes.join("; ") } : { result };
  } catch (error) {
    if (error instanceof SpfPermError) return { result: "permerror", reason: error.message };
    throw error;
  }
}

/** The mechanism that authorises one address: ip4:… or ip6:… */
export function ipMechanism(ip: string): string {
  return isIPv6(ip) ? `ip6:${ip}` : `ip4:${ip}`;
}

/**
 * A record that authorises `ips` as well: the mechanisms added before the record's final `all`
 * (or at its end), or a new record ending in ~all.
 */
export function spfWithAddresses(existing: string | null, ips: readonly string[]): string {
  const added = ips.map(ipMechanism);
  if (!existing) return ["v=spf1", ...added, "~all"].join(" ");
  const terms = existing.trim().split(/\s+/);
  const allAt = terms.findIndex((term) => /^[+\-~?]?all$/i.test(term));
  const redirectAt = terms.findIndex((term) => /^redirect=/i.test(term));
  const at = allAt >= 0 ? allAt : redirectAt >= 0 ? redirectAt : terms.length;
  return [...terms.slice(0, at), ...added, ...terms.slice(at)].join(" ");
}
