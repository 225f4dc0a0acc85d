// The production and development host (DESIGN.md §2): static assets, then Herald's Express app.
import { readdirSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import v8 from "node:v8";
import compression from "compression";
import express from "express";

const production = process.env.NODE_ENV === "production";
// V8 lets the heap grow to up to 4× what is live before a full collection when collections are
// cheap, which they are here: under load that is 300+ MB of dead request objects. 1.5× keeps the
// server near its live size (docs/architecture.md, "Memory"). The young generation can only be
// sized on the command line: `npm start` gives it 8 MB semi-spaces (V8's default 16 MB measured no
// faster here, and 30 MB more at peak).
if (!process.execArgv.some((arg) => arg.startsWith("--heap-growing-percent"))) {
  v8.setFlagsFromString("--heap-growing-percent=50");
}
const port = Number(process.env.PORT ?? 3000);

// Compression only for clients that ask for it: the others cost nothing extra.
const compress = compression();
/** `handler`, its answer compressed when the client asks for it. */
const withCompression = (handler) => (req, res) =>
  req.headers["accept-encoding"] ? compress(req, res, () => handler(req, res)) : handler(req, res);
/** What a static file handler's failure answers (a broken read: a request for a directory, say). */
function staticFailure(res, error) {
  res.statusCode = error.statusCode ?? error.status ?? 500;
  res.end();
}

// The host is a plain request handler, not an Express app around Herald's: the app is Express
// already, and a second one mounted around it cost each request its routing and request-object
// set-up twice (measured on cached pages).
let handle;
let herald;
if (production) {
  // The built files, listed once: a page request is not first looked for on disk (a stat, and an
  // error object, per page).
  const clientFiles = new Set(
    readdirSync("build/client", { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => `/${path.relative("build/client", path.join(entry.parentPath, entry.name))}`),
  );
  const assets = express.static("build/client", { immutable: true, maxAge: "1y", index: false });
  const files = express.static("build/client", { maxAge: "1h", index: false });
  herald = await import("./build/server/index.js");
  handle = withCompression((req, res) => {
    const end = req.url.indexOf("?");
    const pathname = end === -1 ? req.url : req.url.slice(0, end);
    if (!clientFiles.has(pathname)) return herald.app(req, res);
    const serve = pathname.startsWith("/assets/") ? assets : files;
    serve(req, res, (error) => (error ? staticFailure(res, error) : herald.app(req, res)));
  });
} else {
  const vite = await import("vite").then((v) =>
    v.createServer({ server: { middlewareMode: true } }),
  );
  herald = await vite.ssrLoadModule("./server/http/app.ts");
  handle = withCompression((req, res) =>
    vite.middlewares(req, res, async (error) => {
      if (error) return staticFailure(res, error);
      try {
        const fresh = await vite.ssrLoadModule("./server/http/app.ts");
        fresh.app(req, res);
      } catch (failure) {
        if (failure instanceof Error) vite.ssrFixStacktrace(failure);
        console.error(failure);
        staticFailure(res, failure);
      }
    }),
  );
}

// Migrate and seed before taking traffic, so a fresh clone's first request finds a ready database.
await herald.ready();
let stopping = false;
const server = http
  .createServer((req, res) => {
    // Stopping: an answer still being written ends its connection (no keep-alive).
    if (stopping) res.setHeader("connection", "close");
    handle(req, res);
  })
  .listen(port, () => {
    const address = server.address();
    const actual = typeof address === "object" && address ? address.port : port;
    console.log(`Herald listening on http://localhost:${actual}`);
  });

// A graceful stop (README, "Watching it run"): no new connections; requests in flight finish;
// the sender stops claiming, lets its messages in flight finish and hands back the rest; the
// process exits within STOP_WITHIN_MS whatever is still running then.
const stopWithinMs = herald.STOP_WITHIN_MS ?? 10_000;
for (const signal of ["SIGTERM", "SIGINT"]) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    console.log(`Herald stopping (${signal})`);
    setTimeout(() => {
      console.error(`Herald stopped after ${stopWithinMs} ms with work still running`);
      process.exit(0);
    }, stopWithinMs - 500).unref();
    const closed = new Promise((resolve) => server.close(resolve));
    // Keep-alive connections: idle ones close now, busy ones as soon as their answer is written.
    server.closeIdleConnections();
    const idleSweep = setInterval(() => server.closeIdleConnections(), 100);
    // The requests in flight finish before what they use (rate-limit stores, the file store) closes.
    Promise.all([closed, herald.shutdown?.(closed)]).then(
      () => {
        clearInterval(idleSweep);
        process.exit(0);
      },
      (error) => {
        console.error(error);
        process.exit(1);
      },
    );
  });
}
