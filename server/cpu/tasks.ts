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
import type { ImportRow, RefusedRow } from "../subscribers/import-rows";
import { ImportFileError } from "../subscribers/import-rows";
import type { FileSource, SourceRows } from "../subscribers/import-sources";
import type { MailingList } from "../subscribers/lists";
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

/** readImportRows (import-rows.ts) in a worker thread: a Herald CSV's rows checked. */
export function readImportRowsOffThread(
  text: string,
  lists: MailingList[],
): Promise<{ rows: ImportRow[]; refused: RefusedRow[] }> {
  return run({ name: "readImportRows", text, lists }, "Reading the file");
}

/** readSourceRows (import-sources.ts) in a worker thread: a Ghost or Substack CSV's rows. */
export function readSourceRowsOffThread(
  source: "ghost" | "substack",
  text: string,
): Promise<SourceRows> {
  return run({ name: "readSourceRows", source, text }, "Reading the file");
}
