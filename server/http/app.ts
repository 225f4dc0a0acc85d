import { randomBytes, randomUUID } from "node:crypto";
import { Readable, Transform } from "node:stream";
import * as build from "virtual:react-router/server-build";
import { createReadableStreamFromReadable } from "@react-router/node";
import express, { type NextFunction, type Request, type Response } from "express";
import proxyaddr from "proxy-addr";
import { createRequestHandler, RouterContextProvider } from "react-router";
import { readCookieHeader, SESSION_COOKIE } from "../auth/sessions";
import { tenantDb } from "../db/tenant-guard";
import { getEnv, trustProxySetting } from "../env";
import { MiB, memoryCache, stringBytes } from "../memory-cache";
import { countPageCache, observeRequest } from "../metrics";
import {
  classifyView,
  countNewsletterView,
  newsletterSlugFromPath,
  noteViewSource,
  VIEW_MARKERS,
  VIEW_SENTINEL,
  viewCountValues,
  viewOriginOf,
} from "../newsletters/page-views";
import { getRuntime, stopRuntime } from "../runtime";
import { onListsChanged } from "../subscribers/lists";
import { isLocalHost, resolveTenantId } from "../tenants/resolve";
import { getTenant, getTenantDirectory, onTenantChanged } from "../tenants/store";
import { type RequestScope, requestContext } from "./context";
import { responseBody } from "./document";
import { publicOrigin } from "./origin";
import {
  type CachedPage,
  DEFAULT_PAGE_CACHE_MB,
  PAGE_CACHE_HEADER,
  PageCache,
  pageCacheAddress,
  pageChunks,
  splitPage,
} from "./page-cache";
import { routeTables } from "./route-tables";
import { limitBodySize, maxBodyBytesFor, refuseCrossSiteWrites, securityHeaders } from "./security";
import { limitTenantApi } from "./tenant-api-limit";

/**
 * The Express app that serves Herald: security headers, tenant resolution, the anonymous page
 * cache, then React Router. server.js mounts it behind static assets (and Vite in development).
 */
const production = process.env.NODE_ENV === "production";
const SUBDOMAIN_COOKIE = "herald_subdomain";

// The build object itself, not a function returning it: given a function, React Router rebuilds
// its route table on every request (measured: 7.9 → 5.2 ms of CPU per newsletter page). One
// handler per first path segment, each over the routes that segment can match (decision 036).
const requestHandlerFor = routeTables(build, (table) =>
  createRequestHandler(table, process.env.NODE_ENV),
);

export const pageCache = new PageCache({
  maxBytes: (getEnv().PAGE_CACHE_MB ?? DEFAULT_PAGE_CACHE_MB) * MiB,
});
onTenantChanged((tenantId) => pageCache.dropTenant(tenantId));
// Marketing pages carry the sign-up form, which offers the tenant's lists.
onListsChanged((tenantId) => pageCache.dropTenant(tenantId));

/**
 * 128 bits of CSP nonce per response, cut from a pool of random bytes: one call into the system's
 * random source per 256 responses instead of one per response (measured on the cached page).
 */
const NONCE_BYTES = 16;
let noncePool = Buffer.alloc(0);
let noncePoolOffset = 0;
function nextNonce(): string {
  if (noncePoolOffset + NONCE_BYTES > noncePool.length) {
    noncePool = randomBytes(NONCE_BYTES * 256);
    noncePoolOffset = 0;
  }
  noncePoolOffset += NONCE_BYTES;
  return noncePool.toString("base64", noncePoolOffset - NONCE_BYTES, noncePoolOffset);
}

export const app = express();
app.disable("x-powered-by");
// Whose X-Forwarded-* headers count (TRUST_PROXY): the client address decides every rate limit.
app.set("trust proxy", rememberedTrust(trustProxySetting(getEnv().TRUST_PROXY)));

