import { Writable } from "node:stream";
import { renderToPipeableStream, renderToString } from "react-dom/server";
import {
  type EntryContext,
  type HandleErrorFunction,
  isRouteErrorResponse,
  type RouterContextProvider,
  ServerRouter,
} from "react-router";
import { scopeOf } from "../server/http/context";
import { documentResponse } from "../server/http/document";
import type { Logger } from "../server/logger";
import { pageKeptParts } from "./lib/markup.server";
import { NonceContext } from "./lib/nonce";
import { KeptMarkupContext } from "./lib/page-scripts";
import { RenderOnlyContext } from "./lib/render-only";
import { renderOnlyValuesOf } from "./lib/render-only.server";
import { STYLESHEET_MARKER, StylesheetContext, stylesheet } from "./lib/stylesheet";

export const streamTimeout = 5_000;

/**
 * React Router's default, except for the 4xx it answers itself (405: a POST to a page without an
 * action): a client's mistake, not a failure, so no stack trace in the log (issue 32, target 2).
 */
export const handleError: HandleErrorFunction = (error, { request, context }) => {
  if (request.signal.aborted) return;
  if (isRouteErrorResponse(error) && error.status < 500) return;
  // Through the request's logger: one JSON line with the request's id, at level error, like every
  // other failure (a bare console.error wrote a multi-line stack no log reader or test could tell).
  let logger: Logger | undefined;
  try {
    logger = scopeOf(context).logger;
  } catch {
    // no request scope (the host did not build one): nothing better than the console
  }
  if (logger) logger.error({ err: error }, "a route failed");
  else console.error(error);
};

/**
 * Renders the whole document before answering: pages hold no deferred data, and a complete
 * document is what crawlers and the page cache want. It is answered as one piece, not a stream,
 * handed to the host beside the Response (server/http/document.ts).
 *
 * A page without the app's scripts (app/lib/page-scripts.tsx) has nothing that can suspend, so it
 * is rendered to a string at once: about a fifth less CPU per page than React's streaming renderer,
 * whose bytes are encoded piece by piece (decision 022). A page with scripts carries React Router's
 * hydration data, which <Scripts> streams (it suspends until the data is read), so it is rendered
 * with renderToPipeableStream and answered when all of it is ready — React Router's documented
 * way (decision 034: no writes into its internals).
 */
// The inline stylesheet (root.tsx) is most of a page's bytes: encoded once, not on every render.
const STYLESHEET_BYTES = Buffer.from(stylesheet);

export default async function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  routerContext: EntryContext,
  loadContext: RouterContextProvider,
) {
  if (request.method.toUpperCase() === "HEAD") {
    return new Response(null, { status: responseStatusCode, headers: responseHeaders });
  }
  const scope = scopeOf(loadContext);
  const scripts = pageHasScripts(routerContext);
  const renderOnly = renderOnlyValuesOf(loadContext);
  if (scripts && renderOnly.length > 0) {
    // Its hydration data would hold stand-ins, not the values (app/lib/render-only.tsx).
    throw new Error("render-only data on a page with scripts");
  }
  const keptParts = pageKeptParts(scripts);
  const keepParts = () =>
    keptParts.keep((key, error) =>
      scope.logger.warn({ err: error, key }, "a kept part failed to render alone"),
    );
  // The stylesheet, most of a page, is left out of the render: its bytes go in afterwards.
  const app = (
    <StylesheetContext value={STYLESHEET_MARKER}>
      <NonceContext value={scope.nonce}>
        <KeptMarkupContext value={keptParts}>
          <RenderOnlyContext value={renderOnly}>
            <ServerRouter context={routerContext} url={request.url} nonce={scope.nonce} />
          </RenderOnlyContext>
        </KeptMarkupContext>
      </NonceContext>
    </StylesheetContext>
  );
  if (!scripts) {
    responseHeaders.set("Content-Type", "text/html; charset=utf-8");
    const html = renderToString(app);
    keepParts();
    return documentResponse(encodeDocument(`<!DOCTYPE html>${html}`), {
      headers: responseHeaders,
      status: responseStatusCode,
    });
  }
  return new Promise<Response>((resolve, reject) => {
    let status = responseStatusCode;
    // Cleared when the render settles: a pending timer would keep the whole render (its tree, its
    // loader data) alive for seconds after the answer, which under load is most of the heap.
    const timer = setTimeout(() => abort(), streamTimeout + 1_000);
    const { pipe, abort } = renderToPipeableStream(app, {
      nonce: scope.nonce,
      onAllReady() {
        clearTimeout(timer);
        responseHeaders.set("Content-Type", "text/html; charset=utf-8");
        // The whole document is ready, so React writes it at once: collected, then encoded once.
        const chunks: Buffer[] = [Buffer.from("<!DOCTYPE html>")];
        const collect = new Writable({
          write(chunk: Buffer, _encoding, done) {
            chunks.push(chunk);
            done();
          },
          final(done) {
            keepParts();
            resolve(
              documentResponse(withStylesheet(Buffer.concat(chunks)), {
                headers: responseHeaders,
                status,
              }),
            );
            done();
          },
        });
        collect.on("error", reject);
        pipe(collect);
      },
      onShellError(error: unknown) {
        clearTimeout(timer);
        reject(error);
      },
      onError(error: unknown) {
        status = 500;
        scope.logger.error({ err: error }, "render failed");
      },
    });
  });
}

/** Where documents are encoded before being copied out at their size; grows to the largest page. */
let scratch = Buffer.allocUnsafe(256 * 1024);

/**
 * A rendered page as the bytes the host sends, with the stylesheet's bytes in its marker's place.
 * Encoded here, once: given the string, Node measures it for Content-Length (walking React's rope
 * of pieces) and encodes it again on the socket. And not with `Buffer.from`, which walks the
 * string twice (its UTF-8 length, then its bytes): written into a buffer large enough for any
 * encoding of it and copied out (a newsletter page's encoding, in a profile: 11% of the page
 * before, 9% after; most of what is left is joining React's rope into one string).
 */
function encodeDocument(html: string): Buffer {
  // UTF-8 takes at most three bytes per UTF-16 unit (a surrogate pair: four for two).
  const room = html.length * 3 + STYLESHEET_BYTES.length;
  if (scratch.length < room) scratch = Buffer.allocUnsafe(room);
  const at = html.indexOf(STYLESHEET_MARKER);
  let length: number;
  if (at === -1) {
    length = scratch.write(html, 0, "utf8");
  } else {
    length = scratch.write(html.slice(0, at), 0, "utf8");
    length += STYLESHEET_BYTES.copy(scratch, length);
    length += scratch.write(html.slice(at + STYLESHEET_MARKER.length), length, "utf8");
  }
  const bytes = Buffer.allocUnsafe(length);
  scratch.copy(bytes, 0, 0, length);
  return bytes;
}

const MARKER_BYTES = Buffer.from(STYLESHEET_MARKER);

/** A page streamed with STYLESHEET_MARKER, with the stylesheet's bytes in the marker's place. */
function withStylesheet(html: Buffer): Buffer {
  const at = html.indexOf(MARKER_BYTES);
  if (at === -1) return html;
  return Buffer.concat([
    html.subarray(0, at),
    STYLESHEET_BYTES,
    html.subarray(at + MARKER_BYTES.length),
  ]);
}

/** usePageScripts' rule, read from the matched routes' handles before rendering. */
function pageHasScripts(context: EntryContext): boolean {
  return !context.staticHandlerContext.matches.some(
    (match) =>
      (context.routeModules[match.route.id]?.handle as { scripts?: boolean } | undefined)
        ?.scripts === false,
  );
}
