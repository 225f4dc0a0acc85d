import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase, testDialects } from "../../tests/support/database";
import { migrateToLatest } from "../db/migrate";
import { seedTenants } from "../tenants/seed";
import { addComment, deleteComment, setCommentHidden } from "./comments";
import { createNewsletter } from "./editing";
import { publishNewsletter } from "./newsletters";
import { readNewsletter } from "./reading";

// A real database: the readers' comment list is kept per page version, and every change to that
// list must reach the next reading.
describe.each(testDialects())("reading a newsletter on %s", (dialect) => {
  let database: TestDatabase;
  const main = () => ({ db: database.db, tenantId: "main" });
  const read = async (slug: string, options = { countView: true, includeHidden: false }) => {
    const reading = await readNewsletter(main(), slug, options);
    if (!reading) throw new Error("not found");
    return reading;
  };
  const texts = (reading: { comments: { text: string }[] }) =>
    reading.comments.map((comment) => comment.text);

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    await migrateToLatest(database.db);
    await seedTenants(database.db);
  });

  afterAll(async () => {
    await database?.drop();
  });

  async function published() {
    const created = await createNewsletter(
      { ...main(), authorId: null },
      { title: "Title", excerpt: "Excerpt", content: "<p>Body</p>", readTime: 3 },
    );
    await publishNewsletter(main(), created.id);
    return created;
  }

  it("counts each view and shows every change to the comments on the next reading", async () => {
    const newsletter = await published();
    const slug = newsletter.slug;
    expect(texts(await read(slug))).toEqual([]);
    const first = await addComment(main(), { newsletterId: newsletter.id, text: "First" });
    if (first.status !== "added") throw new Error(first.status);
    expect(texts(await read(slug))).toEqual(["First"]);
    const second = await addComment(main(), { newsletterId: newsletter.id, text: "Second" });
    if (second.status !== "added") throw new Error(second.status);
    const withBoth = await read(slug);
    expect(texts(withBoth)).toEqual(["Second", "First"]);
    expect(texts(await read(slug))).toEqual(["Second", "First"]);
    expect((await read(slug)).newsletter.metrics.views).toBe(withBoth.newsletter.metrics.views + 2);

    expect(await setCommentHidden(main(), first.comment.id, true)).toBe(true);
    expect(texts(await read(slug))).toEqual(["Second"]);
    // Staff see the hidden one too.
    expect(texts(await read(slug, { countView: true, includeHidden: true }))).toEqual([
      "Second",
      "First",
    ]);
    expect(await setCommentHidden(main(), first.comment.id, false)).toBe(true);
    expect(texts(await read(slug))).toEqual(["Second", "First"]);
    expect(await deleteComment(main(), second.comment.id)).toBe(true);
    expect(texts(await read(slug))).toEqual(["First"]);
    // A reading that counts no view (HEAD, after a comment's action) reads the list too.
    expect(texts(await read(slug, { countView: false, includeHidden: false }))).toEqual(["First"]);
  });
});
