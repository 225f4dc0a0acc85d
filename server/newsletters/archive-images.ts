import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { BlockList, isIP, type LookupFunction } from "node:net";

/*
 * Images of imported posts are fetched from where the old platform kept them and copied into
 * Herald's store (the upload path: server/files/images.ts). An import names URLs that someone
 * else wrote, and the server fetches them: a URL must not reach this machine or its private
 * network (SSRF). The host is resolved and every address it resolves to is checked, and the
 * connection goes to the address that was checked (no second lookup a rebinding DNS could answer
 * differently); each redirect is checked again. Private addresses are allowed only by
 * IMPORT_ALLOW_PRIVATE_HOSTS=true (the tests serve images from loopback).
 */

/** The same limit as an upload (server/files/images.ts, MAX_IMAGE_BYTES). */
export const MAX_FETCHED_IMAGE_BYTES = 5 * 1024 * 1024;
const FETCH_TIMEOUT_MS = 15_000;
const MAX_REDIRECTS = 3;
const IMAGE_TYPES = /^image\/(png|jpe?g|gif|webp)\b/i;

/** An image that could not be copied: the import goes on, and the report says why. */
export class ImageFetchError extends Error {}

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
      if (bad && !allowPrivate) return callback(new ImageFetchError(REFUSED), "", 4);
      if ((options as { all?: boolean }).all) return callback(null, list);
      const first = list[0] as LookupAddress;
      callback(null, first.address, first.family);
    });
  };
}

function get(url: URL, allowPrivate: boolean): Promise<IncomingMessage> {
  const literal = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(literal) && isPrivateAddress(literal) && !allowPrivate) {
    return Promise.reject(new ImageFetchError(REFUSED));
  }
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send(
      url,
      {
        method: "GET",
        lookup: checkedLookup(allowPrivate),
        headers: { "user-agent": "Herald archive import", accept: "image/*" },
        timeout: FETCH_TIMEOUT_MS,
      },
      resolve,
    );
    request.on("timeout", () => request.destroy(new ImageFetchError("it took too long")));
    request.on("error", reject);
    request.end();
  });
}

/** The bytes of an image on the web, within the limits; ImageFetchError when refused or failed. */
export async function fetchImage(
  address: string,
  options: { allowPrivate: boolean },
): Promise<Uint8Array> {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    throw new ImageFetchError("its address is not a URL");
  }
  for (let redirects = 0; ; redirects++) {
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new ImageFetchError("only http and https addresses are fetched");
    }
    let response: IncomingMessage;
    try {
      response = await get(url, options.allowPrivate);
    } catch (error) {
      if (error instanceof ImageFetchError) throw error;
      throw new ImageFetchError(`it could not be reached (${(error as Error).message})`);
    }
    const status = response.statusCode ?? 0;
    if (status >= 300 && status < 400 && response.headers.location) {
      response.resume();
      if (redirects >= MAX_REDIRECTS) throw new ImageFetchError("it redirects too often");
      url = new URL(response.headers.location, url);
      continue;
    }
    if (status !== 200) {
      response.resume();
      throw new ImageFetchError(`its server answered ${status}`);
    }
    const type = response.headers["content-type"] ?? "";
    if (!IMAGE_TYPES.test(type)) {
      response.resume();
      throw new ImageFetchError(`it is not a PNG, JPEG, GIF or WebP image (${type || "no type"})`);
    }
    const declared = Number(response.headers["content-length"] ?? 0);
    if (declared > MAX_FETCHED_IMAGE_BYTES) {
      response.destroy();
      throw new ImageFetchError("it is larger than 5 MB");
    }
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of response) {
        size += (chunk as Buffer).length;
        if (size > MAX_FETCHED_IMAGE_BYTES) {
          response.destroy();
          throw new ImageFetchError("it is larger than 5 MB");
        }
        chunks.push(chunk as Buffer);
      }
    } catch (error) {
      if (error instanceof ImageFetchError) throw error;
      throw new ImageFetchError(`its download broke off (${(error as Error).message})`);
    }
    return new Uint8Array(Buffer.concat(chunks));
  }
}
