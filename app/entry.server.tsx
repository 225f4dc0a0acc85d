import { renderToPipeableStream } from "react-dom/server";
import { type EntryContext, type RouterContextProvider, ServerRouter } from "react-router";
import { scopeOf } from "../server/http/context";
import { documentResponse } from "../server/http/document";
import stylesheet from "./app.css?inline";
import { NonceContext } from "./lib/nonce";

export const streamTimeout = 5_000;

/**
 * Renders the whole document before answering (onAllReady): pages hold no deferred data, and a
 * complete document is what crawlers and the page cache want. The document is answered as one
 * buffer, not a stream: it is complete anyway, and a buffer costs the host no stream plumbing.
 */
// The inline stylesheet (root.tsx) is most of a page's bytes: encoded once, not on every render.
const STYLESHEET_BYTES = Buffer.from(stylesheet);

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
  return new Promise<Response>((resolve, reject) => {
    let status = responseStatusCode;
    // Cleared when the render settles: a pending timer would keep the whole render (its tree, its
    // loader data) alive for seconds after the answer, which under load is most of the heap.
    const timer = setTimeout(() => abort(), streamTimeout + 1_000);
    const { pipe, abort } = renderToPipeableStream(
      <NonceContext value={scope.nonce}>
        <ServerRouter context={routerContext} url={request.url} nonce={scope.nonce} />
      </NonceContext>,
      {
        nonce: scope.nonce,
        onAllReady() {
          clearTimeout(timer);
          responseHeaders.set("Content-Type", "text/html; charset=utf-8");
          // The whole document is ready, so React writes it at once: into an array, not a stream.
          const chunks: Uint8Array[] = [];
          pipe({
            write(chunk: Uint8Array | string) {
              if (chunk === stylesheet) chunks.push(STYLESHEET_BYTES);
              else chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
              return true;
            },
            end() {
              resolve(
                documentResponse(Buffer.concat(chunks), { headers: responseHeaders, status }),
              );
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
      },
    );
  });
}
