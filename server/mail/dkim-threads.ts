import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Transform, type TransformCallback } from "node:stream";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import type { DkimSigner } from "./dkim-sign";
import type { SigningAnswer, SigningRequest } from "./dkim-worker";

/**
 * DKIM signing on threads of its own (issue 36, target 6; docs/decisions/049-dkim-both-ways.md).
 * Signed on the sender's thread, canonicalizing and hashing a message and dispatching its RSA
 * operation cost that thread as much as a quarter of a message's work, and the campaign's pace is
 * that thread's. Here it only hands the message over (a copy and a message port, some
 * microseconds) and the thread does the rest: on a machine with cores to spare, signing costs the
 * sending almost nothing.
 *
 * One thread per spare core, at most four, started on the first signed message; each is unref'd
 * while it has nothing to do, so an idle one never keeps the process alive. A thread that dies
 * fails what it held (the delivery is tried again, as after any transport error) and the next
 * message starts a new one.
 */

const THREADS = Math.max(1, Math.min(4, os.availableParallelism() - 1));

/**
 * The entry a thread runs: the bundled one beside a build (build/workers/, `npm run build`), or
 * the TypeScript source through tsx where server/ runs from source (tests, development).
 */
function workerEntry(): { file: string; workerData?: { entry: string } } {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith(".ts")) {
    return {
      file: path.join(path.dirname(here), "..", "worker-from-source.mjs"),
      workerData: { entry: pathToFileURL(path.join(path.dirname(here), "dkim-worker.ts")).href },
    };
  }
  // build/server/index.js and build/cli/herald.mjs both sit one folder below build/.
  const file = path.join(path.dirname(here), "..", "workers", "dkim-worker.mjs");
  if (!existsSync(file)) throw new Error(`${file} is missing: run npm run build`);
  return { file };
}

interface Pending {
  resolve(headers: string): void;
  reject(error: Error): void;
}

class SigningThread {
  private readonly worker: Worker;
  readonly pending = new Map<number, Pending>();

  constructor(onGone: (thread: SigningThread) => void) {
    const { file, workerData } = workerEntry();
    this.worker = new Worker(file, { workerData, name: "dkim-signing" });
    this.worker.unref();
    this.worker.on("message", (answer: SigningAnswer) => {
      const waiting = this.pending.get(answer.id);
      if (!waiting) return;
      this.settled(answer.id);
      if ("error" in answer) waiting.reject(new Error(`DKIM signing failed: ${answer.error}`));
      else waiting.resolve(answer.headers);
    });
    const fail = (error: Error) => {
      onGone(this);
      for (const waiting of this.pending.values()) waiting.reject(error);
      this.pending.clear();
    };
    this.worker.on("error", fail);
    this.worker.on("exit", (code) => fail(new Error(`the DKIM signing thread stopped (${code})`)));
  }

  sign(request: SigningRequest): Promise<string> {
    return new Promise((resolve, reject) => {
      if (this.pending.size === 0) this.worker.ref();
      this.pending.set(request.id, { resolve, reject });
      this.worker.postMessage(request);
    });
  }

  private settled(id: number) {
    this.pending.delete(id);
    if (this.pending.size === 0) this.worker.unref();
  }

  stop() {
    return this.worker.terminate();
  }
}

const threads: SigningThread[] = [];
let nextId = 0;

/** The thread with the least in hand, a new one while fewer than THREADS run and all are busy. */
function threadForNext(): SigningThread {
  let least: SigningThread | undefined;
  for (const thread of threads) {
    if (!least || thread.pending.size < least.pending.size) least = thread;
  }
  if (least && (least.pending.size === 0 || threads.length >= THREADS)) return least;
  const thread = new SigningThread((gone) => {
    const at = threads.indexOf(gone);
    if (at !== -1) threads.splice(at, 1);
  });
  threads.push(thread);
  return thread;
}

/**
 * The DKIM-Signature header lines of a message (server/mail/dkim-sign.ts, dkimSignatureHeaders),
 * made on a signing thread.
 */
export function dkimSignaturesFor(
  message: Buffer,
  signers: readonly DkimSigner[],
  signedHeaders: readonly string[],
): Promise<string> {
  if (signers.length === 0) return Promise.resolve("");
  nextId = (nextId + 1) % Number.MAX_SAFE_INTEGER;
  return threadForNext().sign({ id: nextId, message, signers, signedHeaders });
}

/** One signer's DKIM-Signature for a message held as latin1 text (tests, and one-off callers). */
export function dkimSignatureFor(
  message: string,
  signer: DkimSigner,
  signedHeaders: readonly string[],
): Promise<string> {
  return dkimSignaturesFor(Buffer.from(message, "latin1"), [signer], signedHeaders);
}

/** Stops the signing threads (tests); the next signed message starts one again. */
export async function stopSigningThreads(): Promise<void> {
  await Promise.all(threads.splice(0).map((thread) => thread.stop()));
}

/**
 * A stream that holds the message, then emits it in one piece, after its DKIM-Signatures when keys
 * are given. One piece, signed or not: SMTP's dot-stuffing and the socket then see one chunk
 * instead of a dozen, which halves the writes per message.
 */
export class WholeMessageStream extends Transform {
  private readonly chunks: Buffer[] = [];

  constructor(
    private readonly signers: readonly DkimSigner[],
    private readonly signedHeaders: readonly string[],
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
    this.chunks.push(chunk);
    done();
  }

  override _flush(done: TransformCallback) {
    const message = Buffer.concat(this.chunks);
    if (this.signers.length === 0) {
      this.push(message);
      done();
      return;
    }
    dkimSignaturesFor(message, this.signers, this.signedHeaders).then(
      (headers) => {
        this.push(Buffer.concat([Buffer.from(headers, "latin1"), message]));
        done();
      },
      (error: Error) => done(error),
    );
  }
}
