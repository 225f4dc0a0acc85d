import { Writable } from "node:stream";
import { renderToPipeableStream } from "react-dom/server";
import { type EntryContext, type RouterContextProvider, ServerRouter } from "react-router";
import { scopeOf } from "../server/http/context";
import { NonceContext } from "./lib/nonce";

export const streamTimeout = 5_000;

/**
 * Renders the whole document before answering (onAllReady): pages hold no deferred data, and a
 * complete document is what crawlers and the page cache want. The document is answered as one
 * buffer, not a stream: it is complete anyway, and a buffer costs the host no stream plumbing.
 */
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
          const chunks: Buffer[] = [];
          const collect = new Writable({
            write(chunk: Buffer, _encoding, callback) {
              chunks.push(chunk);
              callback();
            },
          });
          collect.on("finish", () => {
            resolve(new Response(Buffer.concat(chunks), { headers: responseHeaders, status }));
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
      },
    );
  });
}
