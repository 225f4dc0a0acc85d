import { once } from "node:events";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scaled } from "../../tests/support/timing";
import { LinkPreviewError, readLinkPreview } from "../content/link-preview";
import { FetchRefused, fetchOutside } from "./safe-fetch";

/*
 * Issue 44, finding 4: a server sending a byte every 3 s held a link preview for two minutes,
 * because the only limit was on idle time. Here a server on loopback drips one byte every
 * 300 ms — in its headers or in its body — and the fetch ends at its one deadline.
 */

let server: Server;
let base: string;
const open = new Set<ServerResponse>();

function drip(response: ServerResponse, text: string) {
  open.add(response);
  let index = 0;
  const timer = setInterval(() => {
    if (response.destroyed || index >= text.length) {
      clearInterval(timer);
      open.delete(response);
      if (!response.destroyed) response.end();
      return;
    }
    response.socket?.write(text[index++] as string);
  }, 300);
  response.on("close", () => clearInterval(timer));
}

beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url === "/body") {
      response.writeHead(200, { "content-type": "text/html" });
      response.flushHeaders();
      open.add(response);
      const timer = setInterval(() => response.write("<"), 300);
      response.on("close", () => {
        clearInterval(timer);
        open.delete(response);
      });
    } else if (request.url === "/headers") {
      // The status line and headers themselves, a byte at a time.
      drip(
        response,
        `HTTP/1.1 200 OK\r\ncontent-type: text/html\r\nx-slow: ${"a".repeat(200)}\r\n\r\n`,
      );
    } else if (request.url === "/redirect") {
      response.writeHead(302, { location: "/body" }).end();
    } else {
      response.writeHead(200, { "content-type": "text/html" }).end("<title>Quick</title>");
    }
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const response of open) response.destroy();
  server.closeAllConnections();
  server.close();
});

const limits = {
  allowPrivate: true,
  userAgent: "test",
  accept: "text/html",
  type: /^text\/html\b/,
  typeProblem: "not a page",
  maxBytes: 1_000_000,
  maxSize: "1 MB",
  timeoutMs: 1000,
};

/** How long `run` took to fail, and its error. */
async function failure(run: () => Promise<unknown>) {
  const started = performance.now();
  const error = await run().then(
    () => new Error("it did not fail"),
    (caught: Error) => caught,
  );
  return { error, ms: performance.now() - started };
}

describe("fetchOutside's one deadline", () => {
  it("answers a quick page", async () => {
    const page = await fetchOutside(`${base}/quick`, limits);
    expect(new TextDecoder().decode(page.bytes)).toBe("<title>Quick</title>");
  });

  for (const path of ["/body", "/headers", "/redirect"]) {
    it(`ends a server dripping a byte every 300 ms at the deadline (${path})`, async () => {
      const { error, ms } = await failure(() => fetchOutside(`${base}${path}`, limits));
      expect(error).toBeInstanceOf(FetchRefused);
      expect(error.message).toBe("it took longer than 1 second");
      expect(ms).toBeGreaterThanOrEqual(990);
      expect(ms).toBeLessThan(1000 + scaled(1000));
    });
  }

  it("holds a link preview no longer than its deadline", async () => {
    const { error, ms } = await failure(() =>
      readLinkPreview(`${base}/body`, { allowPrivate: true, timeoutMs: 1500 }),
    );
    expect(error).toBeInstanceOf(LinkPreviewError);
    expect(error.message).toBe("The page could not be read: it took longer than 1.5 seconds.");
    expect(ms).toBeLessThan(1500 + scaled(1000));
  });

  it("still caps the bytes", async () => {
    const { error } = await failure(() =>
      fetchOutside(`${base}/body`, {
        ...limits,
        maxBytes: 2,
        maxSize: "2 bytes",
        timeoutMs: scaled(5000),
      }),
    );
    expect(error.message).toBe("it is larger than 2 bytes");
  });
});
