import {
  MAX_ARCHIVE_UPLOAD_BYTES,
  MAX_ARCHIVE_UPLOAD_LABEL,
} from "../../shared/schemas/archive-import";
import { ArchiveFileError, type ArchiveSource, type ParsedArchive } from "./archive-posts";
import { parseGhostExport } from "./ghost-export";
import { parseSubstackExport } from "./substack-export";

/*
 * Archives from other platforms, read into one shape (ArchivePost) before anything is written:
 * Ghost's JSON export (`{db:[{meta,data:{posts,tags,posts_tags,users,posts_authors,posts_meta}}]}`)
 * and Substack's export zip (posts.csv and posts/{post_id}.html). A file that is not such an
 * archive is refused whole (ArchiveFileError); a post that cannot become a newsletter is skipped
 * with its reason; what was changed on the way (a renamed slug, a left-out card) is noted. The
 * shape and what both readers share are in archive-posts.ts; the readers are ghost-export.ts and
 * substack-export.ts.
 */

const MAX_ARCHIVE_BYTES = MAX_ARCHIVE_UPLOAD_BYTES;

/** Reads an uploaded archive of the given kind. */
export async function parseArchive(
  source: ArchiveSource,
  bytes: Uint8Array,
  options: { siteUrl?: string | null } = {},
): Promise<ParsedArchive> {
  if (bytes.length === 0) throw new ArchiveFileError("The file is empty.");
  if (bytes.length > MAX_ARCHIVE_BYTES) {
    throw new ArchiveFileError(`The file is larger than ${MAX_ARCHIVE_UPLOAD_LABEL}.`);
  }
  if (source === "ghost") {
    return parseGhostExport(new TextDecoder("utf-8").decode(bytes), options);
  }
  return parseSubstackExport(bytes);
}
