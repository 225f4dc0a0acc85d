/**
 * A signing thread's entry (server/mail/dkim-threads.ts): signs each message it is handed and
 * answers its DKIM-Signature header lines, or the error, under the request's id.
 */
import { parentPort } from "node:worker_threads";
import { type DkimSigner, dkimSignatureHeaders } from "./dkim-sign";

export interface SigningRequest {
  id: number;
  message: Uint8Array;
  signers: readonly DkimSigner[];
  signedHeaders: readonly string[];
}

export type SigningAnswer = { id: number; headers: string } | { id: number; error: string };

parentPort?.on("message", ({ id, message, signers, signedHeaders }: SigningRequest) => {
  let answer: SigningAnswer;
  try {
    const bytes = Buffer.from(message.buffer, message.byteOffset, message.byteLength);
    answer = { id, headers: dkimSignatureHeaders(bytes, signers, signedHeaders) };
  } catch (error) {
    answer = { id, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort?.postMessage(answer);
});
