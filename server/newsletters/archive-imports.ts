import { sql } from "kysely";
import { findUserByEmail } from "../auth/users";
import { parseArchiveOffThread } from "../cpu/tasks";
import type { Db } from "../db";
import type { ArchiveImportsTable } from "../db/schema";
import { tenantDb } from "../db/tenant-guard";
import { getEnv } from "../env";
import { imageSources } from "../files/stored-images";
import {
  claimJob,
  ImportTakenOver,
  type JobRef,
  mayGoOn,
  ownJobUpdate,
  stillOwned,
} from "../import-jobs";
import { ARCHIVE_IMPORT } from "../jobs/kinds";
import { queueJob } from "../jobs/store";
import { recordImportJob } from "../metrics";
import type { Scope } from "../scope";
import { limitRefusal } from "../tenants/usage";
import { fetchImage, ImageFetchError } from "./archive-images";
import {
  ArchiveFileError,
  type ArchivePost,
  type ArchiveSource,
  plainText,
  type SkippedItem,
} from "./archive-posts";
import { storeArchivedNewsletter } from "./editing";
import { sanitizeNewsletterHtml, textOfHtml } from "./sanitize";

/*
 * Newsletters from Ghost and Substack as jobs (issue 33), on the pattern of the CSV import
 * (server/subscribers/imports.ts): the archive is read and checked at upload (a file that is not
 * an archive is refused on the spot and nothing is queued), its posts kept in the job's row in
 * one shape, then written by the import worker beside the sender, a post per transaction with
 * the job's progress. The slug is the key: a post whose slug the tenant already has is skipped,
 * so a resumed or repeated import never writes a newsletter twice. Images are copied into the
 * store before their post's transaction; a URL is fetched once per job (the job remembers it).
 */

type AdminScope = Pick<Scope, "db" | "tenant">;

/** Skipped items and warnings kept for the report (all skipped are counted). */
export const REPORT_ITEMS_KEPT = 1_000;

export type ArchiveImportStatus = ArchiveImportsTable["status"];

export interface ImportWarning {
  item: string;
  message: string;
}

export interface ArchiveImportJob {
  id: number;
  source: ArchiveSource;
  fileName: string;
  status: ArchiveImportStatus;
  totalPosts: number;
  donePosts: number;
  imported: number;
  skippedCount: number;
  skipped: SkippedItem[];
  warnings: ImportWarning[];
  error: string | null;
  createdBy: string;
  createdAt: string;
  finishedAt: string | null;
}

const JOB_COLUMNS = [
  "id",
  "source",
  "file_name",
  "status",
  "total_posts",
  "done_posts",
  "imported",
  "skipped_count",
  "skipped",
  "warnings",
  "error",
  "created_by",
  "created_at",
  "finished_at",
] as const;

type JobRow = Pick<ArchiveImportsTable, "source" | "file_name" | "status" | "error"> & {
  id: number;
  total_posts: number;
  done_posts: number;
  imported: number;
  skipped_count: number;
  skipped: string;
  warnings: string;
  created_by: string;
  created_at: string;
  finished_at: string | null;
};

const toJob = (row: JobRow): ArchiveImportJob => ({
  id: Number(row.id),
  source: row.source,
  fileName: row.file_name,
  status: row.status,
  totalPosts: Number(row.total_posts),
  donePosts: Number(row.done_posts),
  imported: Number(row.imported),
  skippedCount: Number(row.skipped_count),
  skipped: JSON.parse(row.skipped) as SkippedItem[],
  warnings: JSON.parse(row.warnings) as ImportWarning[],
  error: row.error,
  createdBy: row.created_by,
  createdAt: row.created_at,
  finishedAt: row.finished_at,
});

export class ArchiveImportNotFound extends Error {}

export { ArchiveFileError };

/**
 * Reads an uploaded archive and queues its posts; the job's id. A file that is not an archive of
 * that kind throws ArchiveFileError and queues nothing. `runner`: the job starts as this
 * process's (the command runs it itself; the worker takes it over only if the command dies).
 */
