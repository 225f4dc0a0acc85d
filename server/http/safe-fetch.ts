import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { BlockList, isIP, type LookupFunction } from "node:net";

/*
 * The server fetching an address someone else wrote (an archive's images, a bookmark's page): the
 * URL must not reach this machine or its private network (SSRF). The host is resolved and every
 * address it resolves to is checked, and the connection goes to the address that was checked (no
 * second lookup a rebinding DNS could answer differently); each redirect is checked again. Only
 * http and https, within a size limit and one deadline for the whole fetch (connecting, each
 * redirect, the headers and the body together: a server dripping a byte at a time is cut off at
 * it, issue 44 finding 4). Private addresses are allowed only when the
 * caller says so (IMPORT_ALLOW_PRIVATE_HOSTS=true: the tests serve pages from loopback).
 */

const FETCH_TIMEOUT_MS = 15_000;
const MAX_REDIRECTS = 3;

/** A fetch refused or failed: the message says why, after "it" ("it redirects too often"). */
export class FetchRefused extends Error {}

export interface FetchLimits {
  allowPrivate: boolean;
  userAgent: string;
  /** the Accept header */
  accept: string;
  /** the Content-Type the answer must have, and what to say when it has another */
  type: RegExp;
  typeProblem: string;
  maxBytes: number;
  /** "5 MB": in the message when the answer is larger */
  maxSize: string;
  /** the deadline of the whole fetch, redirects and body included */
  timeoutMs?: number;
}

const PRIVATE = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  PRIVATE.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
  ["64:ff9b::", 96],
] as const) {
  PRIVATE.addSubnet(network, prefix, "ipv6");
}

/** Whether an address is loopback, private, link-local or otherwise not on the public internet. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return PRIVATE.check(address, "ipv4");
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
    if (mapped) return PRIVATE.check(mapped, "ipv4");
    return PRIVATE.check(address, "ipv6");
  }
  return true;
}

const REFUSED =
  "its address is on a private network (set IMPORT_ALLOW_PRIVATE_HOSTS=true to allow)";

/** A lookup that answers only with addresses allowed, so the socket connects to a checked one. */
function checkedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, "", 4);
      const list = addresses as LookupAddress[];
      const bad = list.find((each) => isPrivateAddress(each.address));
      if (list.length === 0) return callback(new Error("no address"), "", 4);
      if (bad && !allowPrivate) return callback(new FetchRefused(REFUSED), "", 4);
      if ((options as { all?: boolean }).all) return callback(null, list);
      const first = list[0] as LookupAddress;
      callback(null, first.address, first.family);
    });
  };
}

function get(url: URL, allowPrivate: boolean, limits: FetchLimits, signal: AbortSignal) {
  const literal = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(literal) && isPrivateAddress(literal) && !allowPrivate) {
    return Promise.reject(new FetchRefused(REFUSED));
  }
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise<IncomingMessage>((resolve, reject) => {
    const request = send(
      url,
      {
        method: "GET",
        lookup: checkedLookup(allowPrivate),
        headers: { "user-agent": limits.userAgent, accept: limits.accept },
        signal,
      },
      resolve,
    );
    request.on("error", reject);
    request.end();
  });
}

/** The bytes at an address on the web, within the limits; FetchRefused when refused or failed. */
export async function fetchOutside(
  address: string,
  limits: FetchLimits,
): Promise<{ bytes: Uint8Array; url: URL; contentType: string }> {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    throw new FetchRefused("its address is not a URL");
  }
  const timeoutMs = limits.timeoutMs ?? FETCH_TIMEOUT_MS;
  const late = new FetchRefused(`it took longer than ${seconds(timeoutMs)}`);
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(late), timeoutMs);
  try {
    return await fetchWithin(url, limits, deadline.signal);
  } catch (error) {
    throw deadline.signal.aborted ? late : error;
  } finally {
    clearTimeout(timer);
  }
}

function seconds(ms: number): string {
  const value = Math.round(ms / 100) / 10;
  return `${value} second${value === 1 ? "" : "s"}`;
}

async function fetchWithin(url: URL, limits: FetchLimits, signal: AbortSignal) {
  for (let redirects = 0; ; redirects++) {
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new FetchRefused("only http and https addresses are fetched");
    }
    let response: IncomingMessage;
    try {
      response = await get(url, limits.allowPrivate, limits, signal);
    } catch (error) {
      if (error instanceof FetchRefused) throw error;
      throw new FetchRefused(`it could not be reached (${(error as Error).message})`);
    }
    const status = response.statusCode ?? 0;
    if (status >= 300 && status < 400 && response.headers.location) {
      response.resume();
      if (redirects >= MAX_REDIRECTS) throw new FetchRefused("it redirects too often");
      url = new URL(response.headers.location, url);
      continue;
    }
    if (status !== 200) {
      response.resume();
      throw new FetchRefused(`its server answered ${status}`);
    }
    const contentType = response.headers["content-type"] ?? "";
    if (!limits.type.test(contentType)) {
      response.resume();
      throw new FetchRefused(`${limits.typeProblem} (${contentType || "no type"})`);
    }
    const tooLarge = `it is larger than ${limits.maxSize}`;
    if (Number(response.headers["content-length"] ?? 0) > limits.maxBytes) {
      response.destroy();
      throw new FetchRefused(tooLarge);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    // The deadline ends the body too (the request's signal alone may leave it waiting).
    const stop = () => response.destroy(signal.reason as Error);
    signal.addEventListener("abort", stop, { once: true });
    try {
      for await (const chunk of response) {
        size += (chunk as Buffer).length;
        if (size > limits.maxBytes) {
          response.destroy();
          throw new FetchRefused(tooLarge);
        }
        chunks.push(chunk as Buffer);
      }
    } catch (error) {
      if (error instanceof FetchRefused) throw error;
      throw new FetchRefused(`its download broke off (${(error as Error).message})`);
    } finally {
      signal.removeEventListener("abort", stop);
    }
    return { bytes: new Uint8Array(Buffer.concat(chunks)), url, contentType };
  }
}
