import { renderToString } from "react-dom/server";
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
 * Every page is rendered to a string: nothing in the app suspends, and a page with the app's
 * scripts (app/lib/page-scripts.tsx) has its hydration data read before the render. That is about
 * a fifth less CPU per page than React's streaming renderer, whose bytes are encoded piece by piece
 * (decision 022).
 */
// The inline stylesheet (root.tsx) is most of a page's bytes: encoded once, not on every render.
const STYLESHEET_BYTES = Buffer.from(stylesheet);
const MARKER_BYTES = Buffer.from(STYLESHEET_MARKER);

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
  // The stylesheet, most of a page, is left out of the render: its bytes go in afterwards.
  const app = (
    <StylesheetContext value={STYLESHEET_MARKER}>
      <NonceContext value={scope.nonce}>
        <ServerRouter context={routerContext} url={request.url} nonce={scope.nonce} />
      </NonceContext>
    </StylesheetContext>
  );
  if (pageHasScripts(routerContext)) await readHydrationData(routerContext);
  responseHeaders.set("Content-Type", "text/html; charset=utf-8");
  // Encoded here, once: given the string, Node measures it for Content-Length (walking React's
  // rope of pieces) and encodes it again on the socket.
  const html = Buffer.from(`<!DOCTYPE html>${renderToString(app)}`);
  return documentResponse(withStylesheet(html), {
    headers: responseHeaders,
    status: responseStatusCode,
  });
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
