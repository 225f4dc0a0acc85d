import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { z } from "zod";
import { isValidFileKey } from "../files/store";
import type { SecretBox } from "../secret-box";
import { manifestSignatureProblem } from "../signed-manifest";

/*
 * A snapshot's manifest (docs/decisions/029-backups.md): what it holds and how to check it. A
 * snapshot is a directory:
 *
 *   manifest.json        this, written last: a directory without it is not a finished snapshot
 *   database.sqlite      SQLite's online backup (or database.pgdump: pg_dump's custom format)
 *   files/{tenant}/{…}   every uploaded file, under its store key
 */

export const MANIFEST_FILE = "manifest.json";
export const SQLITE_FILE = "database.sqlite";
export const PGDUMP_FILE = "database.pgdump";
export const FILES_DIR = "files";
const FORMAT_VERSION = 1;

/** A snapshot that cannot be made, read or restored: the message says why, for the operator. */
export class BackupError extends Error {
  override name = "BackupError";
}

const snapshotPath = z
  .string()
  .refine(
    (path) =>
      path === SQLITE_FILE ||
      path === PGDUMP_FILE ||
      (path.startsWith(`${FILES_DIR}/`) && isValidFileKey(path.slice(FILES_DIR.length + 1))),
    { message: "is not a path a snapshot holds" },
  );

export const manifestSchema = z.object({
  format: z.literal("herald-backup"),
  formatVersion: z.literal(FORMAT_VERSION),
  heraldVersion: z.string().min(1),
  dialect: z.enum(["sqlite", "postgres"]),
  createdAt: z.iso.datetime(),
  /** where the uploaded files came from: disk, database (PostgreSQL) or s3 */
  fileStore: z.enum(["disk", "database", "s3"]),
  /** ids of the keys the sealed secrets need (HERALD_SECRET_KEY, or a previous one); never the key */
  secretKeyIds: z.array(z.string().regex(/^[A-Za-z0-9_-]{8}$/)),
  files: z.array(
    z.object({
      path: snapshotPath,
      size: z.number().int().min(0),
      sha256: z.string().regex(/^[0-9a-f]{64}$/),
    }),
  ),
  /** `<keyId>.<HMAC>` of the rest under HERALD_SECRET_KEY (server/signed-manifest.ts); absent before issue 44 */
  hmac: z.string().optional(),
});

export type Manifest = z.infer<typeof manifestSchema>;
export type ManifestFile = Manifest["files"][number];

export function newManifest(fields: Omit<Manifest, "format" | "formatVersion">): Manifest {
  return { format: "herald-backup", formatVersion: FORMAT_VERSION, ...fields };
}

/** The SHA-256 and size of a file, read as a stream (a database dump may be large). */
export async function digestFile(path: string): Promise<{ size: number; sha256: string }> {
  const hash = createHash("sha256");
  let size = 0;
  for await (const chunk of createReadStream(path)) {
    hash.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { size, sha256: hash.digest("hex") };
}

/** Every file under `dir` but the manifest, as snapshot paths (forward slashes), sorted. */
export async function filesIn(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => !entry.isDirectory())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)).split(sep).join("/"))
    .filter((path) => path !== MANIFEST_FILE)
    .sort();
}

/** The manifest's list of files: every file in `dir` with its size and SHA-256. */
export async function describeFiles(dir: string): Promise<ManifestFile[]> {
  const files: ManifestFile[] = [];
  for (const path of await filesIn(dir))
    files.push({ path, ...(await digestFile(join(dir, path))) });
  return files;
}

/**
 * Refuses a snapshot whose manifest is not signed under a key this install has (or has no
 * signature, unless `allowUnsigned`): a snapshot edited by hand, its checksums recomputed, is not
 * restored (issue 44, finding 7). Checked before the checksums (verifySnapshot).
 */
export async function verifySnapshotSignature(
  dir: string,
  box: SecretBox | null,
  options: { allowUnsigned: boolean },
): Promise<"signed" | "taken unsigned"> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(join(dir, MANIFEST_FILE), "utf8"));
  } catch {
    return "signed"; // verifySnapshot names what is wrong with it
  }
  const problem = manifestSignatureProblem(box, "backup", raw, options);
  if (problem) {
    throw new BackupError(`The snapshot in ${dir} was not restored: ${problem}`);
  }
  // Checked again without the operator's leave: what passed only because of it.
  return manifestSignatureProblem(box, "backup", raw, { allowUnsigned: false })
    ? "taken unsigned"
    : "signed";
}

/**
 * The snapshot in `dir`, checked whole before anything is restored from it: its manifest reads,
 * and the files present are exactly those it lists, each with its size and SHA-256. Throws a
 * BackupError naming every difference.
 */
export async function verifySnapshot(dir: string): Promise<Manifest> {
  let text: string;
  try {
    text = await readFile(join(dir, MANIFEST_FILE), "utf8");
  } catch {
    throw new BackupError(`${dir} is not a Herald snapshot: it has no ${MANIFEST_FILE}.`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new BackupError(`${join(dir, MANIFEST_FILE)} is not valid JSON.`);
  }
  const parsed = manifestSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.join(".")}: ${issue.message}`,
    );
    throw new BackupError(
      `${join(dir, MANIFEST_FILE)} is not a manifest this version reads:\n  ${problems.join("\n  ")}`,
    );
  }
  const manifest = parsed.data;
  const problems: string[] = [];
  const listed = new Map(manifest.files.map((file) => [file.path, file]));
  const present = await filesIn(dir);
  for (const path of present) if (!listed.has(path)) problems.push(`${path}: not in the manifest`);
  const presentSet = new Set(present);
  for (const file of manifest.files) {
    if (!presentSet.has(file.path)) {
      problems.push(`${file.path}: missing`);
      continue;
    }
    const found = await digestFile(join(dir, file.path));
    if (found.size !== file.size) {
      problems.push(`${file.path}: ${found.size} bytes, the manifest says ${file.size}`);
    } else if (found.sha256 !== file.sha256) {
      problems.push(`${file.path}: its SHA-256 does not match the manifest`);
    }
  }
  const database = manifest.dialect === "sqlite" ? SQLITE_FILE : PGDUMP_FILE;
  if (!listed.has(database)) problems.push(`${database}: the manifest does not list it`);
  if (problems.length > 0) {
    throw new BackupError(
      `The snapshot in ${dir} does not match its manifest; nothing was restored:\n  ${problems.join("\n  ")}`,
    );
  }
  return manifest;
}
