import { createServer } from "node:http";
import type { Logger } from "./logger";
import { metricsTokenMatches, renderMetrics } from "./metrics";

/**
 * `herald worker`'s own /metrics (METRICS_PORT): the worker serves no pages, but its sends,
 * retries and bounces are counted in its process. Same token, same answers as the web server's
 * route (app/routes/api/metrics.ts); every other path is 404.
 */
export async function serveWorkerMetrics(options: {
  port: number;
  token: string;
  logger: Logger;
}): Promise<{ close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const path = (req.url ?? "").split("?")[0];
    res.setHeader("cache-control", "no-store");
    if (path !== "/metrics") {
      res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("Not found\n");
      return;
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { allow: "GET, HEAD" }).end();
      return;
    }
    if (!metricsTokenMatches(req.headers.authorization ?? null, options.token)) {
      res
        .writeHead(401, {
          "content-type": "text/plain; charset=utf-8",
          "www-authenticate": 'Bearer realm="metrics"',
        })
        .end("Unauthorized\n");
      return;
    }
    renderMetrics().then(
      ({ body, contentType }) => {
        res.writeHead(200, { "content-type": contentType });
        res.end(req.method === "HEAD" ? undefined : body);
      },
      (error: unknown) => {
        options.logger.error({ err: error }, "metrics not rendered");
        res.writeHead(500, { "content-type": "text/plain; charset=utf-8" }).end("Error\n");
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, () => resolve());
  });
  options.logger.info({ port: options.port }, "worker metrics listening");
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
