import { UnzipError, unzipBounded } from "../cpu/unzip";
import { loadPapaParse } from "../lazy";
import {
  ArchiveFileError,
  type ArchivePost,
  collect,
  isoTime,
  type ParsedArchive,
  plainText,
  type SkippedItem,
  toPost,
} from "./archive-posts";

/* Substack's export zip read into ArchivePosts (archive-formats.ts chooses the reader). */

/** Substack's zip unpacked: its CSV and HTML files, at most this much. */
const MAX_UNPACKED_BYTES = 200_000_000;
/** One post's HTML (or posts.csv), unpacked: larger than any post a reader could read. */
const MAX_ENTRY_BYTES = 20_000_000;
/** Entries in the zip (each post has its HTML and two CSVs of opens and deliveries). */
const MAX_ENTRIES = 50_000;

const SUBSTACK_NOT_EXPORT =
  "This is not a Substack export: choose the zip file from Substack's Settings → Exports (it holds posts.csv and a posts folder).";

/** Substack's export zip: posts.csv and one HTML file per post (posts/{post_id}.html). */
export async function parseSubstackExport(zip: Uint8Array): Promise<ParsedArchive> {
  let files: Record<string, Uint8Array>;
  try {
    files = unzipBounded(
      zip,
      {
        maxEntries: MAX_ENTRIES,
        maxEntryBytes: MAX_ENTRY_BYTES,
        maxTotalBytes: MAX_UNPACKED_BYTES,
      },
      (name) => /(^|\/)posts\.csv$/.test(name) || /(^|\/)posts\/[^/]+\.html$/.test(name),
    );
  } catch (error) {
    if (error instanceof UnzipError && error.kind === "limit") {
      throw new ArchiveFileError(`${error.message} Split the archive and import each part.`);
    }
    throw new ArchiveFileError(SUBSTACK_NOT_EXPORT);
  }
  const csvName = Object.keys(files)
    .filter((name) => /(^|\/)posts\.csv$/.test(name))
    .sort((a, b) => a.length - b.length)[0];
  if (!csvName) throw new ArchiveFileError(SUBSTACK_NOT_EXPORT);
  const folder = csvName.slice(0, csvName.length - "posts.csv".length);
  const decoder = new TextDecoder("utf-8");
  const csv = decoder.decode(files[csvName]).replace(/^\uFEFF/, "");
  const Papa = await loadPapaParse();
  const table = Papa.parse<Record<string, string>>(csv, {
    header: true,
    skipEmptyLines: "greedy",
    transformHeader: (header) => header.trim().toLowerCase(),
  });
  const columns = table.meta.fields ?? [];
  if (!columns.includes("post_id") || !columns.includes("title")) {
    throw new ArchiveFileError(SUBSTACK_NOT_EXPORT);
  }
  const slugs = new Set<string>();
  const results = table.data.map((row, index): ArchivePost | SkippedItem => {
    const postId = (row.post_id ?? "").trim();
    const item = plainText(row.title ?? "") || postId || `row ${index + 2}`;
    if (!postId) return { item, reason: "Its row has no post_id." };
    const type = (row.type ?? "newsletter").trim().toLowerCase();
    if (type === "thread") return { item, reason: "A discussion thread, not a post." };
    const file = files[`${folder}posts/${postId}.html`];
    const notes: string[] = [];
    const published = (row.is_published ?? "").trim().toLowerCase() === "true";
    let status: ArchivePost["status"] = published ? "published" : "draft";
    const audience = (row.audience ?? "everyone").trim().toLowerCase();
    if (published && audience !== "everyone" && audience !== "") {
      status = "draft";
      notes.push("It was for paying subscribers only on Substack: imported as a draft.");
    }
    // post_id is "{number}.{slug}"; a draft's may have no slug.
    const slug = postId.includes(".") ? postId.slice(postId.indexOf(".") + 1) : "";
    const date = isoTime(row.post_date);
    return toPost(
      {
        item,
        slug,
        title: row.title ?? "",
        excerpt: row.subtitle ?? "",
        html: file ? decoder.decode(file) : "",
        status,
        publishedAt: published ? date : null,
        createdAt: date,
        author: null,
        tagNames: [],
        featureImage: null,
        featureAlt: null,
        notes,
      },
      slugs,
      null,
    );
  });
  return collect(results);
}
