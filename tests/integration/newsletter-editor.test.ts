import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { crossTenant } from "../../server/db/tenant-guard";
import { createStaffUser, signIn } from "../support/auth";
import { createTestDatabase, type TestDatabase, testDialects } from "../support/database";
import { expectServerError } from "../support/error-logs";
import { textOf } from "../support/html";
import { testPng } from "../support/images";
import { type RunningServer, startServer } from "../support/server";

const VALID = {
  title: "Proportionality in 2025",
  excerpt: "What courts expect from discovery requests this year.",
  content: "<h2>Key points</h2><p>Courts expect <strong>proportionality</strong>.</p>",
  readTime: "4",
};

const DANGEROUS_CONTENT =
  '<p>Hello <script>alert("x")</script><img src="https://cdn.example/a.png" onerror="alert(1)" alt="chart"> <a href="javascript:alert(2)">click</a> <a href="https://example.com/ok">ok</a></p>';

describe.each(testDialects())("the newsletter editor on %s", (dialect) => {
  let database: TestDatabase;
  let server: RunningServer;
  let uploadsDir: string;
  const cookies = { superAdmin: "", mainEditor: "", keyDiscoveryEditor: "", noProducts: "" };
  const ids = { superAdmin: "", mainEditor: "" };

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    uploadsDir = mkdtempSync(join(tmpdir(), "herald-uploads-"));
    // No sending worker: nothing here sends, and its ticks would fail (and log) while a test has
    // taken the newsletters table away.
    server = await startServer({
      databaseUrl: database.url,
      env: { UPLOADS_DIR: uploadsDir, SEND_WORKER: "off" },
    });
    const users = {
      superAdmin: await createStaffUser(database.db, {
        email: "chief@example.com",
        role: "super_admin",
      }),
      mainEditor: await createStaffUser(database.db, {
        email: "main@example.com",
        products: { main: true },
      }),
      keyDiscoveryEditor: await createStaffUser(database.db, {
        email: "kd@example.com",
        products: { keydiscovery: true },
      }),
      noProducts: await createStaffUser(database.db, { email: "nobody@example.com" }),
    };
    ids.superAdmin = users.superAdmin.id;
    ids.mainEditor = users.mainEditor.id;
    for (const key of Object.keys(cookies) as (keyof typeof cookies)[]) {
      cookies[key] = await signIn(server.url, users[key].email);
    }
  });

  afterAll(async () => {
    await server?.stop();
    await database?.drop();
    if (uploadsDir) rmSync(uploadsDir, { recursive: true, force: true });
  });

  const get = (path: string, cookie?: string) =>
    fetch(`${server.url}${path}`, { headers: cookie ? { cookie } : {}, redirect: "manual" });

  const post = (path: string, fields: Record<string, string>, cookie?: string, headers = {}) =>
    fetch(`${server.url}${path}`, {
      method: "POST",
      body: new URLSearchParams(fields),
      headers: { ...(cookie ? { cookie } : {}), ...headers },
      redirect: "manual",
    });

  const newsletters = () =>
    crossTenant(database.db).selectFrom("newsletters").selectAll().orderBy("created_at").execute();
  const newsletter = (id: string) =>
    crossTenant(database.db)
      .selectFrom("newsletters")
      .selectAll()
      .where("id", "=", id)
      .executeTakeFirst();

  /** Creates a draft through the form and answers its id. */
  async function createDraft(cookie: string, fields: Record<string, string> = VALID) {
    const response = await post("/admin/newsletter/new", { ...fields, intent: "save" }, cookie);
    expect(response.status).toBe(302);
    const location = response.headers.get("location") ?? "";
    const match = location.match(/^\/admin\/newsletter\/edit\/([0-9a-f-]{36})\?notice=saved$/);
    expect(match, location).not.toBeNull();
    return (match as RegExpMatchArray)[1];
  }

  describe("access", () => {
    it("sends an anonymous visitor to the login page, remembering where they were going", async () => {
      const response = await get("/admin/newsletter/new");
      expect(response.status).toBe(302);
      expect(response.headers.get("location")).toBe(
        "/admin/login?redirectTo=%2Fadmin%2Fnewsletter%2Fnew",
      );
      const before = (await newsletters()).length;
      const write = await post("/admin/newsletter/new", VALID);
      expect(write.status).toBe(302);
      expect(write.headers.get("location")).toMatch(/^\/admin\/login\?redirectTo=/);
      expect(await newsletters()).toHaveLength(before);
    });

    it("answers 403 to a signed-in user without the tenant's product, and stores nothing", async () => {
      expect((await get("/admin/newsletter/new", cookies.noProducts)).status).toBe(403);
      const before = (await newsletters()).length;
      const response = await post("/admin/newsletter/new", VALID, cookies.noProducts);
      expect(response.status).toBe(403);
      expect(await newsletters()).toHaveLength(before);
    });

    it("answers 403 to a main-only editor browsing the keydiscovery site", async () => {
      const response = await get(
        "/admin/newsletter/new",
        `${cookies.mainEditor}; herald_subdomain=keydiscovery`,
      );
      expect(response.status).toBe(403);
    });

    it("refuses a cross-site post and stores nothing", async () => {
      const before = (await newsletters()).length;
      const response = await post("/admin/newsletter/new", VALID, cookies.superAdmin, {
        origin: "https://evil.example",
      });
      expect(response.status).toBe(403);
      expect(await newsletters()).toHaveLength(before);
    });

    it("answers 404 'Newsletter not found' for an unknown id", async () => {
      const response = await get(
        "/admin/newsletter/edit/00000000-0000-4000-8000-000000000000",
        cookies.superAdmin,
      );
      expect(response.status).toBe(404);
      expect(textOf(await response.text())).toContain("Newsletter not found");
      const write = await post(
        "/admin/newsletter/edit/00000000-0000-4000-8000-000000000000",
        { ...VALID, intent: "save" },
        cookies.superAdmin,
      );
      expect(write.status).toBe(404);
    });
  });

  describe.each([
    ["a super admin", "superAdmin"],
    ["a product user of the tenant", "mainEditor"],
  ] as const)("%s", (_label, who) => {
    it("creates a draft with sanitised content and opens it with a success message", async () => {
      const id = await createDraft(cookies[who], { ...VALID, content: DANGEROUS_CONTENT });
      const row = await newsletter(id);
      expect(row).toMatchObject({
        tenant_id: "main",
        status: "draft",
        title: VALID.title,
        excerpt: VALID.excerpt,
        read_time: 4,
        author_id: ids[who],
        published_at: null,
      });
      expect(row?.content).toContain("Hello");
      expect(row?.content).toContain('href="https://example.com/ok"');
      expect(row?.content).toContain('alt="chart"');
      expect(row?.content).not.toMatch(/<script|alert\("x"\)|onerror|javascript:/i);

      const page = await get(`/admin/newsletter/edit/${id}?notice=saved`, cookies[who]);
      expect(page.status).toBe(200);
      const html = await page.text();
      const text = textOf(html);
      expect(text).toContain("Edit Newsletter");
      expect(text).toContain("Newsletter saved");
      expect(text).toContain("Update Newsletter");
      expect(text).toContain("Draft");
      expect(html).not.toContain(`href="/newsletter/${(await newsletter(id))?.slug}"`);
      // Without JavaScript the content is a plain 20-row HTML textarea.
      expect(html).toMatch(/<textarea[^>]*name="content"[^>]*rows="20"/);
    });

    it("updates, publishes, unpublishes and deletes", async () => {
      const id = await createDraft(cookies[who]);
      const path = `/admin/newsletter/edit/${id}`;

      const update = await post(
        path,
        { ...VALID, title: "Updated title", readTime: "7", intent: "save" },
        cookies[who],
      );
      expect(update.status).toBe(302);
      expect(update.headers.get("location")).toBe(`${path}?notice=saved`);
      expect(await newsletter(id)).toMatchObject({
        title: "Updated title",
        read_time: 7,
        status: "draft",
      });

      const publish = await post(path, { ...VALID, intent: "publish" }, cookies[who]);
      expect(publish.status).toBe(302);
      const published = await newsletter(id);
      expect(published?.status).toBe("published");
      expect(published?.published_at).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(published?.title).toBe(VALID.title);
      const page = textOf(await (await get(path, cookies[who])).text());
      expect(page).toContain("Published");
      expect(page).toContain("Unpublish");
      expect(await (await get(path, cookies[who])).text()).toContain(
        `href="/newsletter/${(await newsletter(id))?.slug}"`,
      );

      const unpublish = await post(path, { intent: "unpublish" }, cookies[who]);
      expect(unpublish.status).toBe(302);
      expect((await newsletter(id))?.status).toBe("draft");

      const confirm = await get(`${path}?confirmDelete=1`, cookies[who]);
      const confirmText = textOf(await confirm.text());
      expect(confirmText).toContain("Delete this newsletter?");
      expect(confirmText).toContain("Yes, delete");
      expect(confirmText).toContain("Keep it");
      expect(await newsletter(id)).toBeDefined();

      const remove = await post(path, { intent: "delete" }, cookies[who]);
      expect(remove.status).toBe(302);
      expect(remove.headers.get("location")).toBe("/admin/dashboard");
      expect(await newsletter(id)).toBeUndefined();
      expect((await get(path, cookies[who])).status).toBe(404);
    });
  });

  describe("validation", () => {
    it.each([
      ["a blank title", { title: "   " }, "Title is required"],
      ["a blank excerpt", { excerpt: "" }, "Excerpt is required"],
      ["blank content", { content: "" }, "Content is required"],
      [
        "content that is only markup",
        { content: "<p> </p><script>x</script>" },
        "Content is required",
      ],
      ["a read time of 0", { readTime: "0" }, "Read time must be at least 1 minute"],
      ["a read time of 'abc'", { readTime: "abc" }, "Read time must be a number of minutes"],
      ["a read time of 1.5", { readTime: "1.5" }, "Read time must be a whole number of minutes"],
    ])(
      "refuses %s with 400, keeps what was typed and stores nothing",
      async (_label, override, message) => {
        const before = (await newsletters()).length;
        const fields = { ...VALID, title: "Kept title", ...override, intent: "save" };
        const response = await post("/admin/newsletter/new", fields, cookies.superAdmin);
        expect(response.status).toBe(400);
        const html = await response.text();
        expect(textOf(html)).toContain(message);
        if (!("title" in override)) {
          expect(html).toMatch(/<input[^>]*name="title"[^>]*value="Kept title"/);
        }
        expect(await newsletters()).toHaveLength(before);
      },
    );

    it("counts the read time from the text when it is left blank; a number the writer gives stays", async () => {
      const words = Array.from({ length: 230 * 3 }, (_, i) => `word${i}`).join(" ");
      const created = await post(
        "/admin/newsletter/new",
        { ...VALID, content: `<p>${words}</p>`, readTime: "", intent: "save" },
        cookies.superAdmin,
      );
      expect(created.status).toBe(302);
      const id = created.headers.get("location")?.match(/edit\/([^?]+)/)?.[1] ?? "";
      expect((await newsletter(id))?.read_time).toBe(3);
      // The form shows it blank: a counted read time follows the text as it changes.
      const form = await (await get(`/admin/newsletter/edit/${id}`, cookies.superAdmin)).text();
      const readTimeInput = form.match(/<input[^>]*name="readTime"[^>]*>/)?.[0] ?? "";
      expect(readTimeInput).not.toBe("");
      expect(readTimeInput).not.toMatch(/value="\d/);
      expect(textOf(form)).toContain("Leave it blank to count it from the text");
      await post(
        `/admin/newsletter/edit/${id}`,
        { ...VALID, content: `<p>${words} ${words}</p>`, readTime: "", intent: "save" },
        cookies.superAdmin,
      );
      expect((await newsletter(id))?.read_time).toBe(6);
      await post(
        `/admin/newsletter/edit/${id}`,
        { ...VALID, content: `<p>${words}</p>`, readTime: "9", intent: "save" },
        cookies.superAdmin,
      );
      expect((await newsletter(id))?.read_time).toBe(9);
      const overridden = await (
        await get(`/admin/newsletter/edit/${id}`, cookies.superAdmin)
      ).text();
      expect(overridden).toMatch(/<input[^>]*name="readTime"[^>]*value="9"/);
    });

    it("refuses an invalid update and leaves the stored newsletter as it was", async () => {
      const id = await createDraft(cookies.superAdmin);
      const response = await post(
        `/admin/newsletter/edit/${id}`,
        { ...VALID, title: "", readTime: "0", intent: "publish" },
        cookies.superAdmin,
      );
      expect(response.status).toBe(400);
      const text = textOf(await response.text());
      expect(text).toContain("Title is required");
      expect(text).toContain("Read time must be at least 1 minute");
      expect(await newsletter(id)).toMatchObject({ title: VALID.title, status: "draft" });
    });
  });

  describe("autosave", () => {
    it("saves a valid draft without publishing it, and never stores invalid input", async () => {
      const id = await createDraft(cookies.mainEditor);
      const path = `/admin/newsletter/edit/${id}`;
      const saved = await post(
        path,
        { ...VALID, title: "Autosaved title", intent: "autosave" },
        cookies.mainEditor,
      );
      expect(saved.status).toBe(200);
      expect(await newsletter(id)).toMatchObject({
        title: "Autosaved title",
        status: "draft",
        published_at: null,
      });

      const invalid = await post(
        path,
        { ...VALID, title: "", intent: "autosave" },
        cookies.mainEditor,
      );
      expect(invalid.status).toBe(400);
      expect((await newsletter(id))?.title).toBe("Autosaved title");
    });

    it("leaves a published newsletter alone", async () => {
      const id = await createDraft(cookies.mainEditor);
      const path = `/admin/newsletter/edit/${id}`;
      await post(path, { ...VALID, intent: "publish" }, cookies.mainEditor);
      await post(path, { ...VALID, title: "Half-typed", intent: "autosave" }, cookies.mainEditor);
      expect(await newsletter(id)).toMatchObject({ title: VALID.title, status: "published" });
    });
  });

  describe("tenants", () => {
    it("keeps a main-tenant draft away from a keydiscovery editor", async () => {
      const id = await createDraft(cookies.mainEditor);
      const path = `/admin/newsletter/edit/${id}`;
      const asKeyDiscovery = `${cookies.keyDiscoveryEditor}; herald_subdomain=keydiscovery`;

      const page = await get(path, asKeyDiscovery);
      expect(page.status).toBe(404);
      const text = textOf(await page.text());
      expect(text).toContain("Newsletter not found");
      expect(text).not.toContain(VALID.title);

      for (const fields of [
        { ...VALID, title: "Hijacked", intent: "save" },
        { ...VALID, title: "Hijacked", intent: "autosave" },
        { ...VALID, intent: "publish" },
        { intent: "delete" },
      ]) {
        expect((await post(path, fields, asKeyDiscovery)).status).toBe(404);
      }
      expect(await newsletter(id)).toMatchObject({ title: VALID.title, status: "draft" });

      // Browsing main, the keydiscovery editor has no access at all.
      expect((await get(path, cookies.keyDiscoveryEditor)).status).toBe(403);
      // Even a super admin reaches a newsletter only on its own tenant's site.
      const superOnKd = await get(path, `${cookies.superAdmin}; herald_subdomain=keydiscovery`);
      expect(superOnKd.status).toBe(404);
    });

    it("creates a keydiscovery editor's newsletter under keydiscovery", async () => {
      const response = await post(
        "/admin/newsletter/new",
        { ...VALID, intent: "save" },
        `${cookies.keyDiscoveryEditor}; herald_subdomain=keydiscovery`,
      );
      expect(response.status).toBe(302);
      const id = response.headers.get("location")?.split("/").pop()?.split("?")[0] ?? "";
      expect((await newsletter(id))?.tenant_id).toBe("keydiscovery");
    });
  });

  describe("image uploads", () => {
    const upload = (bytes: Uint8Array, name: string, type: string, cookie?: string) => {
      const form = new FormData();
      form.set("file", new Blob([bytes.slice()], { type }), name);
      return fetch(`${server.url}/admin/uploads`, {
        method: "POST",
        body: form,
        headers: cookie ? { cookie } : {},
        redirect: "manual",
      });
    };

    it("re-encodes an upload with sharp: at most 1,200 px wide, email-safe, with its size and web variants", async () => {
      const response = await upload(
        testPng(3000, 1500),
        "wide.png",
        "image/png",
        cookies.mainEditor,
      );
      expect(response.status).toBe(200);
      const answer = (await response.json()) as { url: string; width: number; height: number };
      // An opaque PNG becomes a JPEG: a fraction of the bytes in every inbox.
      expect(answer).toEqual({
        url: expect.stringMatching(/^\/uploads\/main\/[0-9a-f]{32}\.jpg$/),
        width: 1200,
        height: 600,
      });

      const served = await get(answer.url);
      expect(served.status).toBe(200);
      expect(served.headers.get("content-type")).toBe("image/jpeg");
      expect(served.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      expect(served.headers.get("x-content-type-options")).toContain("nosniff");
      expect(served.headers.get("cross-origin-resource-policy")).toBe("cross-origin");
      const stored = await sharp(Buffer.from(await served.arrayBuffer())).metadata();
      expect([stored.format, stored.width, stored.height]).toEqual(["jpeg", 1200, 600]);

      const row = await crossTenant(database.db)
        .selectFrom("images")
        .selectAll()
        .where("key", "=", answer.url.replace("/uploads/", ""))
        .executeTakeFirstOrThrow();
      expect([Number(row.width), Number(row.height), row.tenant_id]).toEqual([1200, 600, "main"]);
      const variants = JSON.parse(row.variants) as { key: string; format: string; width: number }[];
      expect(variants.map((variant) => `${variant.format} ${variant.width}`).sort()).toEqual([
        "avif 1200",
        "avif 480",
        "avif 800",
        "webp 1200",
        "webp 480",
        "webp 800",
      ]);
      for (const variant of variants) {
        const file = await get(`/uploads/${variant.key}`);
        expect(file.headers.get("content-type")).toBe(`image/${variant.format}`);
        const meta = await sharp(Buffer.from(await file.arrayBuffer())).metadata();
        expect(meta.width).toBe(variant.width);
      }
    });

    it("keeps transparency as PNG, never enlarges, and drops the camera's metadata", async () => {
      const transparent = await sharp({
        create: {
          width: 300,
          height: 200,
          channels: 4,
          background: { r: 0, g: 0, b: 0, alpha: 0 },
        },
      })
        .png()
        .toBuffer();
      const answer = (await (
        await upload(new Uint8Array(transparent), "logo.png", "image/png", cookies.mainEditor)
      ).json()) as { url: string; width: number; height: number };
      expect(answer.url).toMatch(/\.png$/);
      expect([answer.width, answer.height]).toEqual([300, 200]);

      const photo = await sharp({
        create: { width: 64, height: 48, channels: 3, background: { r: 200, g: 80, b: 40 } },
      })
        .jpeg()
        .withExif({ IFD0: { Copyright: "Secret Camera Co", Artist: "Someone at home" } })
        .toBuffer();
      expect((await sharp(photo).metadata()).exif).toBeDefined();
      const stored = (await (
        await upload(new Uint8Array(photo), "photo.jpg", "image/jpeg", cookies.mainEditor)
      ).json()) as { url: string };
      const bytes = Buffer.from(await (await get(stored.url)).arrayBuffer());
      expect((await sharp(bytes).metadata()).exif).toBeUndefined();
      expect(bytes.includes(Buffer.from("Secret Camera Co"))).toBe(false);
    });

    it("refuses an image that only looks like one (a PNG signature on garbage)", async () => {
      const fake = new Uint8Array([...testPng(2, 2).slice(0, 16), ...new Uint8Array(64).fill(7)]);
      const response = await upload(fake, "broken.png", "image/png", cookies.superAdmin);
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: string }).error).toMatch(/could not be read/);
    });

    it.each([
      [
        "an SVG",
        new TextEncoder().encode(
          '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
        ),
        "logo.svg",
        "image/svg+xml",
      ],
      ["a text file renamed .png", new TextEncoder().encode("just text"), "notes.png", "image/png"],
      ["an empty file", new Uint8Array(0), "empty.png", "image/png"],
    ])("refuses %s with 400", async (_label, bytes, name, type) => {
      const response = await upload(bytes, name, type, cookies.superAdmin);
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({
        error: "Only PNG, JPEG, GIF and WebP images can be uploaded.",
      });
    });

    it("refuses images over 5 MB", async () => {
      const png = testPng(2, 2);
      const big = new Uint8Array(5 * 1024 * 1024 + 1);
      big.set(png);
      const response = await upload(big, "big.png", "image/png", cookies.superAdmin);
      expect(response.status).toBe(413);
      expect(await response.json()).toEqual({ error: "Images must be 5 MB or smaller." });

      const huge = new Uint8Array(7 * 1024 * 1024);
      huge.set(png);
      expect((await upload(huge, "huge.png", "image/png", cookies.superAdmin)).status).toBe(413);
    });

    it("keeps the 1 MiB body limit everywhere else", async () => {
      const response = await post(
        "/admin/newsletter/new",
        { ...VALID, content: `<p>${"x".repeat(1_100_000)}</p>` },
        cookies.superAdmin,
      );
      expect(response.status).toBe(413);
    });

    it("sends an anonymous upload to the login page and refuses a user without access", async () => {
      const anonymous = await upload(testPng(2, 2), "pixel.png", "image/png");
      expect(anonymous.status).toBe(302);
      expect(anonymous.headers.get("location")).toMatch(/^\/admin\/login\?redirectTo=/);
      const forbidden = await upload(testPng(2, 2), "pixel.png", "image/png", cookies.noProducts);
      expect(forbidden.status).toBe(403);
    });

    it("answers 404 for unknown or malformed file keys", async () => {
      for (const path of [
        "/uploads/main/0123456789abcdef0123456789abcdef.png",
        "/uploads/main/../../package.json",
        "/uploads/main%2F..%2F..%2Fpackage.json",
        "/uploads/main/evil.svg",
        "/uploads/nothing",
      ]) {
        expect((await get(path)).status, path).toBe(404);
      }
    });
  });

  // Last: it breaks the newsletters table for this database.
  it("answers 'Failed to save newsletter' and logs the error when storing fails", async () => {
    expectServerError(/saving a newsletter failed/);
    await database.db.schema.alterTable("newsletters").renameTo("newsletters_gone").execute();
    const response = await post(
      "/admin/newsletter/new",
      { ...VALID, intent: "save" },
      cookies.superAdmin,
    );
    expect(response.status).toBe(500);
    const html = await response.text();
    expect(textOf(html)).toContain("Failed to save newsletter");
    expect(html).not.toMatch(/SqliteError|no such table|does not exist|newsletters_gone/);
    await expect.poll(() => server.output()).toContain("saving a newsletter failed");
    // Typed values are kept for another try.
    expect(html).toContain(VALID.title);
  });
});
