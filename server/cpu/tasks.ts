import {
  ArchiveFileError,
  type ArchiveSource,
  type ParsedArchive,
} from "../newsletters/archive-posts";
import {
  type SocialBranding,
  type SocialImageContent,
  type SocialImageKind,
  TextTooLongError,
} from "../social/images";
import { ImportFileError } from "../subscribers/import-rows";
import type { FileSource } from "../subscribers/import-sources";
import { cpuPool } from "./pool";
import type { CpuAnswer, CpuTask } from "./worker";

/* The CPU pool's tasks as the callers use them: the same answers and errors as on their thread. */

const REFUSALS = { ArchiveFileError, ImportFileError, TextTooLongError };

async function run<T>(task: CpuTask, what: string): Promise<T> {
  const answer = await cpuPool().run<CpuAnswer>(task, what);
  if ("refused" in answer) throw new REFUSALS[answer.refused.kind](answer.refused.message);
  return answer.value as T;
}

/** parseArchive (archive-formats.ts) in a worker thread. */
export function parseArchiveOffThread(
  source: ArchiveSource,
  bytes: Uint8Array,
  options: { siteUrl?: string | null } = {},
): Promise<ParsedArchive> {
  return run(
    { name: "parseArchive", source, bytes, siteUrl: options.siteUrl },
    "Reading the archive",
  );
}

/** decodeSourceUpload (import-sources.ts) in a worker thread: an upload as CSV text. */
export function decodeSourceUploadOffThread(
  source: FileSource,
  bytes: Uint8Array,
): Promise<string> {
  return run({ name: "decodeSourceUpload", source, bytes }, "Reading the file");
}

/** renderSocialImage (social/images.ts) in a worker thread: the PNG's bytes. */
export async function renderSocialImageOffThread(
  kind: SocialImageKind,
  content: SocialImageContent,
  branding: SocialBranding,
): Promise<Buffer> {
  const png = await run<Uint8Array>(
    { name: "renderSocialImage", kind, content, branding },
    "Drawing the image",
  );
  return Buffer.from(png.buffer, png.byteOffset, png.byteLength);
}
