import { createHash } from "node:crypto";
import { strFromU8, strToU8, zipSync } from "fflate";
import { z } from "zod";
import { UnzipError, unzipBounded } from "../../cpu/unzip";
import { getSecretBox } from "../../secret-box";
import { manifestSignatureProblem, signManifest } from "../../signed-manifest";

/*
 * A tenant archive (docs/decisions/030-moving-a-tenant.md): one zip file holding
 *
 *   manifest.json          what is inside, with a sha-256 of every other entry
 *   tables/{table}.json    the tenant's rows of each table, as JSON arrays
 *   authors.json           email and display name of each staff user a newsletter is signed by
 *   files/{key}            every stored file of the tenant (images and their variants)
 *
 * The manifest is the only entry not checksummed: it is read first, and every entry it lists must
 * be there with that checksum, and nothing else may be. It is signed with an HMAC under
 * HERALD_SECRET_KEY (server/signed-manifest.ts): an archive edited by hand, its checksums
 * recomputed, is refused (issue 44, finding 7).
 */

export const ARCHIVE_FORMAT = "herald-tenant";
export const ARCHIVE_VERSION = 1;

const sha256 = z.string().regex(/^[a-f0-9]{64}$/);

export const manifestSchema = z.object({
  format: z.literal(ARCHIVE_FORMAT),
  version: z.number().int(),
  tenantId: z.string(),
  exportedAt: z.string(),
  sourceDialect: z.enum(["sqlite", "postgres"]),
  heraldVersion: z.string(),
  /** the ids of the keys the secrets are sealed under (server/secret-box.ts); none: no secrets */
  secretKeyIds: z.array(z.string()),
  tables: z.record(z.string(), z.object({ rows: z.number().int().min(0), sha256 })),
  authors: z.object({ count: z.number().int().min(0), sha256 }),
  files: z.record(
    z.string(),
    z.object({ contentType: z.string(), bytes: z.number().int().min(0), sha256 }),
  ),
  /** `<keyId>.<HMAC>` of the rest (server/signed-manifest.ts); absent in archives made before */
  hmac: z.string().optional(),
});

export type Manifest = z.infer<typeof manifestSchema>;

export type Row = Record<string, unknown>;

export interface Author {
  id: string;
  email: string;
  displayName: string | null;
}

export interface ArchiveContents {
  manifest: Manifest;
  tables: Record<string, Row[]>;
  authors: Author[];
  files: Map<string, Uint8Array>;
}

export class ArchiveError extends Error {
  override name = "ArchiveError";
}

export const sha256Of = (bytes: Uint8Array): string =>
  createHash("sha256").update(bytes).digest("hex");

/** The zip's bytes: the manifest is written from what is packed, so its checksums are the entries'. */
export function packArchive(
  head: Omit<Manifest, "tables" | "authors" | "files" | "format" | "version">,
  tables: Record<string, Row[]>,
  authors: Author[],
  files: Map<string, { bytes: Uint8Array; contentType: string }>,
): Uint8Array {
  const entries: Record<string, Uint8Array> = {};
  const manifest: Manifest = {
    format: ARCHIVE_FORMAT,
    version: ARCHIVE_VERSION,
    ...head,
    tables: {},
    authors: { count: authors.length, sha256: "" },
    files: {},
  };
  for (const [table, rows] of Object.entries(tables)) {
    const bytes = strToU8(JSON.stringify(rows));
    entries[`tables/${table}.json`] = bytes;
    manifest.tables[table] = { rows: rows.length, sha256: sha256Of(bytes) };
  }
  const authorBytes = strToU8(JSON.stringify(authors));
  entries["authors.json"] = authorBytes;
  manifest.authors.sha256 = sha256Of(authorBytes);
  for (const [key, file] of files) {
    entries[`files/${key}`] = file.bytes;
    manifest.files[key] = {
      contentType: file.contentType,
      bytes: file.bytes.length,
      sha256: sha256Of(file.bytes),
    };
  }
  const signed = signManifest(getSecretBox(), "tenant archive", manifest);
  entries["manifest.json"] = strToU8(JSON.stringify(signed, null, 2));
  // Images are compressed already; JSON is not.
  return zipSync(entries, { level: 6 });
}

/** A tenant's archive unpacked: its largest table or file, all of it, and its entries (issue 44). */
const ARCHIVE_UNZIP_LIMITS = {
  maxEntries: 500_000,
  maxEntryBytes: 1_000_000_000,
  maxTotalBytes: 4_000_000_000,
};

