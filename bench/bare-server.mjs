// The bare baseline of `npm run bench` (issue 17): node:http sending one page's bytes from memory,
// the most any server in Node could do on this machine. BARE_FILE names the page, PORT the port.
import { readFileSync } from "node:fs";
import { createServer } from "node:http";

const body = readFileSync(process.env.BARE_FILE ?? "");
const server = createServer((_req, res) => {
  res.writeHead(200, { "content-type": "text/html; charset=utf-8", "content-length": body.length });
  res.end(body);
});
server.listen(Number(process.env.PORT), "127.0.0.1", () => console.log("listening"));
for (const signal of ["SIGTERM", "SIGINT"])
  process.on(signal, () => server.close(() => process.exit(0)));
