import { sql } from "kysely";
import type { Db } from "../../db";
import { isPostgres } from "../../db/portable";
import { tenantDb } from "../../db/tenant-guard";
import { fileStoreFor, isValidFileKey, readFile } from "../../files/store";
import { isSealed } from "../../secret-box";
import { heraldVersion } from "../../version";
import { type Author, packArchive, type Row } from "./archive";
import { MOVED_TABLES, SECRET_COLUMNS } from "./tables";

export class TenantExportError extends Error {
  override name = "TenantExportError";
}

export interface ExportSummary {
  archive: Uint8Array;
  tables: Record<string, number>;
  files: number;
  secrets: number;
}

/** The store keys of an image row: the email-safe file and its web variants. */
function imageKeys(row: Row): string[] {
  const variants = JSON.parse(String(row.variants ?? "[]")) as { key?: unknown }[];
  return [String(row.key), ...variants.map((variant) => String(variant.key))];
}

/**
 * A read-only transaction on SQLite: DEFERRED, so it takes no write lock (Herald's own transactions
 * begin IMMEDIATE, server/db/index.ts) and the site and the sender go on writing; in WAL mode its
 * reads all see the database as it was at the first one.
 */
async function readSnapshotOnSqlite<T>(db: Db, read: (trx: Db) => Promise<T>): Promise<T> {
  return db.connection().execute(async (connection) => {
    await sql`begin deferred`.execute(connection);
    try {
      const result = await read(connection);
      await sql`commit`.execute(connection);
      return result;
    } catch (error) {
      await sql`rollback`.execute(connection);
      throw error;
    }
  });
}

/**
 * Every row and file of one tenant, read in one snapshot (REPEATABLE READ on PostgreSQL, a
 * deferred read transaction on SQLite: the site keeps serving and sending meanwhile), as a tenant
 * archive (./archive.ts). Sealed secrets stay sealed; the manifest names their keys.
 */
export async function exportTenant(db: Db, tenantId: string): Promise<ExportSummary> {
  const dialect = isPostgres(db) ? "postgres" : "sqlite";
  const read = async (trx: Db) => {
    const tenant = await trx
      .selectFrom("tenants")
      .selectAll()
      .where("id", "=", tenantId)
      .executeTakeFirst();
    if (!tenant) throw new TenantExportError(`No tenant with id ${tenantId}.`);
    const tables: Record<string, Row[]> = { tenants: [tenant as Row] };
    // Bound to the tenant exported: every moved table has its own tenant_id (required since 0031).
    const tenantRows = tenantDb(trx, tenantId);
    for (const table of MOVED_TABLES) {
      const rows = (await tenantRows
        .selectFrom(table.name as "lists")
        .selectAll()
        .execute()) as Row[];
      for (const row of rows) for (const column of table.derived ?? []) delete row[column];
      tables[table.name] = rows;
    }
    // Bylines: who signed the newsletters, by email, to be found again at the destination.
    const authorIds = [
      ...new Set(
        tables.newsletters?.map((row) => row.author_id).filter((id) => typeof id === "string"),
      ),
    ] as string[];
    const authors: Author[] =
      authorIds.length === 0
        ? []
        : (
            await trx
              .selectFrom("users")
              .select(["id", "email", "display_name"])
              .where("id", "in", authorIds)
              .execute()
          ).map((user) => ({ id: user.id, email: user.email, displayName: user.display_name }));
    const store = fileStoreFor(trx);
    const files = new Map<string, { bytes: Uint8Array; contentType: string }>();
    for (const image of tables.images ?? []) {
      for (const key of imageKeys(image)) {
        if (!isValidFileKey(key) || !key.startsWith(`${tenantId}/`)) {
          throw new TenantExportError(
            `Image ${String(image.key)} names a file key ${key} outside the tenant.`,
          );
        }
        const file = await readFile(store, key);
        if (!file)
          throw new TenantExportError(`The file ${key} is missing from the ${store.kind} store.`);
        files.set(key, { bytes: file.bytes, contentType: file.contentType });
      }
    }
    return { tables, authors, files };
  };
  const snapshot = isPostgres(db)
    ? await db.transaction().setIsolationLevel("repeatable read").execute(read)
    : await readSnapshotOnSqlite(db, read);
  let secrets = 0;
  const keyIds = new Set<string>();
  for (const [table, column] of Object.entries(SECRET_COLUMNS)) {
    for (const row of snapshot.tables[table] ?? []) {
      // Every start seals plaintext left by older versions (server/secrets-at-rest.ts); an archive
      // never carries a secret in the clear.
      if (!isSealed(String(row[column]))) {
        throw new TenantExportError(
          `${table}.${column} holds an unsealed value: start Herald once to seal it, then export.`,
        );
      }
      keyIds.add(String(row[column]).split(".")[1] ?? "");
      secrets++;
    }
  }
  const archive = packArchive(
    {
      tenantId,
      exportedAt: new Date().toISOString(),
      sourceDialect: dialect,
      heraldVersion: heraldVersion(),
      secretKeyIds: [...keyIds].sort(),
    },
    snapshot.tables,
    snapshot.authors,
    snapshot.files,
  );
  return {
    archive,
    tables: Object.fromEntries(
      Object.entries(snapshot.tables).map(([name, rows]) => [name, rows.length]),
    ),
    files: snapshot.files.size,
    secrets,
  };
}
