import type { ColumnDefinitionBuilder, CreateTableBuilder, Kysely } from "kysely";
import { autoIncrementId } from "../portable";

export { autoIncrementId };

/*
 * The column shapes the migrations repeat. Each helper writes exactly the column definition the
 * migrations once spelt out (same SQL), so rewriting a migration with them changes no schema.
 */

/** The database a migration gets: untyped, since migrations must not depend on today's tables. */
// biome-ignore lint/suspicious/noExplicitAny: see above
export type MigrationDb = Kysely<any>;

type Column = ColumnDefinitionBuilder;
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types
type Table = CreateTableBuilder<any, any>;

export const required = (col: Column) => col.notNull();
export const primaryKey = (col: Column) => col.primaryKey();

/** A required reference to a row whose deletion takes this one with it. */
export const ownedBy = (target: string) => (col: Column) =>
  col.notNull().references(target).onDelete("cascade");

/** An optional reference, cleared when the row it names is deleted. */
export const optionalRef = (target: string) => (col: Column) =>
  col.references(target).onDelete("set null");

/** A required column with a default. */
export const requiredWithDefault = (value: string | number) => (col: Column) =>
  col.notNull().defaultTo(value);

/**
 * A table of a tenant's rows: its key (`id`, auto-incrementing unless `idType` says "text") and
 * `tenant_id`, the first two columns, then whatever the caller adds.
 */
export function tenantTable(
  db: MigrationDb,
  name: string,
  idType: "serial" | "text" = "serial",
): Table {
  return db.schema
    .createTable(name)
    .addColumn("id", idType === "text" ? "text" : autoIncrementId(db), primaryKey)
    .addColumn("tenant_id", "text", ownedBy("tenants.id"));
}

/** Required text columns, in the order given. */
export const requiredText =
  (...names: string[]) =>
  (table: Table) =>
    names.reduce((built, name) => built.addColumn(name, "text", required), table);

/** A plain (non-unique) index. */
export async function createIndex(
  db: MigrationDb,
  name: string,
  table: string,
  columns: string[],
): Promise<void> {
  await db.schema.createIndex(name).on(table).columns(columns).execute();
}