app.use((req, res, next) => {
  res.locals.startedAt = performance.now();
  res.locals.nonce = nextNonce();
  res.locals.requestId = req.get("x-request-id")?.slice(0, 64) || randomUUID();
  res.set("x-request-id", res.locals.requestId);
  next();
});
app.use(securityHeaders(production));
app.use(limitBodySize);
app.use(refuseCrossSiteWrites);

app.use(async (req, res, next) => {
  try {
    const runtime = await getRuntime();
    const directory = await getTenantDirectory(runtime.db);
    const host = req.get("host") ?? "localhost";
    const param = typeof req.query.subdomain === "string" ? req.query.subdomain : null;
    const tenantId = resolveTenantId(
      { host, subdomainParam: param, subdomainCookie: readCookie(req, SUBDOMAIN_COOKIE) },
      directory,
    );
    // On localhost the chosen tenant is remembered while browsing (DESIGN.md §3).
    if (param !== null && isLocalHost(host)) {
      res.cookie(SUBDOMAIN_COOKIE, tenantId, { httpOnly: true, sameSite: "lax", path: "/" });
    }
    const tenant = await getTenant(runtime.db, tenantId);
    const scope: RequestScope = {
      env: runtime.env,
      // Bound to the request's tenant: every query on it reads and writes this tenant's rows only.
      db: tenantDb(runtime.db, tenantId),
      logger: runtime.logger.child({ requestId: res.locals.requestId }),
      requestId: res.locals.requestId,
      nonce: res.locals.nonce,
      tenantId,
      tenant: tenant.config,
      clientAddress: req.ip ?? "unknown",
      origin: publicOrigin(tenant.config, runtime.env),
      transport: runtime.transport,
      worker: runtime.worker,
      importer: runtime.jobs,
      sessionSecret: runtime.sessionSecret,
    };
    res.locals.scope = scope;
    res.locals.tenantVersion = tenant.version;
    next();
  } catch (error) {
    next(error);
  }
});
app.use(limitTenantApi);

