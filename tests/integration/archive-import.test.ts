import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "../../server/db";
import { crossTenant } from "../../server/db/tenant-guard";
import {
  claimArchiveImport,
  queueArchiveImport,
  runArchiveImport,
} from "../../server/newsletters/archive-imports";
import { getTenant } from "../../server/tenants/store";
import {
  ghostExport,
  type ImageHost,
  largeGhostExport,
  startImageHost,
  substackExport,
} from "../support/archive-fixtures";
import { createStaffUser, signIn } from "../support/auth";
import {
  countRows,
  createTestDatabase,
  type TestDatabase,
  testDialects,
} from "../support/database";
import { textOf } from "../support/html";
import { type RunningServer, startServer } from "../support/server";
import { scaled } from "../support/timing";

const run = promisify(execFile);

/*
 * Issue 33, target 3 (archives): Ghost and Substack archives through the staff page and the
 * command, on the real server and both databases; images from a local HTTP server copied into the
 * store; old addresses answering 301; a second run writing nothing; bad archives refused whole;
 * private addresses refused unless allowed; a stopped job resumed without duplicates.
 */
describe.each(testDialects())("archive imports on %s", (dialect) => {
  let database: TestDatabase;
  let server: RunningServer;
  let db: Db;
  let images: ImageHost;
  let uploads: string;
  let editor: string;
  let otherTenant: string;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    images = await startImageHost();
    uploads = mkdtempSync(join(tmpdir(), "herald-archive-uploads-"));
    server = await startServer({
      databaseUrl: database.url,
      env: { IMPORT_ALLOW_PRIVATE_HOSTS: "true", UPLOADS_DIR: uploads },
    });
    db = createDb(database.url);
    await createStaffUser(db, { email: "editor@example.com", products: { main: true } });
    await createStaffUser(db, { email: "kd@example.com", products: { keydiscovery: true } });
    editor = await signIn(server.url, "editor@example.com");
    otherTenant = await signIn(server.url, "kd@example.com");
  });

  afterAll(async () => {
    await db?.destroy();
    await server?.stop();
    await images?.stop();
    await database?.drop();
    if (uploads) rmSync(uploads, { recursive: true, force: true });
  });

  const get = (path: string, cookie?: string) =>
    fetch(`${server.url}${path}`, {
      headers: cookie ? { cookie } : {},
      redirect: "manual",
    });

  const upload = (
    cookie: string,
    source: string,
    file: Uint8Array | string,
    fileName: string,
    siteUrl = "",
  ) => {
    const form = new FormData();
    form.append("source", source);
    form.append("siteUrl", siteUrl);
    form.append("file", new Blob([typeof file === "string" ? file : Buffer.from(file)]), fileName);
    return fetch(`${server.url}/admin/newsletter/import`, {
      method: "POST",
      body: form,
      headers: { cookie, origin: server.url },
      redirect: "manual",
    });
  };

  /** Waits for the job to end (the worker writes it in the background); its report page. */
  const finished = async (location: string, cookie = editor) => {
    const id = Number(location.split("/").pop());
    const deadline = Date.now() + scaled(30_000);
    for (;;) {
      const job = await crossTenant(db)
        .selectFrom("archive_imports")
        .select("status")
        .where("id", "=", id)
        .executeTakeFirstOrThrow();
      if (job.status === "done" || job.status === "failed") break;
      if (Date.now() > deadline) throw new Error(`archive import ${id} still ${job.status}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const page = await get(location, cookie);
    return { status: page.status, text: textOf(await page.text()) };
  };

  const newsletter = (slug: string) =>
    db
      .selectFrom("newsletters")
      .selectAll()
      .where("tenant_id", "=", "main")
      .where("slug", "=", slug)
      .executeTakeFirst();

  it("imports a Ghost export: html, Lexical and mobiledoc posts, tags, authors, dates, slugs, images", async () => {
    const posted = await upload(
      editor,
      "ghost",
      ghostExport(images.base),
      "my-site.ghost.json",
      images.base,
    );
    expect(posted.status).toBe(303);
    const location = posted.headers.get("location") ?? "";
    expect(location).toMatch(/^\/admin\/newsletter\/import\/\d+$/);
    const report = await finished(location);
    expect(report.status).toBe(200);
    expect(report.text).toContain("Imported 8 newsletters; skipped 3 posts");
    expect(report.text).toContain("A page, not a post");
    expect(report.text).toContain("It has no title.");
    expect(report.text).toContain("was not copied: its server answered 404");
    expect(report.text).toContain("it is not a PNG, JPEG, GIF or WebP image");
    expect(report.text).toContain("A “bookmark” card was left out.");

    const welcome = await newsletter("welcome");
    expect(welcome).toMatchObject({
      title: "Welcome & hello",
      excerpt: "The very first one",
      status: "published",
      published_at: "2021-03-04T10:00:00.000Z",
      created_at: "2021-03-01T09:00:00.000Z",
      author_id: null,
      author_name: "Jane Ghostwriter",
      cover_alt: "A cover & more",
    });
    expect(welcome?.content).not.toContain("script");
    // Images are copies in this site's store, the page links them there.
    expect(welcome?.cover_image).toMatch(/^\/uploads\/main\/[a-f0-9]{32}\.(png|jpg)$/);
    expect(welcome?.content).toMatch(/<img src="\/uploads\/main\/[a-f0-9]{32}\.(png|jpg)"/);
    expect(welcome?.content).not.toContain(images.base);
    const cover = await get(welcome?.cover_image ?? "");
    expect(cover.status).toBe(200);
    expect(cover.headers.get("content-type")).toMatch(/^image\//);
    // One fetch per URL: inline.png is in three posts, cover.png in two.
    expect(images.hits.get("/inline.png")).toBe(1);
    expect(images.hits.get("/cover.png")).toBe(1);
    expect(images.hits.get("/content/images/ghost-own.png")).toBe(1);

    // The staff member with the author's email signs the post; tags in Ghost's order.
    const lexical = await newsletter("lexical-post");
    const staff = await db
      .selectFrom("users")
      .select("id")
      .where("email", "=", "editor@example.com")
      .executeTakeFirstOrThrow();
    expect(lexical?.author_id).toBe(staff.id);
    expect(lexical?.content).toContain("<h2>Lexical heading</h2>");
    expect(lexical?.content).toContain("<blockquote>");
    const tags = await db
      .selectFrom("newsletter_tags")
      .select(["tag_slug"])
      .where("tenant_id", "=", "main")
      .where("newsletter_id", "=", welcome?.id ?? "")
      .orderBy("position")
      .execute();
    expect(tags.map((tag) => tag.tag_slug)).toEqual(["news", "case-law"]);
    expect((await newsletter("mobiledoc-post"))?.published_at).toBe(
      new Date(1500000000000).toISOString(),
    );
    for (const [slug, status] of [
      ["draft-one", "draft"],
      ["coming-soon", "draft"],
      ["members-only", "draft"],
      ["welcome-2", "published"],
    ] as const) {
      expect((await newsletter(slug))?.status, slug).toBe(status);
    }

    // The reading room shows it with the Ghost author's byline, under its tag, and search finds it.
    const page = await get("/newsletter/welcome");
    expect(page.status).toBe(200);
    const text = textOf(await page.text());
    expect(text).toContain("Welcome & hello");
    expect(text).toContain("Jane Ghostwriter");
    expect(textOf(await (await get("/newsletter/tag/case-law")).text())).toContain(
      "Welcome & hello",
    );
    expect(textOf(await (await get("/newsletter/search?q=archives")).text())).toContain(
      "Welcome & hello",
    );
  });

  it("answers old Ghost and Substack addresses with a 301 to the newsletter, and nothing else", async () => {
    for (const path of ["/welcome/", "/welcome", "/p/welcome", "/p/lexical-post/"]) {
      const moved = await get(path);
      expect(moved.status, path).toBe(301);
      expect(moved.headers.get("location"), path).toBe(
        path.includes("lexical") ? "/newsletter/lexical-post" : "/newsletter/welcome",
      );
    }
    // Unknown slugs, drafts and deeper paths stay 404; the site's own pages are untouched.
    for (const path of ["/no-such-post/", "/p/no-such-post", "/draft-one/", "/p/welcome/extra"]) {
      expect((await get(path)).status, path).toBe(404);
    }
    expect((await get("/about")).status).toBe(200);
    expect((await get("/contact/")).status).toBe(200);
    expect((await get("/newsletter")).status).toBe(200);
  });

  it("never answers one of the site's own first segments with an old address (issue 44, finding 11)", async () => {
    // As an import before the fix left them: `../../admin` became the slug `admin`.
    const welcome = await newsletter("welcome");
    for (const slug of ["admin", "api", "embed", "uploads"]) {
      await db
        .insertInto("newsletter_slugs")
        .values({
          tenant_id: "main",
          slug,
          newsletter_id: welcome?.id ?? "",
          created_at: new Date().toISOString(),
        })
        .execute();
    }
    for (const path of ["/admin", "/admin/", "/api", "/embed/", "/uploads"]) {
      const answer = await get(path);
      expect(answer.status, path).not.toBe(301);
      expect(answer.headers.get("location") ?? "", path).not.toContain("/newsletter/");
    }
    await db
      .deleteFrom("newsletter_slugs")
      .where("tenant_id", "=", "main")
      .where("slug", "in", ["admin", "api", "embed", "uploads"])
      .execute();
  });

  it("imports a Substack export zip", async () => {
    const posted = await upload(editor, "substack", substackExport(images.base), "substack.zip");
    expect(posted.status).toBe(303);
    const report = await finished(posted.headers.get("location") ?? "");
    expect(report.text).toContain("Imported 4 newsletters; skipped 2 posts");
    expect(report.text).toContain("A discussion thread, not a post.");
    const first = await newsletter("first-issue");
    expect(first).toMatchObject({
      title: "First & best issue",
      excerpt: "The subtitle, with a comma",
      status: "published",
      published_at: "2022-01-10T12:00:00.000Z",
    });
    expect(first?.content).toMatch(/<img src="\/uploads\/main\//);
    expect((await newsletter("paid-post"))?.status).toBe("draft");
    expect((await newsletter("a-substack-draft"))?.status).toBe("draft");
    const moved = await get("/p/first-issue");
    expect(moved.status).toBe(301);
    expect(moved.headers.get("location")).toBe("/newsletter/first-issue");
  });

  it("writes nothing twice when an archive is imported again", async () => {
    const before = await countRows(db, "newsletters");
    const searchBefore = await countRows(db, "newsletter_search");
    const posted = await upload(editor, "ghost", ghostExport(images.base), "again.json");
    const report = await finished(posted.headers.get("location") ?? "");
    expect(report.text).toContain("Imported 0 newsletters; skipped 11 posts");
    expect(report.text).toContain("This site already has a newsletter at /newsletter/welcome");
    expect(await countRows(db, "newsletters")).toBe(before);
    expect(await countRows(db, "newsletter_search")).toBe(searchBefore);
  });

  it("refuses a bad archive with a clear error and changes nothing", async () => {
    const jobs = await countRows(db, "archive_imports");
    const newsletters = await countRows(db, "newsletters");
    const cases: [string, string | Uint8Array, RegExp][] = [
      ["ghost", "{not json", /This is not a Ghost export/],
      ["ghost", '{"db":[{"data":{"posts":[{"title":"no id"}]}}]}', /This is not a Ghost export/],
      ["ghost", substackExport(images.base), /This is not a Ghost export/],
      ["substack", ghostExport(images.base), /This is not a Substack export/],
      ["ghost", '{"db":[{"data":{"posts":[]}}]}', /The archive has no posts/],
      ["wordpress", "{}", /Choose Ghost or Substack/],
    ];
    for (const [source, file, message] of cases) {
      const response = await upload(editor, source, file, "bad.json");
      expect(response.status, String(message)).toBe(400);
      expect(textOf(await response.text())).toMatch(message);
    }
    // A 3 MB body (a 500-post export's size) passes the route's body limit and is read.
    const large = await upload(
      editor,
      "ghost",
      JSON.stringify({ db: [{ data: { posts: "x".repeat(3_000_000) } }] }),
      "large.json",
    );
    expect(large.status).toBe(400);
    expect(textOf(await large.text())).toContain("This is not a Ghost export");
    const empty = await upload(editor, "ghost", "", "empty.json");
    expect(textOf(await empty.text())).toContain("Choose the archive to import.");
    const site = await upload(editor, "ghost", "{}", "x.json", "javascript:alert(1)");
    expect(textOf(await site.text())).toContain("Give the address as https://");
    expect(await countRows(db, "archive_imports")).toBe(jobs);
    expect(await countRows(db, "newsletters")).toBe(newsletters);
  });

  it("shows the page and the progress to the tenant's staff only", async () => {
    const page = await get("/admin/newsletter/import", editor);
    expect(page.status).toBe(200);
    const text = textOf(await page.text());
    expect(text).toContain("Import newsletters");
    expect(text).toContain("my-site.ghost.json");
    const [job] = await db
      .selectFrom("archive_imports")
      .select("id")
      .where("tenant_id", "=", "main")
      .orderBy("id")
      .limit(1)
      .execute();
    expect((await get(`/admin/newsletter/import/${job?.id}`, editor)).status).toBe(200);
    // Another tenant's editor: refused here, and on their own site the job is not found.
    expect((await get(`/admin/newsletter/import/${job?.id}`, otherTenant)).status).toBe(403);
    expect((await get("/admin/newsletter/import", otherTenant)).status).toBe(403);
    const theirs = await fetch(
      `${server.url}/admin/newsletter/import/${job?.id}?subdomain=keydiscovery`,
      { headers: { cookie: otherTenant }, redirect: "manual" },
    );
    expect(theirs.status).toBe(404);
    const posted = await upload(otherTenant, "ghost", ghostExport(images.base), "x.json");
    expect(posted.status).toBe(403);
    expect((await get("/admin/newsletter/import")).status).toBe(302);
  });

  it("goes on from where a stopped job left off, without duplicates", async () => {
    const tenant = (await getTenant(db, "main")).config;
    const archive = new TextEncoder().encode(
      largeGhostExport(12).replaceAll("archive-post", "resume"),
    );
    // This process starts the job as its own and stops after three posts (a shutdown)...
    const id = await queueArchiveImport({ db, tenant }, "test", {
      source: "ghost",
      fileName: "resume.json",
      bytes: archive,
      runner: "first-worker",
    });
    let written = 0;
    await runArchiveImport(db, { id, tenantId: "main" }, "first-worker", {
      keepGoing: () => written < 3,
      onProgress: (done) => {
        written = done;
      },
      allowPrivateHosts: true,
    });
    // ...and the server's worker takes it from the fourth.
    const report = await finished(`/admin/newsletter/import/${id}`);
    expect(report.text).toContain("Imported 12 newsletters; skipped 0 posts");
    const rows = await db
      .selectFrom("newsletters")
      .select("slug")
      .where("tenant_id", "=", "main")
      .where("slug", "like", "resume-%")
      .execute();
    expect(rows).toHaveLength(12);

    // A worker that went silent mid-job is taken over; its late write does not count.
    const stale = await queueArchiveImport({ db, tenant }, "test", {
      source: "ghost",
      fileName: "stale.json",
      bytes: new TextEncoder().encode(largeGhostExport(2).replaceAll("archive-post", "stale")),
      runner: "silent-worker",
    });
    const later = new Date(Date.now() + 60_000);
    const claimed = await claimArchiveImport(db, "second-worker", later);
    expect(claimed).toEqual({ id: stale, tenantId: "main" });
    await runArchiveImport(db, { id: stale, tenantId: "main" }, "silent-worker", {
      allowPrivateHosts: true,
    });
    expect(
      await db
        .selectFrom("newsletters")
        .select("id")
        .where("tenant_id", "=", "main")
        .where("slug", "like", "stale-%")
        .execute(),
    ).toHaveLength(0);
    await runArchiveImport(db, { id: stale, tenantId: "main" }, "second-worker", {
      allowPrivateHosts: true,
    });
    expect(
      await db
        .selectFrom("newsletters")
        .select("id")
        .where("tenant_id", "=", "main")
        .where("slug", "like", "stale-%")
        .execute(),
    ).toHaveLength(2);
  });

  it("imports from the command line, refusing private image addresses by default", async () => {
    const dir = mkdtempSync(join(tmpdir(), "herald-archive-cli-"));
    try {
      const file = join(dir, "cli.json");
      writeFileSync(
        file,
        ghostExport(images.base.replace("127.0.0.1", "localhost"))
          .replaceAll('"slug":"', '"slug":"cli-')
          .replaceAll("Welcome &amp; hello", "Welcome from the command"),
      );
      const hitsBefore = [...images.hits.values()].reduce((a, b) => a + b, 0);
      const env = {
        ...process.env,
        DATABASE_URL: database.url,
        UPLOADS_DIR: uploads,
        LOG_LEVEL: "warn",
        IMPORT_ALLOW_PRIVATE_HOSTS: "",
      };
      const { stdout } = await run(
        process.execPath,
        ["build/cli/herald.mjs", "import", "ghost", file, "--tenant", "main"],
        { env, timeout: scaled(60_000) },
      );
      expect(stdout).toMatch(/Import \d+: 8 posts to write, 3 skipped on reading\./);
      expect(stdout).toContain("8 of 8 posts");
      expect(stdout).toMatch(/Imported 8 newsletters, skipped 3 posts/);
      expect(stdout).toContain("its address is on a private network");
      // Nothing was fetched: the name resolved to loopback and was refused before connecting.
      expect([...images.hits.values()].reduce((a, b) => a + b, 0)).toBe(hitsBefore);
      const imported = await newsletter("cli-welcome");
      expect(imported?.title).toBe("Welcome from the command");
      expect(imported?.cover_image).toBeNull();

      // A file that is not an archive: the reason, exit 1, nothing queued.
      const jobs = await countRows(db, "archive_imports");
      const notArchive = join(dir, "notes.txt");
      writeFileSync(notArchive, "just some notes");
      const bad = await run(
        process.execPath,
        ["build/cli/herald.mjs", "import", "substack", notArchive, "--tenant", "main"],
        { env, timeout: scaled(60_000) },
      ).catch((error: { code: number; stderr: string }) => error);
      expect("code" in bad && bad.code).toBe(1);
      expect("stderr" in bad && bad.stderr).toContain("This is not a Substack export");
      expect(await countRows(db, "archive_imports")).toBe(jobs);

      // A mistyped tenant imports nowhere.
      const wrong = await run(
        process.execPath,
        ["build/cli/herald.mjs", "import", "ghost", file, "--tenant", "nobody"],
        { env, timeout: scaled(60_000) },
      ).catch((error: { code: number; stderr: string }) => error);
      expect("code" in wrong && wrong.code).toBe(1);
      expect("stderr" in wrong && wrong.stderr).toContain("No tenant with id nobody.");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
