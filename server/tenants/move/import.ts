import { randomUUID } from "node:crypto";
import { domainField, tenantIdField } from "../../../shared/schemas/tenant";
import type { Db } from "../../db";
import { crossTenant } from "../../db/tenant-guard";
import { fileStoreFor } from "../../files/store";
import { linkedInTokensAt } from "../../linkedin/connections";
import { dkimPrivateKeyAt } from "../../mail/dkim";
import { cleanImportedHtml } from "../../newsletters/html-limits";
import { syncSearchIndex } from "../../newsletters/search";
import { webhookSecretAt } from "../../providers/mailerlite-webhook";
import { getSecretBox, type SealedAt, SecretBoxError } from "../../secret-box";
import { dropAudienceCounts } from "../../subscribers/counts";
import { recordChange } from "../history";
import { invalidateTenant } from "../store";
import { type ArchiveContents, type Row, unpackArchive } from "./archive";
import { checkedFiles, imageRowsProblem, storeFiles } from "./import-files";
import {
  type IdSpace,
  INSTALL_TABLES,
  MOVED_TABLES,
  SECRET_COLUMNS,
  type TableName,
} from "./tables";

/** A refused import: nothing was written. */
export class TenantImportError extends Error {
  override name = "TenantImportError";
}

export interface ImportOptions {
  /** the tenant's id at the destination; default: its id in the archive */
  as?: string;
  /** the tenant's domain at the destination; undefined: the archive's; null: none */
  domain?: string | null;
  /** leave the DKIM keys and webhook secrets out (the destination cannot open them) */
  withoutSecrets?: boolean;
  /** take an archive whose manifest is not signed (made before issue 44) */
  allowUnsigned?: boolean;
}

export interface ImportSummary {
  tenantId: string;
  /** rows written per table (audience_counts and newsletter_search as the archive has them) */
  tables: Record<string, number>;
  files: number;
  /** how many secrets were re-sealed for their new rows; "left out" with --without-secrets */
  secrets: number | "left out";
  /**
   * newsletters whose author has no staff account with the same email here: no author_id, the
   * byline keeps the author's display name when they had one
   */
  bylinesCleared: { newsletter: string; authorEmail: string; keptName: string | null }[];
  /** text ids already taken at the destination, given new ones */
  renamedIds: number;
}

const BATCH = 200;
/** The actor of the "created" entry an import adds to the tenant's history. */
export const IMPORT_ACTOR = "herald tenant import";

/** Where a secret of `table` on `row` is sealed, for the tenant `tenantId`. */
function sealedAt(table: string, row: Row, tenantId: string): SealedAt {
  if (table === "linkedin_connections") return linkedInTokensAt(tenantId);
  return table === "dkim_keys"
    ? dkimPrivateKeyAt({
        tenant_id: tenantId,
        selector: String(row.selector),
        domain: String(row.domain),
      })
    : webhookSecretAt(tenantId, String(row.provider));
}

/** A column of a natural key the destination enforces, to find the new id of each inserted row. */
const NATURAL_KEYS: Partial<Record<IdSpace, readonly string[]>> = {
  lists: ["key"],
  subscribers: ["email"],
  deliveries: ["campaign_id", "subscriber_id"],
};

/**
 * Writes a tenant archive (./archive.ts) into this install as a new tenant, in one transaction:
 * integer ids are given anew and every reference follows (foreign keys and the ids kept in JSON
 * columns), text ids already taken here are replaced, `as` renames the tenant with its file keys
 * and /uploads/ URLs, sealed secrets are opened with this install's keys and sealed for their new
 * rows. Refused (TenantImportError or ArchiveError, nothing written): an archive that does not
 * check out, a tenant id or domain already here, secrets this install cannot open, a file or
 * image row not under the archive's tenant, a file that does not decode as its image type.
 *
 * Files are written to the store inside the transaction's callback: on PostgreSQL without S3
 * they are rows of it and go with it; on disk or S3 a failure after some were written leaves
 * those few files, which no row names (harmless: a retry finds the same bytes and keeps them).
 */
