import { parseArchive } from "../newsletters/archive-formats";
import { ArchiveFileError, type ArchiveSource } from "../newsletters/archive-posts";
import {
  renderSocialImage,
  type SocialBranding,
  type SocialImageContent,
  type SocialImageKind,
  TextTooLongError,
} from "../social/images";
import { ImportFileError, readImportRows } from "../subscribers/import-rows";
import { decodeSourceUpload, type FileSource, readSourceRows } from "../subscribers/import-sources";
import type { MailingList } from "../subscribers/lists";

/*
 * The tasks the CPU pool runs (./pool.ts), in a worker thread: each takes plain data and answers
 * plain data. An error meant for the person who uploaded is answered as { refused } with its
 * kind, so the caller throws the same class it would have thrown on its own thread.
 */

export type CpuTask =
  | {
      name: "parseArchive";
      source: ArchiveSource;
      bytes: Uint8Array;
      siteUrl?: string | null;
    }
  | { name: "decodeSourceUpload"; source: FileSource; bytes: Uint8Array }
  | { name: "readImportRows"; text: string; lists: MailingList[] }
  | { name: "readSourceRows"; source: "ghost" | "substack"; text: string }
  | {
      name: "renderSocialImage";
      kind: SocialImageKind;
      content: SocialImageContent;
      branding: SocialBranding;
    };

export type CpuAnswer =
  | { value: unknown }
  | {
      refused: {
        kind: "ArchiveFileError" | "ImportFileError" | "TextTooLongError";
        message: string;
      };
    };

export default async function run(task: CpuTask): Promise<CpuAnswer> {
  try {
    switch (task.name) {
      case "parseArchive":
        return { value: await parseArchive(task.source, task.bytes, { siteUrl: task.siteUrl }) };
      case "decodeSourceUpload":
        return { value: decodeSourceUpload(task.source, task.bytes) };
      case "readImportRows":
        return { value: await readImportRows(task.text, task.lists) };
      case "readSourceRows":
        return { value: await readSourceRows(task.source, task.text) };
      case "renderSocialImage": {
        // A Buffer crosses threads as a Uint8Array: sharp is handed a Buffer again.
        const logo = task.branding.logo
          ? { ...task.branding.logo, png: Buffer.from(task.branding.logo.png) }
          : null;
        const png = await renderSocialImage(task.kind, task.content, { ...task.branding, logo });
        return { value: new Uint8Array(png.buffer, png.byteOffset, png.byteLength) };
      }
    }
  } catch (error) {
    if (error instanceof ArchiveFileError) {
      return { refused: { kind: "ArchiveFileError", message: error.message } };
    }
    if (error instanceof TextTooLongError) {
      return { refused: { kind: "TextTooLongError", message: error.message } };
    }
    if (error instanceof ImportFileError) {
      return { refused: { kind: "ImportFileError", message: error.message } };
    }
    throw error;
  }
}
