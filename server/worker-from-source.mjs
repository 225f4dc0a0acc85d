/**
 * Runs a worker thread's TypeScript entry (`workerData.entry`, a file URL) through tsx, where
 * server/ runs from source (tests, development): Node 20 cannot load .ts itself, and a worker
 * does not inherit its parent's loader. A build runs the bundled entries of build/workers/.
 */
import { workerData } from "node:worker_threads";
import { register } from "tsx/esm/api";

register();
await import(workerData.entry);