export async function importTenant(
  db: Db,
  zip: Uint8Array,
  options: ImportOptions = {},
): Promise<ImportSummary> {
  const archive = unpackArchive(zip, { allowUnsigned: options.allowUnsigned });
  const source = archive.tables.tenants?.[0];
  if (!source || archive.tables.tenants?.length !== 1) {
    throw new TenantImportError("The archive holds no tenant row.");
  }
  const known = new Set<string>(["tenants", ...MOVED_TABLES.map((table) => table.name)]);
  for (const table of Object.keys(archive.tables)) {
    if (!known.has(table)) {
      throw new TenantImportError(
        INSTALL_TABLES[table as TableName]
          ? `The archive holds ${table}, which belongs to an install, not a tenant.`
          : `The archive holds a table this Herald does not know: ${table}.`,
      );
    }
  }
  const fromId = archive.manifest.tenantId;
  if (source.id !== fromId)
    throw new TenantImportError("The archive's tenant row is not the manifest's tenant.");
  // The same rules as the tenant manager's (shared/schemas/tenant.ts).
  const id = tenantIdField.safeParse(options.as ?? fromId);
  if (!id.success) {
    throw new TenantImportError(
      `"${options.as ?? fromId}" is not a tenant id: ${id.error.issues[0]?.message}.`,
    );
  }
  const tenantId = id.data;
  let domain = source.domain as string | null;
  if (options.domain !== undefined) {
    const given = options.domain === null ? null : domainField.safeParse(options.domain);
    if (given && !given.success) {
      throw new TenantImportError(
        `"${options.domain}" is not a domain: ${given.error.issues[0]?.message}.`,
      );
    }
    domain = given ? given.data : null;
  }
  const rename = renamer(fromId, tenantId);
  const secrets = options.withoutSecrets ? null : openSecrets(archive, fromId);
  // The tenant's own files only, each an image: checked whole before anything is written.
  const refuse = (message: string) => new TenantImportError(message);
  const imagesProblem = imageRowsProblem(archive.tables.images ?? [], fromId);
  if (imagesProblem) throw refuse(imagesProblem);
  const files = await checkedFiles(archive.files, fromId, rename.key, refuse);

  const summary = await db.transaction().execute(async (trx) => {
    const all = crossTenant(trx); // checks across tenants: what this install already has
    if (
      await trx.selectFrom("tenants").select("id").where("id", "=", tenantId).executeTakeFirst()
    ) {
      throw new TenantImportError(
        `A tenant with id ${tenantId} already exists here; import with --as NEW_ID to give it another.`,
      );
    }
    if (domain) {
      const holder = await trx
        .selectFrom("tenants")
        .select("id")
        .where("domain", "=", domain)
        .executeTakeFirst();
      if (holder) {
        throw new TenantImportError(
          `The domain ${domain} is already used by tenant ${holder.id} here; import with --domain NEW_DOMAIN or --domain none.`,
        );
      }
    }
    const imageKeys = (archive.tables.images ?? []).map((row) => rename.key(String(row.key)));
    for (let start = 0; start < imageKeys.length; start += BATCH) {
      const taken = await all
        .selectFrom("images")
        .select("key")
        .where("key", "in", imageKeys.slice(start, start + BATCH))
        .executeTakeFirst();
      if (taken) {
        throw new TenantImportError(
          `The image ${taken.key} is already recorded here (left by a deleted tenant ${tenantId}?); import with --as NEW_ID.`,
        );
      }
    }

    await trx
      .insertInto("tenants")
      .values({ ...rename.row(source), id: tenantId, domain } as never)
      .execute();

    const ids = new Map<IdSpace, Map<unknown, unknown>>();
    const space = (name: IdSpace) => {
      const map = ids.get(name) ?? new Map<unknown, unknown>();
      ids.set(name, map);
      return map;
    };
    // Bylines: the staff user with the same email here (staff are few: read them all).
    const users = await trx.selectFrom("users").select(["id", "email"]).execute();
    const userByEmail = new Map(users.map((user) => [user.email.toLowerCase(), user.id]));
    for (const author of archive.authors) {
      const here = userByEmail.get(author.email.toLowerCase());
      if (here) space("users").set(author.id, here);
    }
    // Text ids: kept unless this install has them (another tenant, or this archive imported before).
    let renamedIds = 0;
    for (const name of ["newsletters", "campaigns"] as const) {
      const wanted = (archive.tables[name] ?? []).map((row) => String(row.id));
      const taken = new Set<string>();
      for (let start = 0; start < wanted.length; start += BATCH) {
        for (const row of await all
          .selectFrom(name)
          .select("id")
          .where("id", "in", wanted.slice(start, start + BATCH))
          .execute()) {
          taken.add(row.id);
        }
      }
      for (const id of wanted) {
        const next = taken.has(id) ? randomUUID() : id;
        if (next !== id) renamedIds++;
        space(name).set(id, next);
      }
    }

    const mapped = (name: IdSpace, value: unknown, table: string, column: string): unknown => {
      if (value === null || value === undefined) return null;
      if (table === "audience_counts" && value === 0) return 0; // list 0: all lists
      const next = ids.get(name)?.get(value);
      if (next !== undefined) return next;
      if (name === "users") return null; // no such staff user here: the byline is cleared
      // A newsletter's campaign_id may name a campaign deleted since (no foreign key).
      if (table === "newsletters") return null;
      throw new TenantImportError(
        `The archive's ${table}.${column} names ${name} ${String(value)}, which it does not hold.`,
      );
    };

    const bylinesCleared: ImportSummary["bylinesCleared"] = [];
    const tables: Record<string, number> = { tenants: 1 };
    for (const table of MOVED_TABLES) {
      const rows = archive.tables[table.name] ?? [];
      tables[table.name] = rows.length;
      if (table.name === "newsletter_search") continue; // indexed below
      if (table.name === "audience_counts") await dropAudienceCounts(trx, tenantId);
      const secretColumn = SECRET_COLUMNS[table.name];
      if (secretColumn && !secrets) {
        tables[table.name] = 0;
        continue;
      }
      const out: Row[] = rows.map((row) => {
        const next = rename.row(row);
        next.tenant_id = tenantId;
        for (const column of table.derived ?? []) delete next[column];
        for (const [column, name] of Object.entries(table.refs ?? {})) {
          next[column] = mapped(name, row[column], table.name, column);
        }
        for (const [column, name] of Object.entries(table.jsonRefs ?? {})) {
          const list = JSON.parse(String(row[column] ?? "[]")) as unknown[];
          next[column] = JSON.stringify(
            list.map((value) => mapped(name, value, table.name, column)),
          );
        }
        if (table.name === "newsletters") {
          next.content = cleanImportedHtml(String(next.content ?? ""), String(row.title), refuse);
        }
        if (table.id === "text") next.id = ids.get(table.name as IdSpace)?.get(row.id) ?? row.id;
        if (table.id === "serial") delete next.id;
        if (table.name === "images") {
          next.key = rename.key(String(row.key));
          const variants = JSON.parse(String(row.variants)) as { key: string }[];
          next.variants = JSON.stringify(
            variants.map((variant) => ({ ...variant, key: rename.key(variant.key) })),
          );
        }
        if (secretColumn && secrets) {
          const plain = secrets.get(row) ?? "";
          next[secretColumn] = getSecretBox().seal(plain, sealedAt(table.name, next, tenantId));
        }
        if (table.name === "newsletters" && row.author_id && next.author_id === null) {
          // No staff user here: the byline keeps the author's name (author_name, 0030).
          const author = archive.authors.find((each) => each.id === row.author_id);
          next.author_name ??= author?.displayName ?? null;
          bylinesCleared.push({
            newsletter: String(row.title),
            authorEmail: author?.email ?? "(unknown)",
            keptName: (next.author_name as string | null) ?? null,
          });
        }
        return next;
      });
      const idSpace = (["lists", "subscribers", "segments", "deliveries"] as const).find(
        (name) => name === table.name,
      );
      await insertRows(trx, table.name, rows, out, idSpace ? space(idSpace) : undefined, idSpace);
    }

    for (const row of archive.tables.newsletters ?? []) {
      if (row.status !== "published") continue;
      await syncSearchIndex(trx, tenantId, String(ids.get("newsletters")?.get(row.id)));
    }

    await storeFiles(fileStoreFor(trx), files, refuse);
    // The tenant manager's history says where the tenant came from.
    const { exportedAt, sourceDialect, heraldVersion } = archive.manifest;
    await recordChange(trx, tenantId, "created", IMPORT_ACTOR, [
      {
        field: "imported",
        before: null,
        after: { from: fromId, exportedAt, sourceDialect, heraldVersion },
      },
    ]);
    return { tenantId, tables, files: archive.files.size, bylinesCleared, renamedIds };
  });
  invalidateTenant(tenantId);
  return { ...summary, secrets: secrets ? secrets.size : "left out" };
}

