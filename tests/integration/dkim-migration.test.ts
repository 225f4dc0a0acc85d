import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { migrateToLatest, migratorFor } from "../../server/db/migrate";
import { crossTenant } from "../../server/db/tenant-guard";
import { createTestDatabase, type TestDatabase, testDialects } from "../support/database";

/*
 * Migration 0036 (docs/decisions/049-dkim-both-ways.md): the keys a tenant had stay as they were,
 * and from then on one active key per algorithm is allowed, a second of the same one refused.
 */
describe.each(testDialects())("migration 0036 (DKIM keys per algorithm) on %s", (dialect) => {
  let database: TestDatabase | undefined;

  afterEach(async () => {
    await database?.drop();
    database = undefined;
  });

  it("keeps the keys and allows one active key per algorithm", async () => {
    database = await createTestDatabase(dialect);
    const raw = crossTenant(database.db);
    expect(
      (await migratorFor(database.db).migrateTo("0033_one_sender_name")).error,
    ).toBeUndefined();
    const now = new Date().toISOString();
    await sql`insert into tenants (id, name, config, created_at, updated_at) values
      ('kd', 'KD', '{}', ${now}, ${now})`.execute(raw);
    const key = (status: string, selector: string, algorithm: string) =>
      sql`insert into dkim_keys (tenant_id, status, selector, domain, algorithm, public_key, private_key, created_by, created_at)
        values ('kd', ${status}, ${selector}, 'kd.example', ${algorithm}, 'p', 'v1.sealed', 'chief', ${now})`.execute(
        raw,
      );
    await key("active", "s1", "rsa");
    await key("pending", "s2", "rsa");

    await migrateToLatest(database.db);

    const rows = () =>
      raw
        .selectFrom("dkim_keys")
        .select(["status", "selector", "algorithm"])
        .orderBy("id")
        .execute();
    expect(await rows()).toEqual([
      { status: "active", selector: "s1", algorithm: "rsa" },
      { status: "pending", selector: "s2", algorithm: "rsa" },
    ]);
    await key("active", "e1", "ed25519");
    await expect(key("active", "s3", "rsa")).rejects.toThrow(/unique/i);
    expect((await rows()).map((row) => row.selector)).toEqual(["s1", "s2", "e1"]);
  });
});
