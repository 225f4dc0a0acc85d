import { renderToString } from "react-dom/server";
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
 * Every page is rendered to a string: nothing in the app suspends, and a page with the app's
 * scripts (app/lib/page-scripts.tsx) has its hydration data read before the render. That is about
 * a fifth less CPU per page than React's streaming renderer, whose bytes are encoded piece by piece
 * (decision 022).
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
  const keptParts = pageKeptParts(scripts);
  // The stylesheet, most of a page, is left out of the render: its bytes go in afterwards.
  const app = (
    <StylesheetContext value={STYLESHEET_MARKER}>
      <NonceContext value={scope.nonce}>
        <KeptMarkupContext value={keptParts}>
          <ServerRouter context={routerContext} url={request.url} nonce={scope.nonce} />
        </KeptMarkupContext>
      </NonceContext>
    </StylesheetContext>
  );
  if (scripts) await readHydrationData(routerContext);
  responseHeaders.set("Content-Type", "text/html; charset=utf-8");
  const html = renderToString(app);
  keptParts.keep((key, error) =>
    scope.logger.warn({ err: error, key }, "a kept part failed to render alone"),
  );
  return documentResponse(encodeDocument(`<!DOCTYPE html>${html}`), {
    headers: responseHeaders,
    status: responseStatusCode,
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

/**
 * Reads the page's hydration data (React Router's turbo-stream of loader data) to its end before
 * rendering, and hands it to the <Scripts> of the render as already read: React Router's
 * StreamTransfer then writes it without suspending, so the page renders to a string at once.
 * The client gets the same two scripts a streamed render would end with (the data, then close).
 */
async function readHydrationData(context: EntryContext): Promise<void> {
  const stream = context.serverHandoffStream;
  if (!stream) return;
  const decoder = new TextDecoder();
  let text = "";
  const reader = stream.getReader();
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    text += decoder.decode(chunk.value, { stream: true });
  }
  text += decoder.decode();
  const read = (result: { done: boolean; value: string }) =>
    Object.assign(Promise.resolve(), { result });
  context.renderMeta ??= {};
  context.renderMeta.streamCache = {
    0: read({ done: false, value: text }),
    1: read({ done: true, value: "" }),
  };
}

/** usePageScripts' rule, read from the matched routes' handles before rendering. */
function pageHasScripts(context: EntryContext): boolean {
  return !context.staticHandlerContext.matches.some(
    (match) =>
      (context.routeModules[match.route.id]?.handle as { scripts?: boolean } | undefined)
        ?.scripts === false,
  );
}