export async function queueArchiveImport(
  ctx: AdminScope,
  by: string,
  upload: {
    source: ArchiveSource;
    fileName: string;
    bytes: Uint8Array;
    siteUrl?: string | null;
    runner?: string;
  },
): Promise<number> {
  // Past the tenant's imports at once (decision 057) nothing is read or queued.
  const refusal = await limitRefusal(ctx.db, ctx.tenant.id, "importsAtOnce", 1);
  if (refusal) throw new ArchiveFileError(refusal);
  // Unzipping, parsing and cleaning every post: in a worker thread (server/cpu/pool.ts).
  const { posts, skipped } = await parseArchiveOffThread(upload.source, upload.bytes, {
    siteUrl: upload.siteUrl,
  });
  if (posts.length === 0 && skipped.length === 0) {
    throw new ArchiveFileError("The archive has no posts.");
  }
  const now = new Date().toISOString();
  const nothingToWrite = posts.length === 0;
  // The row and its job together, or neither (the job takes over if the command line dies).
  return ctx.db.transaction().execute(async (trx) => {
    const { id } = await trx
      .insertInto("archive_imports")
      .values({
        tenant_id: ctx.tenant.id,
        source: upload.source,
        file_name: plainText(upload.fileName).slice(0, 200) || `${upload.source} archive`,
        posts: nothingToWrite ? "[]" : JSON.stringify(posts),
        status: nothingToWrite ? "done" : upload.runner ? "running" : "queued",
        total_posts: posts.length,
        skipped_count: skipped.length,
        skipped: JSON.stringify(skipped.slice(0, REPORT_ITEMS_KEPT)),
        created_by: by,
        created_at: now,
        started_at: upload.runner ? now : null,
        finished_at: nothingToWrite ? now : null,
        claimed_by: nothingToWrite ? null : (upload.runner ?? null),
        heartbeat_at: upload.runner ? now : null,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    if (!nothingToWrite) {
      await queueJob(trx, ARCHIVE_IMPORT, { importId: Number(id) }, { tenantId: ctx.tenant.id });
    }
    return Number(id);
  });
}

export async function getArchiveImport(ctx: AdminScope, id: number): Promise<ArchiveImportJob> {
  const db = tenantDb(ctx.db, ctx.tenant.id);
  const row = await db
    .selectFrom("archive_imports")
    .select(JOB_COLUMNS)
    .where("id", "=", id)
    .executeTakeFirst();
  if (!row) throw new ArchiveImportNotFound("Import not found");
  return toJob(row);
}

/** The tenant's latest archive imports, newest first. */
export async function recentArchiveImports(
  ctx: AdminScope,
  limit = 10,
): Promise<ArchiveImportJob[]> {
  const db = tenantDb(ctx.db, ctx.tenant.id);
  const rows = await db
    .selectFrom("archive_imports")
    .select(JOB_COLUMNS)
    .orderBy("id", "desc")
    .limit(limit)
    .execute();
  return rows.map(toJob);
}

/**
 * Takes the oldest archive waiting (or one whose worker went silent) for `workerId`; null if
 * none (server/import-jobs.ts).
 */
export function claimArchiveImport(db: Db, workerId: string, now = new Date(), only?: JobRef) {
  return claimJob(db, "archive_imports", workerId, now, only);
}

const decodeAttribute = (value: string) =>
  value
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
const encodeAttribute = (value: string) => value.replace(/&/g, "&amp;").replace(/"/g, "&quot;");

/**
 * Writes a claimed job's posts after the last one handled, a post per transaction, and closes
 * it as done (or failed, with the reason). `onProgress` hears after each post (the command).
 */
export async function runArchiveImport(
  root: Db,
  job: JobRef,
  workerId: string,
  options: {
    keepGoing?: () => boolean;
    onProgress?: (done: number, total: number) => void;
    allowPrivateHosts?: boolean;
  } = {},
): Promise<void> {
  const db = tenantDb(root, job.tenantId);
  const keepGoing = options.keepGoing ?? (() => true);
  const allowPrivate = options.allowPrivateHosts ?? getEnv().IMPORT_ALLOW_PRIVATE_HOSTS === "true";
  /** An update of this job, while this worker holds it. */
  const mine = (on: Db) => ownJobUpdate(on, "archive_imports", job, workerId);
  const row = await db
    .selectFrom("archive_imports")
    .select(["source", "posts", "done_posts", "skipped", "warnings", "images", "skipped_count"])
    .where("id", "=", job.id)
    .executeTakeFirstOrThrow();
  const posts = JSON.parse(row.posts) as ArchivePost[];
  const skipped = JSON.parse(row.skipped) as SkippedItem[];
  const warnings = JSON.parse(row.warnings) as ImportWarning[];
  /** URL → its copy's /uploads/… URL, or null when it could not be copied */
  const images = JSON.parse(row.images) as Record<string, string | null>;
  const bylines = new Map<string, string | null>();
  const warn = (item: string, message: string) => {
    if (warnings.length < REPORT_ITEMS_KEPT) warnings.push({ item, message });
  };
  const heartbeat = () => mine(db).set({ heartbeat_at: new Date().toISOString() }).execute();

  /** The copy of an image, fetched the first time this job meets its URL. */
  const copyOf = async (url: string, item: string): Promise<string | null> => {
    if (url in images) return images[url] ?? null;
    if (!/^https?:\/\//i.test(url)) {
      if (url.startsWith("__GHOST_URL__")) {
        warn(item, `The image ${url} was not copied: give the Ghost site's address to copy it.`);
      }
      images[url] = null;
      return null;
    }
    try {
      const bytes = await fetchImage(url, { allowPrivate });
      // Loaded here, not at start: a worker that never imports an image never loads sharp.
      const { saveImageUpload } = await import("../files/images");
      images[url] = (await saveImageUpload({ db, tenantId: job.tenantId }, bytes)).url;
    } catch (error) {
      const reason =
        error instanceof ImageFetchError || (error as Error).name === "ImageUploadError"
          ? (error as Error).message
          : "it could not be stored";
      warn(item, `The image ${url} was not copied: ${reason}.`);
      images[url] = null;
    }
    await heartbeat();
    return images[url] ?? null;
  };

  const authorOf = async (author: ArchivePost["author"]) => {
    if (!author?.email) return null;
    const key = author.email.toLowerCase();
    if (!bylines.has(key)) bylines.set(key, (await findUserByEmail(db, key))?.id ?? null);
    return bylines.get(key) ?? null;
  };

  try {
    for (let index = Number(row.done_posts); index < posts.length; index++) {
      // Shutting down: the job waits for the next worker, from the next post.
      if (!(await mayGoOn(db, "archive_imports", job, workerId, keepGoing))) return;
      const post = posts[index] as ArchivePost;
      let content = post.html;
      for (const written of new Set(imageSources(content))) {
        const copy = await copyOf(decodeAttribute(written), post.item);
        if (copy)
          content = content.split(`src="${written}"`).join(`src="${encodeAttribute(copy)}"`);
      }
      const cover = post.featureImage ? await copyOf(post.featureImage, post.item) : null;
      const clean = sanitizeNewsletterHtml(content);
      const empty = !textOfHtml(clean) && !/<img\s/i.test(clean);
      const authorId = await authorOf(post.author);
      const now = new Date().toISOString();
      await db.transaction().execute(async (trx) => {
        let outcome: "imported" | "skipped" = "skipped";
        if (empty) {
          skipped.push({ item: post.item, reason: "Nothing of its content is left once cleaned." });
        } else {
          const stored = await storeArchivedNewsletter(trx, job.tenantId, {
            slug: post.slug,
            title: post.title,
            excerpt: post.excerpt,
            content: clean,
            status: post.status,
            publishedAt: post.publishedAt,
            createdAt: post.createdAt,
            authorId,
            authorName: post.author?.name ?? null,
            tags: post.tags,
            coverImage: cover,
            coverAlt: cover ? post.featureAlt || post.title : null,
          });
          if (stored === "slug-taken") {
            skipped.push({
              item: post.item,
              reason: `This site already has a newsletter at /newsletter/${post.slug} (imported before, or written here).`,
            });
          } else {
            outcome = "imported";
            for (const note of post.notes) warn(post.item, note);
          }
        }
        const saved = await mine(trx)
          .set({
            done_posts: index + 1,
            imported: outcome === "imported" ? sql<number>`imported + 1` : sql<number>`imported`,
            skipped_count: sql<number>`skipped_count + ${outcome === "skipped" ? 1 : 0}`,
            skipped: JSON.stringify(skipped.slice(0, REPORT_ITEMS_KEPT)),
            warnings: JSON.stringify(warnings),
            images: JSON.stringify(images),
            heartbeat_at: now,
          })
          .executeTakeFirst();
        stillOwned(saved);
      });
      options.onProgress?.(index + 1, posts.length);
    }
    await mine(db)
      .set({
        status: "done",
        posts: "[]",
        images: "{}",
        finished_at: new Date().toISOString(),
        claimed_by: null,
      })
      .execute();
    recordImportJob(row.source, "done");
  } catch (error) {
    if (error instanceof ImportTakenOver) return;
    await mine(db)
      .set({
        status: "failed",
        error:
          "The import stopped on a database error. The posts written so far are kept; import the archive again to finish (posts already here are skipped).",
        posts: "[]",
        finished_at: new Date().toISOString(),
        claimed_by: null,
      })
      .execute();
    recordImportJob(row.source, "failed");
    throw error;
  }
}