/**
 * Opens every sealed secret of the archive with this install's keys, before anything is written:
 * the source's key must be HERALD_SECRET_KEY or in HERALD_SECRET_KEY_PREVIOUS here.
 */
function openSecrets(archive: ArchiveContents, fromId: string): Map<Row, string> {
  const box = getSecretBox();
  const opened = new Map<Row, string>();
  for (const [table, column] of Object.entries(SECRET_COLUMNS)) {
    for (const row of archive.tables[table] ?? []) {
      try {
        opened.set(row, box.open(String(row[column]), sealedAt(table, row, fromId)));
      } catch (error) {
        if (!(error instanceof SecretBoxError)) throw error;
        throw new TenantImportError(
          `The archive's secrets (DKIM keys, webhook secrets) are sealed under key id ${archive.manifest.secretKeyIds.join(", ")}, which this install cannot open (${error.message}). Put the source install's HERALD_SECRET_KEY in HERALD_SECRET_KEY_PREVIOUS here, or import with --without-secrets.`,
        );
      }
    }
  }
  return opened;
}

/** Renames a tenant's file keys and the /uploads/ URLs that name them; the identity when the id stays. */
function renamer(fromId: string, toId: string) {
  const same = fromId === toId;
  const urls = `/uploads/${fromId}/`;
  const text = (value: string) => (same ? value : value.replaceAll(urls, `/uploads/${toId}/`));
  return {
    key: (key: string) =>
      same || !key.startsWith(`${fromId}/`) ? key : `${toId}/${key.slice(fromId.length + 1)}`,
    /** a copy of the row with every text column's /uploads/ URLs renamed */
    row(row: Row): Row {
      return Object.fromEntries(
        Object.entries(row).map(([column, value]) => [
          column,
          typeof value === "string" ? text(value) : value,
        ]),
      );
    },
  };
}