/**
 * Reads and checks an archive; throws ArchiveError naming what is wrong. `allowUnsigned` takes an
 * archive whose manifest has no signature (made before issue 44); a wrong one is always refused.
 */
export function unpackArchive(
  zip: Uint8Array,
  options: { allowUnsigned?: boolean } = {},
): ArchiveContents {
  let entries: Record<string, Uint8Array>;
  try {
    entries = unzipBounded(zip, ARCHIVE_UNZIP_LIMITS);
  } catch (error) {
    if (error instanceof UnzipError && error.kind === "limit")
      throw new ArchiveError(error.message);
    throw new ArchiveError("This is not a Herald tenant archive (not a readable zip file).");
  }
  const manifestBytes = entries["manifest.json"];
  if (!manifestBytes)
    throw new ArchiveError("This is not a Herald tenant archive (no manifest.json).");
  let raw: unknown;
  try {
    raw = JSON.parse(strFromU8(manifestBytes));
  } catch {
    throw new ArchiveError("The archive's manifest.json is not JSON.");
  }
  const head = z.object({ format: z.string(), version: z.unknown() }).safeParse(raw);
  if (!head.success || head.data.format !== ARCHIVE_FORMAT) {
    throw new ArchiveError(
      "This is not a Herald tenant archive (manifest format is not herald-tenant).",
    );
  }
  if (head.data.version !== ARCHIVE_VERSION) {
    throw new ArchiveError(
      `Unknown archive format version ${JSON.stringify(head.data.version)}: this Herald reads version ${ARCHIVE_VERSION}.`,
    );
  }
  const problem = manifestSignatureProblem(getSecretBox(), "tenant archive", raw, {
    allowUnsigned: options.allowUnsigned ?? false,
  });
  if (problem) throw new ArchiveError(problem);
  const parsed = manifestSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ArchiveError(
      `The archive's manifest is malformed: ${parsed.error.issues[0]?.message}`,
    );
  }
  const manifest = parsed.data;
  const listed = new Set(["manifest.json", "authors.json"]);
  const checked = (name: string, expected: string): Uint8Array => {
    const bytes = entries[name];
    if (!bytes)
      throw new ArchiveError(`Checksum mismatch: ${name} is listed in the manifest but missing.`);
    if (sha256Of(bytes) !== expected) {
      throw new ArchiveError(
        `Checksum mismatch: ${name} is not what was exported (sha-256 differs).`,
      );
    }
    listed.add(name);
    return bytes;
  };
  const tables: Record<string, Row[]> = {};
  for (const [table, entry] of Object.entries(manifest.tables)) {
    if (!/^[a-z_]+$/.test(table))
      throw new ArchiveError(`The manifest names a table ${JSON.stringify(table)}.`);
    const rows = JSON.parse(strFromU8(checked(`tables/${table}.json`, entry.sha256))) as Row[];
    if (!Array.isArray(rows) || rows.length !== entry.rows) {
      throw new ArchiveError(
        `Checksum mismatch: tables/${table}.json does not hold ${entry.rows} rows.`,
      );
    }
    // Column names become SQL identifiers at import: plain lower-case names only.
    for (const row of rows) {
      if (typeof row !== "object" || row === null || Array.isArray(row)) {
        throw new ArchiveError(`tables/${table}.json holds something that is not a row.`);
      }
      const column = Object.keys(row).find((name) => !/^[a-z][a-z0-9_]{0,62}$/.test(name));
      if (column !== undefined) {
        throw new ArchiveError(
          `tables/${table}.json has a column named ${JSON.stringify(column)}.`,
        );
      }
    }
    tables[table] = rows;
  }
  const authors = z
    .array(z.object({ id: z.string(), email: z.string(), displayName: z.string().nullable() }))
    .parse(JSON.parse(strFromU8(checked("authors.json", manifest.authors.sha256))));
  const files = new Map<string, Uint8Array>();
  for (const [key, entry] of Object.entries(manifest.files)) {
    files.set(key, checked(`files/${key}`, entry.sha256));
  }
  const extra = Object.keys(entries).filter((name) => !listed.has(name) && !name.endsWith("/"));
  if (extra.length > 0) {
    throw new ArchiveError(
      `Checksum mismatch: ${extra[0]} is in the archive but not in its manifest.`,
    );
  }
  return { manifest, tables, authors, files };
}
