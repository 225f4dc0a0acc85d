import { Resolver } from "node:dns/promises";
import { isIP } from "node:net";

/**
 * DNS for the sender domain check (docs/decisions/048-sender-domain-health.md): node:dns's
 * Resolver, pointed at DNS_SERVERS when set (the tests' local server; never the internet in tests),
 * with a timeout. "No such name" and "no record of that type" are answers (an empty list); a server
 * that does not answer is an error, so a check never calls a record missing it could not read.
 */

export class DnsUnavailableError extends Error {}

export interface DnsLookup {
  txt(name: string): Promise<string[]>;
  mx(name: string): Promise<{ priority: number; exchange: string }[]>;
  /** A and AAAA addresses of a host (an IP address answers itself) */
  addresses(name: string): Promise<string[]>;
}

const EMPTY_ANSWERS = new Set(["ENODATA", "ENOTFOUND", "ENONAME"]);

/** Timeout of one try, in milliseconds; two tries per question. */
const DNS_TIMEOUT_MS = 2_500;

export function dnsLookup(servers?: readonly string[]): DnsLookup {
  const resolver = new Resolver({ timeout: DNS_TIMEOUT_MS, tries: 2 });
  if (servers && servers.length > 0) resolver.setServers([...servers]);
  const ask = async <T>(name: string, type: string, query: () => Promise<T[]>): Promise<T[]> => {
    try {
      return await query();
    } catch (error) {
      const code = (error as { code?: string }).code ?? "";
      if (EMPTY_ANSWERS.has(code)) return [];
      throw new DnsUnavailableError(`The DNS server did not answer for ${type} ${name} (${code}).`);
    }
  };
  return {
    txt: async (name) =>
      (await ask(name, "TXT", () => resolver.resolveTxt(name))).map((parts) => parts.join("")),
    mx: (name) => ask(name, "MX", () => resolver.resolveMx(name)),
    async addresses(name) {
      if (isIP(name)) return [name];
      const [v4, v6] = await Promise.all([
        ask(name, "A", () => resolver.resolve4(name)),
        ask(name, "AAAA", () => resolver.resolve6(name)),
      ]);
      return [...v4, ...v6];
    },
  };
}

/** A domain name as compared: lower case, no final dot. */
export function normalDomain(name: string): string {
  return name.trim().toLowerCase().replace(/\.$/, "");
}
