import type { NextFunction, Request, Response } from "express";
import helmet from "helmet";
import { EMBED_FORM_PATH, EMBED_SUBSCRIBE_PATH, isSiteOrigin } from "../../shared/schemas/embed";
import { observeRequest } from "../metrics";

/**
 * Security headers; the CSP allows only our own scripts plus this response's nonce. No page may be
 * framed by another site, except the embedded sign-up form's pages: their routes send
 * embedPagePolicy, naming the tenant's allowed sites (known only once the tenant is resolved).
 */
export function securityHeaders(production: boolean) {
  const headers = helmet({
    contentSecurityPolicy: production
      ? {
          directives: {
            defaultSrc: ["'self'"],
            scriptSrc: ["'self'", (_req, res) => `'nonce-${(res as Response).locals.nonce}'`],
            // Tenant branding arrives as CSS variables in a style attribute.
            styleSrc: ["'self'", "'unsafe-inline'"],
            imgSrc: ["'self'", "data:", "https:"],
            fontSrc: ["'self'", "data:"],
            connectSrc: ["'self'"],
            formAction: ["'self'"],
            // Only the staff preview frames a page, its own (the phone-width view).
            frameAncestors: [
              (req) =>
                (req as Request).path.startsWith("/admin/newsletter/preview/")
                  ? "'self'"
                  : "'none'",
            ],
            objectSrc: ["'none'"],
            baseUri: ["'self'"],
            upgradeInsecureRequests: null,
          },
        }
      : false,
    // Only meaningful behind HTTPS; harmless otherwise.
    strictTransportSecurity: production,
    crossOriginEmbedderPolicy: false,
    // Browsers send `Origin: null` on form posts under no-referrer; keep the origin on our own site.
    referrerPolicy: { policy: "strict-origin-when-cross-origin" },
  });
  return (req: Request, res: Response, next: NextFunction) =>
    headers(req, res, (error?: unknown) => {
      // frame-ancestors is what browsers follow where both are sent; these pages send their own.
      if (EMBED_PAGES.has(req.path)) res.removeHeader("x-frame-options");
      next(error);
    });
}

const EMBED_PAGES = new Set([EMBED_FORM_PATH, EMBED_SUBSCRIBE_PATH]);

/**
 * The embed pages' whole policy: no script at all, forms posting to this site only, framed by the
 * tenant's own pages and its allowed sites (origins normalised by shared/schemas/embed.ts). Anything
 * else is left out, whatever the caller passes: a stored `https://*` or `'unsafe-inline'` would
 * widen the policy (issue 44, finding 5).
 */
