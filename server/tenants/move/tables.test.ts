import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { TENANT_TABLES } from "../../db/tenant-guard";
import { INSTALL_TABLES, MOVED_TABLES, NOT_REFERENCES } from "./tables";

/** Each table of server/db/schema.ts with its columns, read from the file itself. */
function schemaColumns(): Map<string, string[]> {
  const source = readFileSync(new URL("../../db/schema.ts", import.meta.url), "utf8");
  const interfaces = new Map<string, string[]>();
  for (const [, name = "", body = ""] of source.matchAll(
    /export interface (\w+Table) \{(.*?)\n\}/gs,
  )) {
    interfaces.set(
      name,
      [...body.matchAll(/^\s+(\w+)\??:/gm)].map((match) => match[1] ?? ""),
    );
  }
  const database = /export interface Database \{(.*?)\n\}/s.exec(source)?.[1] ?? "";
  return new Map(
    [...database.matchAll(/(\w+): (\w+);/g)].map(([, table = "", type = ""]) => [
      table,
      interfaces.get(type) ?? [],
    ]),
  );
}

describe("what a tenant archive holds", () => {
  const tables = schemaColumns();
  const moved = new Map(MOVED_TABLES.map((table) => [table.name as string, table]));

  it("reads the schema (the scan works)", () => {
    expect(tables.get("campaigns")).toContain("segment_ids");
    expect(tables.size).toBeGreaterThanOrEqual(34);
  });

  it("moves every table of a tenant's rows, and only those", () => {
    for (const table of tables.keys()) {
      const stays = INSTALL_TABLES[table as keyof typeof INSTALL_TABLES];
      expect(moved.has(table) !== (stays !== null && stays !== undefined), table).toBe(true);
    }
    for (const table of TENANT_TABLES) {
      if (table !== "stored_files" && table !== "jobs") expect(moved.has(table), table).toBe(true);
    }
  });

  it("follows every column that holds another row's id, or says what it holds instead", () => {
    const unplaced: string[] = [];
    for (const [table, columns] of tables) {
      const spec = moved.get(table);
      if (!spec && table !== "tenants") continue;
      for (const column of columns.filter((name) => /_ids?$/.test(name) && name !== "tenant_id")) {
        const followed = spec?.refs?.[column] ?? spec?.jsonRefs?.[column];
        if (!followed && !NOT_REFERENCES[`${table}.${column}`]) unplaced.push(`${table}.${column}`);
      }
    }
    expect(unplaced).toEqual([]);
  });
});
