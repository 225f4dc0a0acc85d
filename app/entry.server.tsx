import { renderToPipeableStream, renderToString } from "react-dom/server";
import { type EntryContext, type RouterContextProvider, ServerRouter } from "react-router";
import { scopeOf } from "../server/http/context";
import { documentResponse } from "../server/http/document";
import { NonceContext } from "./lib/nonce";
import { STYLESHEET_MARKER, StylesheetContext, stylesheet } from "./lib/stylesheet";

export const streamTimeout = 5_000;

/**
 * Renders the whole document before answering: pages hold no deferred data, and a complete
 * document is what crawlers and the page cache want. It is answered as one piece, not a stream,
 * handed to the host beside the Response (server/http/document.ts).
 *
 * A page without the app's scripts (app/lib/page-scripts.tsx) has nothing that can suspend, so it
 * is rendered to a string at once: about a fifth less CPU per page than React's streaming renderer,
 * whose bytes are encoded piece by piece (decision 022). A page with scripts streams its hydration
 * data, so it is rendered with renderToPipeableStream and answered when all of it is ready.
 */
// The inline stylesheet (root.tsx) is most of a page's bytes: encoded once, not on every render.
const STYLESHEET_BYTES = Buffer.from(stylesheet);
const MARKER_BYTES = Buffer.from(STYLESHEET_MARKER);

export default function handleRequest(
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
  // The stylesheet, most of a page, is left out of the render: its bytes go in afterwards.
  const app = (
    <StylesheetContext value={STYLESHEET_MARKER}>
      <NonceContext value={scope.nonce}>
        <ServerRouter context={routerContext} url={request.url} nonce={scope.nonce} />
      </NonceContext>
    </StylesheetContext>
  );
  if (!pageHasScripts(routerContext)) {
    responseHeaders.set("Content-Type", "text/html; charset=utf-8");
    // Encoded here, once: given the string, Node measures it for Content-Length (walking React's
    // rope of pieces) and encodes it again on the socket.
    const html = Buffer.from(`<!DOCTYPE html>${renderToString(app)}`);
    return documentResponse(withStylesheet(html), {
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
        // The whole document is ready, so React writes it at once: into an array, not a stream.
        const chunks: Uint8Array[] = [];
        pipe({
          write(chunk: Uint8Array | string) {
            chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
            return true;
          },
          end() {
            const html = withStylesheet(Buffer.concat(chunks));
            resolve(documentResponse(html, { headers: responseHeaders, status }));
            return this;
          },
          on() {
            return this;
          },
          destroy(error: unknown) {
            reject(error);
          },
        } as unknown as NodeJS.WritableStream);
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

/** A page rendered with STYLESHEET_MARKER, with the stylesheet's bytes in the marker's place. */
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
