import { strFromU8, strToU8, unzipSync, zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { createTestDatabase } from "../../../tests/support/database";
import { publishedNewsletter } from "../../../tests/support/newsletters";
import { migrateToLatest } from "../../db/migrate";
import { crossTenant } from "../../db/tenant-guard";
import { getSecretBox } from "../../secret-box";
import { signManifest } from "../../signed-manifest";
import { createTenant } from "../admin";
import { seedTenants } from "../seed";
import { sha256Of } from "./archive";
import { exportTenant } from "./export";
import { importTenant } from "./import";

/*
 * Issue 44, findings 2 and 8, for `herald tenant import`: a newsletter's HTML in an archive
 * (edited by someone holding the key) is cleaned as the page cleans it before it is stored, and a
 * pathological one (20,000 nested <div>) refuses the import, naming the newsletter.
 */

/** The archive with the first newsletter's content replaced, re-signed with this key. */
function withContent(zip: Uint8Array, content: string): Uint8Array {
  const entries = unzipSync(zip);
  const manifest = JSON.parse(strFromU8(entries["manifest.json"] as Uint8Array));
  const rows = JSON.parse(strFromU8(entries["tables/newsletters.json"] as Uint8Array));
  rows[0].content = content;
  const bytes = strToU8(JSON.stringify(rows));
  entries["tables/newsletters.json"] = bytes;
  manifest.tables.newsletters.sha256 = sha256Of(bytes);
  delete manifest.hmac;
  const signed = signManifest(getSecretBox(), "tenant archive", manifest);
  entries["manifest.json"] = strToU8(JSON.stringify(signed));
  return zipSync(entries);
}

describe("a tenant archive's newsletter HTML", () => {
  it("is cleaned before it is stored, and refused by name when pathological", async () => {
    const database = await createTestDatabase("sqlite");
    try {
      const { db } = database;
      await migrateToLatest(db);
      await seedTenants(db);
      await createTenant(db, "seed@herald.test", { id: "solo", name: "Solo", domain: "solo.test" });
      await publishedNewsletter(db, "solo", { title: "Huge post", excerpt: "x" });
      const { archive } = await exportTenant(db, "solo");

      const dirty = withContent(
        archive,
        '<p>Hi<img src="https://a.example/x.png" onerror="alert(1)"></p><script>alert(2)</script>',
      );
      await importTenant(db, dirty, { as: "solo-two", domain: null });
      const stored = await crossTenant(db)
        .selectFrom("newsletters")
        .select("content")
        .where("tenant_id", "=", "solo-two")
        .executeTakeFirstOrThrow();
      expect(stored.content).toBe('<p>Hi<img src="https://a.example/x.png" /></p>');

      const nested = `${"<div>".repeat(20_000)}deep${"</div>".repeat(20_000)}`;
      await expect(
        importTenant(db, withContent(archive, nested), { as: "solo-three", domain: null }),
      ).rejects.toThrow(
        "The newsletter “Huge post” is refused. Its HTML nests elements more than 100 deep; at most 100 levels are imported.",
      );
      const three = await crossTenant(db)
        .selectFrom("tenants")
        .select("id")
        .where("id", "=", "solo-three")
        .executeTakeFirst();
      expect(three).toBeUndefined();
    } finally {
      await database.drop();
    }
  });
});