app.use(async (req, res, next) => {
  const scope: RequestScope = res.locals.scope;
  try {
    const address = scope.env.PAGE_CACHE === "on" ? pageCacheKeyOf(req) : null;
    const cacheKey = address?.key ?? null;
    const cacheable = cacheKey !== null;
    let version: string = res.locals.tenantVersion;
    // A newsletter page counts its view here, before the cache, so cached loads count too.
    let views: number | null = null;
    const newsletterSlug = cacheable ? newsletterSlugFromPath(req.path) : null;
    if (newsletterSlug) {
      const counted = await countNewsletterView(scope.db, scope.tenantId, newsletterSlug);
      if (counted) {
        // Where this reader came from (decision 047): the query's utm_source and the Referer only.
        const query = new URLSearchParams(
          req.url.includes("?") ? req.url.slice(req.url.indexOf("?")) : "",
        );
        const origin = viewOriginOf(query, {
          referer: req.headers.referer ?? null,
          host: req.headers.host ?? null,
        });
        noteViewSource(scope.db, scope.tenantId, counted.id, classifyView(origin));
        views = counted.views;
        version = `${version}|${counted.version}`;
        scope.countedView = { views: VIEW_SENTINEL };
      }
    }
    // Sends a cached page with this request's nonce and view count. res.end, not res.send: an ETag
    // (a hash of the whole page) could never match, since the nonce differs on every response.
    const sendPage = (page: CachedPage, state: "hit" | "miss") => {
      const values = new Map([
        [page.nonce, scope.nonce],
        ...(views === null ? [] : viewCountValues(views)),
      ]);
      const chunks = pageChunks(page.parts, values);
      res.status(page.status);
      copyHeaders(res, page.headers);
      res.setHeader("x-page-cache", state);
      res.setHeader(
        "content-length",
        chunks.reduce((sum, chunk) => sum + chunk.length, 0),
      );
      // The parts go out as they are, in one write of the socket (end uncorks), not copied into one.
      // A compressed answer ends later (zlib works off this tick), and the gzip stream waits for
      // 'drain' once a write returns false: corked until then, a page over 16 KB gzip never ended.
      // So the socket is uncorked on the next tick in any case (Node's cork idiom).
      res.cork();
      for (const chunk of chunks) res.write(chunk);
      res.end();
      process.nextTick(() => res.uncork());
    };

    if (cacheable) {
      const hit = pageCache.get(scope.tenantId, cacheKey, version);
      if (hit) {
        countPageCache("hit");
        sendPage(hit, "hit");
        observe(req, res, hit.route);
        return;
      }
    }

    const render = (renderAt?: string) => {
      const context = new RouterContextProvider();
      context.set(requestContext, scope);
      return requestHandlerFor(req.path)(toFetchRequest(req, res, renderAt), context);
    };
    let response = await render();
    const shareable = response.headers.get(PAGE_CACHE_HEADER) !== null || views !== null;
    const keepable = cacheable && shareable && response.status === 200;
    if (keepable && address?.dropped) {
      // Parameters no page reads: the page is kept as rendered without them, never with them.
      await response.body?.cancel();
      response = await render(address.renderAt);
    }
    if (keepable && response.status === 200 && !response.headers.has("set-cookie")) {
      const body = (await responseBody(response)).toString();
      const headers = [...response.headers.entries()].filter(
        ([name]) => name !== PAGE_CACHE_HEADER && name !== "content-length",
      );
      const page: CachedPage = {
        status: response.status,
        headers,
        parts: splitPage(body, views === null ? [scope.nonce] : [scope.nonce, ...VIEW_MARKERS]),
        nonce: scope.nonce,
        tenantVersion: version,
        storedAt: Date.now(),
        route: scope.route,
      };
      pageCache.set(scope.tenantId, cacheKey as string, page);
      // A miss is a page the cache could keep and did not have (as x-page-cache says): pages it
      // never keeps (a form's answer, the reading room) are not counted at all.
      countPageCache("miss");
      sendPage(page, "miss");
      observe(req, res, scope.route);
      return;
    }
    response.headers.delete(PAGE_CACHE_HEADER);
    await sendFetchResponse(res, response);
    observe(req, res, scope.route);
  } catch (error) {
    next(error);
  }
});