/**
 * Inserts a table's rows in batches. When other rows point to this table (`ids`), the new ids are
 * read back with the row's natural key (each table's unique columns), or row by row without one.
 */
async function insertRows(
  trx: Db,
  table: TableName,
  original: readonly Row[],
  rows: readonly Row[],
  ids: Map<unknown, unknown> | undefined,
  space: IdSpace | undefined,
): Promise<void> {
  // Table and columns come from MOVED_TABLES and the archive's rows; each row carries tenant_id.
  const into = () => trx.insertInto(table as "lists");
  const natural = space ? NATURAL_KEYS[space] : undefined;
  if (ids && !natural) {
    for (const [index, row] of rows.entries()) {
      const { id } = await into()
        .values(row as never)
        .returning("id")
        .executeTakeFirstOrThrow();
      ids.set(original[index]?.id, id);
    }
    return;
  }
  for (let start = 0; start < rows.length; start += BATCH) {
    const batch = rows.slice(start, start + BATCH);
    if (!ids || !natural) {
      await into()
        .values(batch as never)
        .execute();
      continue;
    }
    const keyOf = (row: Row) => JSON.stringify(natural.map((column) => row[column]));
    const returned = (await into()
      .values(batch as never)
      .returning(["id", ...natural] as never)
      .execute()) as unknown as Row[];
    const byKey = new Map(returned.map((row) => [keyOf(row), row.id]));
    for (const [offset, row] of batch.entries()) {
      ids.set(original[start + offset]?.id, byKey.get(keyOf(row)));
    }
  }
}
