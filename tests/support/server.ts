import { type ChildProcess, spawn } from "node:child_process";
import { request as httpRequest } from "node:http";
import { createServer } from "node:net";
import { recordServerError, serverErrorLines } from "./error-logs";
import { scaled } from "./timing";

export interface RunningServer {
  url: string;
  port: number;
  process: ChildProcess;
  /** everything the server wrote, for assertions on logs */
  output(): string;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Starts the real production server (node server.js) on a free port against `databaseUrl`. */
export async function startServer(options: {
  databaseUrl: string;
  env?: Record<string, string>;
}): Promise<RunningServer> {
  const port = await freePort();
  let log = "";
  const child = spawn(process.execPath, ["server.js"], {
    env: {
      ...process.env,
      NODE_ENV: "production",
      PORT: String(port),
      DATABASE_URL: options.databaseUrl,
      LOG_LEVEL: "warn",
      // No daily sender domain check (it would ask the system's DNS): tests that want it set it.
      DOMAIN_CHECK_EVERY: "off",
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  // Error lines fail the running test unless it expects them (tests/support/error-logs.ts).
  const readErrors = errorLineReader();
  child.stdout?.on("data", (chunk) => {
    log += chunk;
    readErrors.stdout(chunk);
  });
  child.stderr?.on("data", (chunk) => {
    log += chunk;
    readErrors.stderr(chunk);
  });
  const url = `http://localhost:${port}`;
  // server.js prints its address once it listens, after migrating and seeding: wait for that (or
  // its exit), on a deadline as long as this machine needs (tests/support/timing.ts).
  const limit = scaled(30_000);
  const started = await new Promise<"listening" | "exited" | "late">((resolve) => {
    const timer = setTimeout(() => resolve("late"), limit);
    const done = (outcome: "listening" | "exited") => {
      clearTimeout(timer);
      child.stdout?.off("data", onOutput);
      child.off("exit", onExit);
      resolve(outcome);
    };
    const onOutput = () => {
      if (log.includes("Herald listening on")) done("listening");
    };
    const onExit = () => done("exited");
    child.stdout?.on("data", onOutput);
    child.once("exit", onExit);
  });
  if (started === "exited") throw new Error(`server exited early:\n${log}`);
  if (started === "late" || !(await fetch(`${url}/healthz`)).ok) {
    child.kill("SIGKILL");
    throw new Error(`server did not start within ${limit} ms:\n${log}`);
  }
  return {
    url,
    port,
    process: child,
    output: () => log,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), scaled(5_000));
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Passes each whole line of a child's two streams to the error-log check, as the lines arrive. */
function errorLineReader(): Record<"stdout" | "stderr", (chunk: Buffer | string) => void> {
  const reader = () => {
    let partial = "";
    return (chunk: Buffer | string) => {
      const text = partial + chunk;
      const end = text.lastIndexOf("\n") + 1;
      partial = text.slice(end);
      for (const line of serverErrorLines(text.slice(0, end))) recordServerError(line);
    };
  };
  return { stdout: reader(), stderr: reader() };
}

/** GET with an explicit Host header (fetch() does not let a caller set one); resolves to the body. */
export function requestWithHost(port: number, path: string, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { host: "127.0.0.1", port, path, headers: { host } },
      (response) => {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (chunk) => {
          body += chunk;
        });
        response.on("end", () => resolve(body));
      },
    );
    request.on("error", reject);
    request.end();
  });
}