export function embedPagePolicy(allowedOrigins: Iterable<string>): string {
  const origins = [...allowedOrigins].filter(isSiteOrigin);
  return [
    "default-src 'none'",
    "style-src 'unsafe-inline'",
    "img-src 'self' data: https:",
    "form-action 'self'",
    `frame-ancestors ${["'self'", ...origins].join(" ")}`,
    "base-uri 'none'",
  ].join("; ");
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Refuses state-changing requests that a browser says come from another site (DESIGN.md §8).
 * Browsers send Origin on every cross-origin POST and Sec-Fetch-Site on modern ones; clients that
 * send neither (curl, server-to-server calls) are not browsers riding a visitor's cookies.
 */
export function refuseCrossSiteWrites(req: Request, res: Response, next: NextFunction) {
  if (SAFE_METHODS.has(req.method)) return next();
  // The embedded sign-up form's one handler: it refuses every origin but the tenant's allowed
  // sites itself, before using the body (server/subscribers/embed.ts), once the tenant is known.
  if (req.method === "POST" && req.path === EMBED_SUBSCRIBE_PATH) return next();
  const origin = req.get("origin");
  const host =
    req.get("x-forwarded-host") && req.app.enabled("trust proxy")
      ? req.get("x-forwarded-host")
      : req.get("host");
  const fetchSite = req.get("sec-fetch-site");
  let crossSite: boolean;
  if (origin && origin !== "null") {
    try {
      crossSite = new URL(origin).host !== host;
    } catch {
      crossSite = true;
    }
  } else if (origin === "null") {
    // An opaque origin (sandboxed frame, privacy setting): only the browser's own word clears it.
    crossSite = fetchSite !== "same-origin";
  } else {
    crossSite = fetchSite === "cross-site" || fetchSite === "same-site";
  }
  if (crossSite) {
    res.status(403).type("text/plain").send("Cross-site requests are not allowed.");
    observeRefusal(req, res);
    return;
  }
  next();
}

export const MAX_BODY_BYTES = 1024 * 1024;
/** Image uploads (5 MB files) need room for the file plus the multipart envelope. */
export const MAX_UPLOAD_BODY_BYTES = 6 * 1024 * 1024;
const UPLOAD_PATHS = new Set(["/admin/uploads"]);
/** A subscriber CSV (10 MB, shared/schemas/subscribers.ts) plus its envelope. */
export const MAX_IMPORT_BODY_BYTES = 11 * 1024 * 1024;
/** The import page's form posts here, and here with ".data" when React Router submits it. */
const IMPORT_PATHS = new Set(["/admin/subscribers/imports", "/admin/subscribers/imports.data"]);

/** A Ghost or Substack archive (50 MB, shared/schemas/archive-import.ts) plus its envelope. */
export const MAX_ARCHIVE_BODY_BYTES = 51 * 1024 * 1024;
const ARCHIVE_PATHS = new Set(["/admin/newsletter/import", "/admin/newsletter/import.data"]);

/** The body limit for a request path: 1 MiB everywhere except the image and CSV uploads. */
export function maxBodyBytesFor(path: string): number {
  if (IMPORT_PATHS.has(path)) return MAX_IMPORT_BODY_BYTES;
  if (ARCHIVE_PATHS.has(path)) return MAX_ARCHIVE_BODY_BYTES;
  return UPLOAD_PATHS.has(path) ? MAX_UPLOAD_BODY_BYTES : MAX_BODY_BYTES;
}

function refuseTooLarge(req: Request, res: Response) {
  res.status(413).type("text/plain").send("Request body too large.");
  observeRefusal(req, res);
}

/** A refusal before any route was matched, timed for /metrics as route "unmatched". */
function observeRefusal(req: Request, res: Response) {
  const started: number | undefined = res.locals.startedAt;
  if (started === undefined) return;
  observeRequest("unmatched", req.method, res.statusCode, (performance.now() - started) / 1000);
}

/**
 * Refuses bodies over the limit before the app reads them. A declared Content-Length is checked at
 * once; a chunked body (no length) is read here up to the limit and kept for the app (issue 14:
 * one over the limit reached a route's form parser and answered 500).
 */
export function limitBodySize(req: Request, res: Response, next: NextFunction) {
  const limit = maxBodyBytesFor(req.path);
  const declared = req.get("content-length");
  if (declared !== undefined || !req.get("transfer-encoding")) {
    if (Number(declared ?? 0) > limit) refuseTooLarge(req, res);
    else next();
    return;
  }
  const chunks: Buffer[] = [];
  let seen = 0;
  const onData = (chunk: Buffer) => {
    seen += chunk.length;
    if (seen <= limit) {
      chunks.push(chunk);
      return;
    }
    // The rest is read and discarded, for a few seconds at most, and the 413 sent once the client
    // has finished sending: answering (and closing) mid-upload makes clients fail with EPIPE
    // before they read the answer. A client still sending after that is cut off.
    req.off("data", onData).off("end", onEnd).resume();
    const cut = setTimeout(() => req.socket.destroy(), 5_000).unref();
    req.once("end", () => {
      clearTimeout(cut);
      refuseTooLarge(req, res);
    });
  };
  const onEnd = () => {
    res.locals.body = Buffer.concat(chunks);
    next();
  };
  req.on("data", onData).on("end", onEnd).once("error", next);
}