// Last resort: something failed outside React Router's own error boundaries. Leak nothing.
app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
  const scope: RequestScope | undefined = res.locals.scope;
  if (scope) scope.logger.error({ err: error }, "unhandled error");
  else console.error(error);
  if (res.headersSent) {
    res.end();
    observe(req, res, scope?.route);
    return;
  }
  res
    .status(500)
    .type("html")
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Something went wrong</title></head><body><main><h1>Something went wrong</h1><p>We could not complete your request. Please try again in a moment.</p><p><a href="/">Back to the home page</a></p></main></body></html>`,
    );
  observe(req, res, scope?.route);
});

/**
 * The request's one observation for /metrics, once its answer is written: by route pattern
 * (never the URL), method and status class. /metrics itself is left out: a scraper's own
 * requests would be most of a quiet site's traffic.
 */
function observe(req: Request, res: Response, route: string | undefined): void {
  if (route === "/metrics") return;
  observeRequest(
    route ?? "unmatched",
    req.method,
    res.statusCode,
    (performance.now() - res.locals.startedAt) / 1000,
  );
}

/** A route's headers replace the host's defaults (helmet's), except cookies, which add up. */
function copyHeaders(res: Response, headers: Iterable<[string, string]>): void {
  for (const [name, value] of headers) {
    if (name.toLowerCase() === "set-cookie") res.append(name, value);
    else res.setHeader(name, value);
  }
}

/**
 * Where an anonymous GET's page is kept: its path and the query parameters pages read
 * (pageCacheAddress), and the address it is rendered at. Null: not cacheable (signed in, a
 * search, another method).
 */
function pageCacheKeyOf(req: Request) {
  if (req.method !== "GET") return null;
  if (readCookie(req, SESSION_COOKIE)) return null;
  const query = req.originalUrl.indexOf("?");
  if (query < 0) return pageCacheAddress(req.originalUrl, "");
  return pageCacheAddress(req.originalUrl.slice(0, query), req.originalUrl.slice(query));
}

function readCookie(req: Request, name: string): string | null {
  return readCookieHeader(req.headers.cookie ?? null, name);
}

/**
 * A list of trusted proxies, as Express would check it, remembering each address's answer: Express
 * asks twice a request (req.ip, req.protocol), and each time parsed the address and every range.
 * Hop counts and true/false are cheap already and stay as they are.
 */
function rememberedTrust(setting: ReturnType<typeof trustProxySetting>) {
  if (!Array.isArray(setting)) return setting;
  const trusts = proxyaddr.compile(setting);
  // Tens of thousands of addresses in 2 MiB; the ones seen least recently go first.
  const answers = memoryCache<string, boolean>({
    maxBytes: 2 * MiB,
    bytesOf: (_, address) => stringBytes(address) + 16,
  });
  return (address: string, hop: number) => {
    let trusted = answers.get(address);
    if (trusted === undefined) {
      trusted = trusts(address, hop);
      answers.set(address, trusted);
    }
    return trusted;
  };
}

/**
 * Express request → Fetch Request, as @react-router/express does, with a body size cap. Only a
 * request with a body is aborted when its client goes: a page is rendered in milliseconds, and
 * following another signal costs each Request a listener and a finalizer.
 */
function toFetchRequest(req: Request, res: Response, renderAt?: string): globalThis.Request {
  const url = `${req.protocol}://${req.get("host") ?? "localhost"}${renderAt ?? req.originalUrl}`;
  const headers = new Headers();
  for (const [key, values] of Object.entries(req.headers)) {
    if (values === undefined) continue;
    for (const value of Array.isArray(values) ? values : [values]) headers.append(key, value);
  }
  const init: RequestInit & { duplex?: "half" } = { method: req.method, headers };
  if (req.method === "GET" || req.method === "HEAD") return new Request(url, init);
  let controller: AbortController | null = new AbortController();
  res.on("finish", () => {
    controller = null;
  });
  res.on("close", () => controller?.abort());
  init.signal = controller.signal;
  if (res.locals.body instanceof Buffer) {
    // a chunked body, already read (and checked) by limitBodySize
    init.body = res.locals.body;
  } else {
    init.body = createReadableStreamFromReadable(req.pipe(capBytes(maxBodyBytesFor(req.path))));
    init.duplex = "half";
  }
  return new Request(url, init);
}

function capBytes(limit: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      seen += chunk.length;
      if (seen > limit) callback(new Error("Request body too large"));
      else callback(null, chunk);
    },
  });
}

async function sendFetchResponse(res: Response, response: globalThis.Response): Promise<void> {
  res.statusMessage = response.statusText;
  res.status(response.status);
  copyHeaders(res, response.headers.entries());
  // Documents are rendered whole before they are answered (app/entry.server.tsx): one write.
  if (response.headers.get("content-type")?.startsWith("text/html")) {
    res.end(await responseBody(response));
    return;
  }
  if (!response.body) {
    res.end();
    return;
  }
  const body = Readable.fromWeb(response.body as import("node:stream/web").ReadableStream);
  await new Promise<void>((resolve, reject) => {
    body.on("error", reject);
    res.on("close", resolve);
    res.on("finish", resolve);
    body.pipe(res);
  });
}

/** Resolves when the database is migrated and seeded; server.js waits for it before listening. */
export async function ready(): Promise<void> {
  await getRuntime();
}

/** How long server.js gives a graceful stop before it exits regardless. */
export { STOP_WITHIN_MS } from "../runtime";

/**
 * Stops the bounce listener and the sending worker, then, once `requestsDone`, what requests use;
 * server.js calls it on SIGTERM/SIGINT with its server's close.
 */
export async function shutdown(requestsDone?: Promise<unknown>): Promise<void> {
  await stopRuntime(requestsDone);
}
