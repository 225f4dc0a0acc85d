// The production and development host (DESIGN.md §2): static assets, then Herald's Express app.
import { readdirSync } from "node:fs";
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

const host = express();
host.disable("x-powered-by");
// Compression only for clients that ask for it: the others cost nothing extra.
const compress = compression();
host.use((req, res, next) => (req.headers["accept-encoding"] ? compress(req, res, next) : next()));

let herald;
if (production) {
  host.use(
    "/assets",
    express.static("build/client/assets", { immutable: true, maxAge: "1y", index: false }),
  );
  // Any other built file, listed once: a page request is not first looked for on disk (a stat,
  // and an error object, per page).
  const clientFiles = new Set(
    readdirSync("build/client", { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => `/${path.relative("build/client", path.join(entry.parentPath, entry.name))}`),
  );
  const files = express.static("build/client", { maxAge: "1h", index: false });
  host.use((req, res, next) => (clientFiles.has(req.path) ? files(req, res, next) : next()));
  herald = await import("./build/server/index.js");
  host.use(herald.app);
} else {
  const vite = await import("vite").then((v) =>
    v.createServer({ server: { middlewareMode: true } }),
  );
  host.use(vite.middlewares);
  herald = await vite.ssrLoadModule("./server/http/app.ts");
  host.use(async (req, res, next) => {
    try {
      const fresh = await vite.ssrLoadModule("./server/http/app.ts");
      fresh.app(req, res, next);
    } catch (error) {
      if (error instanceof Error) vite.ssrFixStacktrace(error);
      next(error);
    }
  });
}

// Migrate and seed before taking traffic, so a fresh clone's first request finds a ready database.
await herald.ready();
const server = host.listen(port, () => {
  const address = server.address();
  const actual = typeof address === "object" && address ? address.port : port;
  console.log(`Herald listening on http://localhost:${actual}`);
});

for (const signal of ["SIGTERM", "SIGINT"]) {
  process.on(signal, () => {
    setTimeout(() => process.exit(0), 5_000).unref();
    // The bounce listener and the campaign worker stop too (claims not sent go back at once).
    Promise.all([new Promise((resolve) => server.close(resolve)), herald.shutdown?.()]).then(
      () => process.exit(0),
      () => process.exit(0),
    );
  });
}
