import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { CompiledQuery } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "../db";
import { migrateToLatest } from "../db/migrate";
import { crossTenant, tenantDb } from "../db/tenant-guard";
import { seedTenants } from "../tenants/seed";
import { createNewsletter } from "./editing";
import { newestPublishedNewsletter } from "./listing";
import { publishNewsletter } from "./newsletters";

// The order readers see published newsletters in: newest first, the id breaking ties (decision 053).
const dir = mkdtempSync(path.join(tmpdir(), "herald-listing-"));
let db: Db;
const scope = () => ({ db, tenantId: "main", authorId: null });

beforeAll(async () => {
  db = createDb(`file:${path.join(dir, "listing.db")}`);
  await migrateToLatest(db);
  await seedTenants(db);
});

afterAll(async () => {
  await db.destroy();
});

describe("published newsletters, newest first", () => {
  it("takes the order from the index: no sort of its own, even for one row", async () => {
    const query = tenantDb(db, "main")
      .selectFrom("newsletters")
      .where("status", "=", "published")
      .orderBy("published_at", "desc")
      .orderBy("id", "desc")
      .limit(1)
      .offset(0)
      .select(["id", "title"])
      .compile();
    const plan = await crossTenant(db).executeQuery<{ detail: string }>(
      CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]),
    );
    const steps = plan.rows.map((row) => row.detail);
    expect(steps.join("\n")).toContain("USING INDEX newsletters_tenant_status_published");
    expect(steps.join("\n")).not.toContain("TEMP B-TREE");
  });

  it("gives the home page the newest, and of two published at once the later id", async () => {
    expect(await newestPublishedNewsletter(scope())).toBeNull();
    const first = await createNewsletter(scope(), {
      title: "First",
      excerpt: "",
      content: "<p>1</p>",
    });
    await publishNewsletter(scope(), first.id);
    expect((await newestPublishedNewsletter(scope()))?.title).toBe("First");
    const second = await createNewsletter(scope(), {
      title: "Second",
      excerpt: "",
      content: "<p>2</p>",
    });
    await publishNewsletter(scope(), second.id);
    const [published] = await crossTenant(db)
      .selectFrom("newsletters")
      .select("published_at")
      .where("id", "=", first.id)
      .execute();
    await crossTenant(db)
      .updateTable("newsletters")
      .set({ published_at: published?.published_at ?? null })
      .where("id", "=", second.id)
      .execute();
    const later = [first.id, second.id].sort().at(-1);
    expect((await newestPublishedNewsletter(scope()))?.id).toBe(later);
  });
});
