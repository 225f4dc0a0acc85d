import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Piscina } from "piscina";
import { getEnv } from "../env";

/*
 * CPU-heavy steps off the thread that answers requests (issue 44, target 1): unzipping, reading an
 * archive (JSON or CSV, HTML limits and cleaning), reading an audience upload. They run in a pool
 * of worker threads (piscina), each task with a deadline (CPU_TASK_TIMEOUT_MS: the thread running
 * it is stopped) and a heap cap (CPU_TASK_MEMORY_MB: a thread that passes it is ended). The
 * tasks are in ./worker.ts; from source (tests, development) it runs through tsx, built (`npm
 * run build`: build/cpu/worker.mjs) as plain JavaScript.
 */

/** A task refused, stopped or failed: the message says which, for the person who asked. */
export class CpuTaskError extends Error {}

export interface CpuPoolOptions {
  /** the worker module; default: ./worker.ts from source, build/cpu/worker.mjs built */
  filename?: string;
  threads: number;
  timeoutMs: number;
  memoryMb: number;
}

export interface CpuPool {
  run<T>(task: unknown, what: string): Promise<T>;
  close(): Promise<void>;
}

const fromSource = import.meta.url.endsWith(".ts");

/** The built worker: build/cpu/worker.mjs beside the bundle that runs this (build/server, build/cli). */
function builtWorker(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (path.basename(dir) !== "build" && path.dirname(dir) !== dir) dir = path.dirname(dir);
  const beside = path.join(dir, "cpu", "worker.mjs");
  return existsSync(beside) ? beside : path.resolve("build", "cpu", "worker.mjs");
}

function seconds(ms: number): string {
  const value = Math.round(ms / 100) / 10;
  return `${value} second${value === 1 ? "" : "s"}`;
}

export function createCpuPool(options: CpuPoolOptions): CpuPool {
  const filename =
    options.filename ??
    (fromSource ? fileURLToPath(new URL("./worker.ts", import.meta.url)) : builtWorker());
  const typescript = filename.endsWith(".ts");
  const pool = new Piscina({
    filename: pathToFileURL(filename).href,
    minThreads: 0,
    maxThreads: options.threads,
    // A thread no task needs for a minute is ended (an import is rare; memory is not).
    idleTimeout: 60_000,
    resourceLimits: { maxOldGenerationSizeMb: options.memoryMb },
    execArgv: typescript ? ["--import", "tsx"] : [],
  });
  return {
    async run<T>(task: unknown, what: string): Promise<T> {
      const signal = AbortSignal.timeout(options.timeoutMs);
      try {
        return (await pool.run(task, { signal })) as T;
      } catch (error) {
        if (signal.aborted) {
          throw new CpuTaskError(
            `${what} took longer than ${seconds(options.timeoutMs)} and was stopped.`,
          );
        }
        if ((error as { code?: string }).code === "ERR_WORKER_OUT_OF_MEMORY") {
          throw new CpuTaskError(
            `${what} needed more than ${options.memoryMb} MB of memory and was stopped.`,
          );
        }
        throw error;
      }
    },
    close: () => pool.close({ force: true }),
  };
}

let shared: CpuPool | null = null;

/** The process's pool, sized by CPU_THREADS, CPU_TASK_TIMEOUT_MS and CPU_TASK_MEMORY_MB. */
export function cpuPool(): CpuPool {
  if (!shared) {
    const env = getEnv();
    shared = createCpuPool({
      threads: env.CPU_THREADS ?? Math.max(1, availableParallelism() - 1),
      timeoutMs: env.CPU_TASK_TIMEOUT_MS,
      memoryMb: env.CPU_TASK_MEMORY_MB,
    });
  }
  return shared;
}

/** Ends the process's pool (a graceful stop); the next task starts another. */
export async function closeCpuPool(): Promise<void> {
  const pool = shared;
  shared = null;
  await pool?.close();
}
