import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "../db";
import { migrateToLatest } from "../db/migrate";
import { seedTenants } from "../tenants/seed";
import {
  addComment,
  deleteComment,
  getCommentThread,
  listComments,
  setCommentHidden,
} from "./comments";
import { createNewsletter } from "./editing";
import { getNewsletter } from "./listing";
import { publishNewsletter } from "./newsletters";

describe("comments", () => {
  let dir: string;
  let db: Db;
  const main = () => ({ db, tenantId: "main" });
  const other = () => ({ db, tenantId: "keydiscovery" });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "herald-comments-"));
    db = createDb(`file:${join(dir, "test.db")}`);
    await migrateToLatest(db);
    await seedTenants(db);
  });

  afterAll(async () => {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  async function newsletter(options: { publish?: boolean } = {}) {
    const created = await createNewsletter(
      { ...main(), authorId: null },
      { title: "Title", excerpt: "Excerpt", content: "<p>Body</p>", readTime: 3 },
    );
    if (options.publish !== false) await publishNewsletter(main(), created.id);
    return created.id;
  }

  const publicCount = async (id: string) =>
    (await getNewsletter(main(), id))?.metrics.comments ?? Number.NaN;

  it("stores a trimmed anonymous comment and counts it", async () => {
    const id = await newsletter();
    const outcome = await addComment(main(), { newsletterId: id, text: "  Hello\r\nworld  " });
    expect(outcome.status).toBe("added");
    if (outcome.status !== "added") return;
    expect(outcome.comment).toMatchObject({
      newsletterId: id,
      text: "Hello\nworld",
      author: "Anonymous",
      hidden: false,
    });
    expect(await publicCount(id)).toBe(1);
  });

  it("ignores blank text and refuses drafts and other tenants' newsletters", async () => {
    const id = await newsletter();
    expect(await addComment(main(), { newsletterId: id, text: " \n\t " })).toEqual({
      status: "ignored",
    });
    const draft = await newsletter({ publish: false });
    expect((await addComment(main(), { newsletterId: draft, text: "Hi" })).status).toBe(
      "not-found",
    );
    expect((await addComment(other(), { newsletterId: id, text: "Hi" })).status).toBe("not-found");
    expect(await listComments(main(), id, { includeHidden: true })).toEqual([]);
    expect(await listComments(main(), draft, { includeHidden: true })).toEqual([]);
    expect(await publicCount(id)).toBe(0);
    expect(await publicCount(draft)).toBe(0);
  });

  it("refuses text over 2000 characters", async () => {
    const id = await newsletter();
    await expect(addComment(main(), { newsletterId: id, text: "x".repeat(2001) })).rejects.toThrow(
      "Comments must be at most 2000 characters.",
    );
    expect(await publicCount(id)).toBe(0);
  });

  it("counts every one of many concurrent comments", async () => {
    const id = await newsletter();
    await Promise.all(
      Array.from({ length: 25 }, (_, i) => addComment(main(), { newsletterId: id, text: `#${i}` })),
    );
    expect(await publicCount(id)).toBe(25);
    expect(await listComments(main(), id)).toHaveLength(25);
  });

  it("lists newest first and shows hidden comments only when asked", async () => {
    const id = await newsletter();
    for (const text of ["first", "second", "third"]) {
      await addComment(main(), { newsletterId: id, text });
    }
    const [third, second] = await listComments(main(), id);
    expect([third?.text, second?.text]).toEqual(["third", "second"]);
    await setCommentHidden(main(), second?.id as number, true);
    expect((await listComments(main(), id)).map((c) => c.text)).toEqual(["third", "first"]);
    const all = await listComments(main(), id, { includeHidden: true });
    expect(all.map((c) => [c.text, c.hidden])).toEqual([
      ["third", false],
      ["second", true],
      ["first", false],
    ]);
    expect(await getCommentThread(main(), id)).toMatchObject({ count: 2 });
    expect(await listComments(other(), id, { includeHidden: true })).toEqual([]);
  });

  it("moves the public count only when hiding or showing changes something", async () => {
    const id = await newsletter();
    const added = await addComment(main(), { newsletterId: id, text: "moderate me" });
    if (added.status !== "added") throw new Error("not added");
    const commentId = added.comment.id;
    expect(await setCommentHidden(main(), commentId, true)).toBe(true);
    expect(await publicCount(id)).toBe(0);
    expect(await setCommentHidden(main(), commentId, true)).toBe(true);
    expect(await publicCount(id)).toBe(0);
    expect(await setCommentHidden(main(), commentId, false)).toBe(true);
    expect(await publicCount(id)).toBe(1);
    expect(await setCommentHidden(other(), commentId, true)).toBe(false);
    expect(await publicCount(id)).toBe(1);
    expect(await setCommentHidden(main(), 999_999, true)).toBe(false);
  });

  it("deletes a comment of this tenant only; a hidden one was already off the count", async () => {
    const id = await newsletter();
    const visible = await addComment(main(), { newsletterId: id, text: "visible" });
    const hidden = await addComment(main(), { newsletterId: id, text: "hidden" });
    if (visible.status !== "added" || hidden.status !== "added") throw new Error("not added");
    await setCommentHidden(main(), hidden.comment.id, true);
    expect(await publicCount(id)).toBe(1);
    expect(await deleteComment(other(), visible.comment.id)).toBe(false);
    expect(await publicCount(id)).toBe(1);
    expect(await deleteComment(main(), hidden.comment.id)).toBe(true);
    expect(await publicCount(id)).toBe(1);
    expect(await deleteComment(main(), visible.comment.id)).toBe(true);
    expect(await publicCount(id)).toBe(0);
    expect(await deleteComment(main(), visible.comment.id)).toBe(false);
  });
});
