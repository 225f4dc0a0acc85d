import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { crossTenant } from "../../server/db/tenant-guard";
import { createNewsletter } from "../../server/newsletters/editing";
import { publishNewsletter } from "../../server/newsletters/newsletters";
import { createStaffUser, signIn } from "../support/auth";
import { createTestDatabase, type TestDatabase, testDialects } from "../support/database";
import { metaContent, textOf, titleOf } from "../support/html";
import { type RunningServer, startServer } from "../support/server";

const KEYDISCOVERY = { cookie: "herald_subdomain=keydiscovery" };
const CONTENT = `<h2>Three developments</h2><p>Courts keep accepting <strong>TAR</strong>.</p><ul><li>One</li></ul>`;

let addressCounter = 0;
/** A fresh client address: the host trusts X-Forwarded-For from loopback, so each test gets its own rate limit. */
const freshAddress = () => `198.51.100.${++addressCounter}`;

describe.each(testDialects())("the reading room on %s", (dialect) => {
  let database: TestDatabase;
  let server: RunningServer;
  /** Published newsletters of `main`, oldest first. */
  const published: { id: string; title: string; date: string }[] = [];
  /** each newsletter's address: /newsletter/{slug} */
  const slugs = new Map<string, string>();
  const at = (id: string) => `/newsletter/${slugs.get(id) ?? id}`;
  let draftId: string;
  let otherTenantId: string;
  let articleId: string;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    server = await startServer({ databaseUrl: database.url });
  });

  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, { headers, redirect: "manual" });

  const post = (
    path: string,
    fields: Record<string, string>,
    headers: Record<string, string> = {},
  ) =>
    fetch(`${server.url}${path}`, {
      method: "POST",
      body: new URLSearchParams(fields),
      headers: { "x-forwarded-for": freshAddress(), ...headers },
      redirect: "manual",
    });

  /** Creates a newsletter through the domain functions, published unless told otherwise. */
  async function seed(
    options: {
      tenantId?: string;
      title?: string;
      content?: string;
      publishedAt?: string;
      publish?: boolean;
    } = {},
  ) {
    const ctx = { db: database.db, tenantId: options.tenantId ?? "main", authorId: null };
    const newsletter = await createNewsletter(ctx, {
      title: options.title ?? "A newsletter",
      excerpt: `Excerpt of ${options.title ?? "a newsletter"}: what changed this week in eDiscovery.`,
      content: options.content ?? CONTENT,
      readTime: 5,
    });
    if (options.publish !== false) {
      await publishNewsletter(ctx, newsletter.id);
      if (options.publishedAt) {
        await crossTenant(database.db)
          .updateTable("newsletters")
          .set({ published_at: options.publishedAt })
          .where("id", "=", newsletter.id)
          .execute();
      }
    }
    slugs.set(newsletter.id, newsletter.slug);
    return newsletter.id;
  }

  const metrics = async (id: string) => {
    const row = await crossTenant(database.db)
      .selectFrom("newsletters")
      .select(["views", "comments"])
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    return { views: Number(row.views), comments: Number(row.comments) };
  };

  const commentsOf = (id: string) =>
    crossTenant(database.db)
      .selectFrom("comments")
      .selectAll()
      .where("newsletter_id", "=", id)
      .orderBy("id")
      .execute();

  const postComment = (id: string, fields: Record<string, string>, headers = {}) =>
    post(`${at(id)}`, fields, headers);

  describe("the newsletter index", () => {
    it("says so when nothing is published yet", async () => {
      const response = await get("/newsletter?page=1");
      expect(response.status).toBe(200);
      const text = textOf(await response.text());
      expect(text).toContain("No newsletters have been published yet.");
      expect(text).toContain("Insights on legal technology, every week");
    });

    it("lists only this tenant's published newsletters, newest first, ten to a page", async () => {
      for (let day = 1; day <= 12; day++) {
        const title = `Issue ${day}: notes on defensible review`;
        const date = `2026-03-${String(day).padStart(2, "0")}T09:00:00.000Z`;
        published.push({ id: await seed({ title, publishedAt: date }), title, date });
      }
      draftId = await seed({ title: "Unpublished draft issue", publish: false });
      otherTenantId = await seed({
        tenantId: "keydiscovery",
        title: "KeyDiscovery Legal only",
        publishedAt: "2026-03-20T09:00:00.000Z",
      });

      const first = await get("/newsletter");
      expect(first.status).toBe(200);
      const html = await first.text();
      const titles = [
        ...html.matchAll(/<h3[^>]*><a[^>]*href="\/newsletter\/([^"]+)"[^>]*>([^<]+)</g),
      ];
      expect(titles.map((match) => match[2])).toEqual(
        published
          .slice(2)
          .reverse()
          .map((newsletter) => newsletter.title),
      );
      expect(titles.map((match) => `/newsletter/${match[1]}`)).toEqual(
        published
          .slice(2)
          .reverse()
          .map((newsletter) => at(newsletter.id)),
      );
      const text = textOf(html);
      expect(text).not.toContain("Unpublished draft issue");
      expect(text).not.toContain("KeyDiscovery Legal only");
      expect(text).toContain("Page 1 of 2");
      expect(text).toContain("5 min read");
      expect(text).toContain("Excerpt of Issue 12: notes on defensible review");
      expect(html).toContain('<time dateTime="2026-03-12T09:00:00.000Z">March 12, 2026</time>');
      expect(html).toMatch(
        /<a[^>]*rel="next"[^>]*href="\/newsletter\?page=2"|href="\/newsletter\?page=2"[^>]*rel="next"/,
      );
      expect(html).not.toContain('rel="prev"');
      expect(html.match(/<h1[\s>]/g)).toHaveLength(1);
      // The sign-up form, posting to the sign-up action, with the tenant's lists and the default ticked.
      expect(html).toMatch(
        /<form[^>]*aria-label="Newsletter sign-up"[^>]*action="\/newsletter\/subscribe"/,
      );
      expect(html).toMatch(/<input[^>]*name="lists" checked="" value="newsletter"/);
      expect(text).toContain("KeyDiscovery Newsletter");

      const second = await (await get("/newsletter?page=2")).text();
      const secondTitles = [...second.matchAll(/<h3[^>]*><a[^>]*>([^<]+)</g)].map((m) => m[1]);
      expect(secondTitles).toEqual([published[1]?.title, published[0]?.title]);
      expect(textOf(second)).toContain("Page 2 of 2");
      expect(second).toMatch(
        /href="\/newsletter"[^>]*rel="prev"|rel="prev"[^>]*href="\/newsletter"/,
      );
      expect(second).not.toContain('rel="next"');
    });

    it("treats an invalid page as the first and says when a page does not exist", async () => {
      for (const query of ["page=abc", "page=0", "page=-3", "page=1.5"]) {
        const response = await get(`/newsletter?${query}`);
        expect(response.status).toBe(200);
        expect(textOf(await response.text())).toContain("Page 1 of 2");
      }
      const beyond = await get("/newsletter?page=99");
      expect(beyond.status).toBe(404);
      const text = textOf(await beyond.text());
      expect(text).toContain("There is no page 99");
      expect(text).toContain("Go to the latest issues");
    });

    it("shows the other tenant only its own newsletters", async () => {
      const text = textOf(await (await get("/newsletter?page=1", KEYDISCOVERY)).text());
      expect(text).toContain("KeyDiscovery Legal only");
      expect(text).not.toContain("Issue 12");
    });
  });

  describe("a newsletter's page", () => {
    it("shows title, date, views, comments, read time, content and the comment form", async () => {
      articleId = published[11]?.id as string;
      const response = await get(`${at(articleId)}`);
      expect(response.status).toBe(200);
      // Browsers and proxies must not keep it; the host's page cache may, and still counts views.
      expect(response.headers.get("cache-control")).toContain("no-cache");
      expect(response.headers.get("x-page-cache")).toBe("miss");
      const html = await response.text();
      const text = textOf(html);
      expect(html).toMatch(/<h1[^>]*>Issue 12: notes on defensible review<\/h1>/);
      expect(html.match(/<h1[\s>]/g)).toHaveLength(1);
      expect(html).toContain('<time dateTime="2026-03-12T09:00:00.000Z">March 12, 2026</time>');
      expect(text).toContain("1 view");
      expect(text).toContain("0 comments");
      expect(text).toContain("5 min read");
      expect(html).toContain("<h2>Three developments</h2>");
      expect(html).toContain("<strong>TAR</strong>");
      expect(text).toContain("No comments yet.");
      expect(html).toMatch(/<textarea[^>]*placeholder="Share your thoughts..."/);
      expect(html).toMatch(/<button[^>]*type="submit"[^>]*>Post Comment<\/button>/);
      const textareaId = html.match(/<textarea[^>]*id="([^"]+)"/)?.[1];
      expect(html).toContain(`<label for="${textareaId}" class="sr-only">Your comment</label>`);
      expect(html).toMatch(/<a[^>]*href="\/newsletter"[^>]*>/);
    });

    it("carries Open Graph, Twitter and canonical tags for the article", async () => {
      const html = await (await get(`${at(articleId)}`)).text();
      const url = `http://localhost:${server.port}${at(articleId)}`;
      expect(titleOf(html)).toBe("Issue 12: notes on defensible review | KeyDiscovery");
      expect(metaContent(html, "name", "description")).toBe(
        "Excerpt of Issue 12: notes on defensible review: what changed this week in eDiscovery.",
      );
      expect(html).toContain(`<link rel="canonical" href="${url}"/>`);
      expect(metaContent(html, "property", "og:type")).toBe("article");
      expect(metaContent(html, "property", "og:title")).toBe(
        "Issue 12: notes on defensible review",
      );
      expect(metaContent(html, "property", "og:description")).toContain("Excerpt of Issue 12");
      expect(metaContent(html, "property", "og:url")).toBe(url);
      expect(metaContent(html, "property", "article:published_time")).toBe(
        "2026-03-12T09:00:00.000Z",
      );
      expect(metaContent(html, "name", "twitter:card")).toBe("summary_large_image");
      expect(metaContent(html, "property", "og:image")).toMatch(/\/share-card\?v=/);
      expect(metaContent(html, "name", "twitter:title")).toBe(
        "Issue 12: notes on defensible review",
      );
      expect(html.match(/property="og:type"/g)).toHaveLength(1);
    });

    it.each([
      ["a draft", () => draftId, {}],
      ["an unknown id", () => "00000000-0000-4000-8000-000000000000", {}],
      ["an id that cannot be one", () => "not%20an%20id!", {}],
      ["another tenant's newsletter", () => otherTenantId, {}],
    ])("answers 404 'Newsletter not found' for %s", async (_label, id, headers) => {
      const before = await crossTenant(database.db)
        .selectFrom("newsletters")
        .select((eb) => eb.fn.sum<number>("views").as("views"))
        .executeTakeFirst();
      const response = await get(`${at(id())}`, headers);
      expect(response.status).toBe(404);
      const html = await response.text();
      expect(textOf(html)).toContain("Newsletter not found");
      expect(html).toMatch(/<a[^>]*href="\/newsletter"[^>]*>Back to all newsletters<\/a>/);
      const after = await crossTenant(database.db)
        .selectFrom("newsletters")
        .select((eb) => eb.fn.sum<number>("views").as("views"))
        .executeTakeFirst();
      expect(Number(after?.views)).toBe(Number(before?.views));
    });

    it("shows another tenant's newsletter on that tenant's site", async () => {
      const response = await get(`${at(otherTenantId)}`, KEYDISCOVERY);
      expect(response.status).toBe(200);
      expect(textOf(await response.text())).toContain("KeyDiscovery Legal only");
    });

    it("counts one view per load, and every one of 20 concurrent loads", async () => {
      const id = published[5]?.id as string;
      const start = (await metrics(id)).views;
      const page = await get(`${at(id)}`);
      expect(textOf(await page.text())).toContain(`${start + 1} view`);
      expect((await metrics(id)).views).toBe(start + 1);
      // A client-side navigation loads the page's data once: one more view.
      const data = await get(`${at(id)}.data`);
      expect(data.status).toBe(200);
      await data.arrayBuffer();
      expect((await metrics(id)).views).toBe(start + 2);
      // HEAD is not a reader.
      await fetch(`${server.url}/newsletter/${id}`, { method: "HEAD" });
      expect((await metrics(id)).views).toBe(start + 2);

      const responses = await Promise.all(Array.from({ length: 20 }, () => get(`${at(id)}`)));
      for (const response of responses) {
        expect(response.status).toBe(200);
        await response.arrayBuffer();
      }
      expect((await metrics(id)).views).toBe(start + 22);

      // Served from the host's page cache, a load still counts and shows its own count.
      const cached = await get(`${at(id)}`);
      expect(cached.headers.get("x-page-cache")).toBe("hit");
      const cachedHtml = await cached.text();
      expect(textOf(cachedHtml)).toContain(`${start + 23} views`);
      // The cache keeps a sentinel where the count goes; it never reaches a reader. (Not just
      // "987": a timestamp's milliseconds may hold those digits.)
      expect(cachedHtml).not.toContain("987654321");
      expect(cachedHtml).not.toContain("987,654,321");
      expect((await metrics(id)).views).toBe(start + 23);
    });
  });

  describe("comments", () => {
    it("stores a comment as Anonymous, counts it, and shows it newest first as plain text", async () => {
      const id = published[10]?.id as string;
      const first = await postComment(id, { text: "  First thoughts.\nSecond line.  " });
      expect(first.status).toBe(302);
      expect(first.headers.get("location")).toBe(`${at(id)}#comments`);
      const second = await postComment(id, { text: "A later reply" });
      expect(second.status).toBe(302);

      const stored = await commentsOf(id);
      expect(stored).toHaveLength(2);
      expect(stored[0]).toMatchObject({
        tenant_id: "main",
        author: "Anonymous",
        text: "First thoughts.\nSecond line.",
      });
      expect(Number(stored[0]?.hidden)).toBe(0);
      expect((await metrics(id)).comments).toBe(2);

      const html = await (await get(`${at(id)}`)).text();
      const text = textOf(html);
      expect(text).toContain("2 comments");
      expect(text.indexOf("A later reply")).toBeLessThan(text.indexOf("First thoughts."));
      expect(html).toContain("First thoughts.\nSecond line.");
      expect(html).toMatch(/whitespace-pre-line[^>]*>First thoughts/);
      expect(text).toContain("Anonymous");
    });

    it("answers the page's own script with the new list instead of a redirect, without a view", async () => {
      const id = published[9]?.id as string;
      const before = await metrics(id);
      const response = await post(`${at(id)}.data`, {
        text: "Posted with JavaScript",
        enhanced: "1",
      });
      expect(response.status).toBe(200);
      const body = await response.text();
      expect(body).toContain("Posted with JavaScript");
      expect(body).toContain("commentCount");
      expect(await metrics(id)).toEqual({ views: before.views, comments: before.comments + 1 });
    });

    it("ignores a blank comment silently", async () => {
      const id = published[10]?.id as string;
      const before = await metrics(id);
      const rows = (await commentsOf(id)).length;
      for (const text of ["", "   ", "\n\t "]) {
        const response = await postComment(id, { text });
        expect(response.status).toBe(302);
        expect(response.headers.get("location")).toBe(`${at(id)}#comments`);
      }
      const missing = await post(`${at(id)}`, {});
      expect(missing.status).toBe(302);
      expect(await commentsOf(id)).toHaveLength(rows);
      expect(await metrics(id)).toEqual(before);
    });

    it("refuses a comment over 2000 characters with a message, keeping the text", async () => {
      const id = published[10]?.id as string;
      const before = await metrics(id);
      const rows = (await commentsOf(id)).length;
      const long = `${"x".repeat(1999)}yz`;
      const response = await postComment(id, { text: long });
      expect(response.status).toBe(400);
      const html = await response.text();
      expect(textOf(html)).toContain("Comments must be at most 2000 characters.");
      expect(html).toMatch(new RegExp(`<textarea[^>]*aria-invalid="true"[^>]*>${long}</textarea>`));
      expect(await commentsOf(id)).toHaveLength(rows);
      // Re-rendering the page after the failed post is not another view.
      expect((await metrics(id)).views).toBe(before.views);

      // Exactly 2000 characters, with a Windows line break that the textarea counts as one.
      const fits = await postComment(id, { text: `${"y".repeat(1000)}\r\n${"z".repeat(999)}` });
      expect(fits.status).toBe(302);
      expect(await commentsOf(id)).toHaveLength(rows + 1);
    });

    it("answers a bot that fills the honeypot like a person but stores nothing", async () => {
      const id = published[10]?.id as string;
      const before = await metrics(id);
      const rows = (await commentsOf(id)).length;
      const response = await postComment(id, { text: "Buy now", website: "http://spam.example" });
      expect(response.status).toBe(302);
      expect(await commentsOf(id)).toHaveLength(rows);
      expect(await metrics(id)).toEqual(before);
    });

    it("counts every one of 10 concurrent comments", async () => {
      const id = published[8]?.id as string;
      const before = await metrics(id);
      const address = freshAddress();
      const responses = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          postComment(id, { text: `Concurrent comment ${i}` }, { "x-forwarded-for": address }),
        ),
      );
      expect(responses.map((response) => response.status)).toEqual(Array(10).fill(302));
      expect(await commentsOf(id)).toHaveLength(10);
      expect((await metrics(id)).comments).toBe(before.comments + 10);
    });

    it("refuses comments on a draft, an unknown or another tenant's newsletter, changing nothing", async () => {
      for (const id of [draftId, otherTenantId, "00000000-0000-4000-8000-000000000000"]) {
        const before = await metrics(otherTenantId);
        const response = await postComment(id, { text: "Hello?" });
        expect(response.status).toBe(404);
        expect(textOf(await response.text())).toContain("Newsletter not found");
        expect(await commentsOf(id)).toHaveLength(0);
        expect(await metrics(otherTenantId)).toEqual(before);
      }
      expect((await metrics(draftId)).comments).toBe(0);
    });

    it("refuses a cross-site comment", async () => {
      const id = published[7]?.id as string;
      const response = await postComment(id, { text: "csrf" }, { origin: "https://evil.example" });
      expect(response.status).toBe(403);
      expect(await commentsOf(id)).toHaveLength(0);
      expect((await metrics(id)).comments).toBe(0);
    });

    it("rate-limits comments per address with a clear message, keeping the text", async () => {
      const id = published[7]?.id as string;
      const address = freshAddress();
      const statuses: number[] = [];
      let limited: Response | undefined;
      for (let i = 0; i < 11; i++) {
        const response = await postComment(
          id,
          { text: `Comment number ${i}` },
          { "x-forwarded-for": address },
        );
        statuses.push(response.status);
        if (response.status === 429) limited = response;
      }
      expect(statuses).toEqual([...Array(10).fill(302), 429]);
      const html = await (limited as Response).text();
      expect(textOf(html)).toContain(
        "You are commenting too quickly. Please wait a minute and try again.",
      );
      expect(html).toMatch(/<textarea[^>]*>Comment number 10<\/textarea>/);
      expect(await commentsOf(id)).toHaveLength(10);
      // Another address is not affected.
      expect((await postComment(id, { text: "Someone else" })).status).toBe(302);
    });
  });

  describe("unsafe content", () => {
    it("renders newsletter HTML without scripts, event handlers or javascript: links", async () => {
      const id = await seed({ title: "Unsafe content", publishedAt: "2026-02-01T09:00:00.000Z" });
      // Written past createNewsletter's own sanitising, as an old or imported row might be.
      await crossTenant(database.db)
        .updateTable("newsletters")
        .set({
          content: `<p>Safe text</p><script>alert("script")</script><img src="https://example.com/a.png" onerror="alert('img')"><a href="javascript:alert('link')">click</a><p onclick="alert('p')">Para</p><iframe src="https://evil.example"></iframe>`,
        })
        .where("id", "=", id)
        .execute();
      const html = await (await get(`${at(id)}`)).text();
      expect(html).toContain("<p>Safe text</p>");
      expect(html).toContain('<img src="https://example.com/a.png" />');
      expect(html).not.toContain('alert("script")');
      expect(html).not.toMatch(/onerror|onclick/);
      expect(html).not.toContain("javascript:");
      expect(html).not.toContain("<iframe");
    });

    it("shows a comment's markup as text", async () => {
      const id = published[6]?.id as string;
      const payload = "<img src=x onerror=alert(1)>";
      expect((await postComment(id, { text: payload })).status).toBe(302);
      expect((await commentsOf(id))[0]?.text).toBe(payload);
      const html = await (await get(`${at(id)}`)).text();
      expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;");
      expect(html).not.toContain(payload);
    });
  });

  describe("moderation", () => {
    let adminCookie: string;
    let otherTenantCookie: string;
    let commentIds: number[];
    let id: string;

    beforeAll(async () => {
      await createStaffUser(database.db, { email: "admin@example.com", role: "super_admin" });
      await createStaffUser(database.db, {
        email: "legal@example.com",
        products: { keydiscovery: true },
      });
      adminCookie = await signIn(server.url, "admin@example.com");
      otherTenantCookie = await signIn(server.url, "legal@example.com");
      id = published[4]?.id as string;
      for (const text of ["Keep me", "Hide me", "Delete me"]) {
        expect((await postComment(id, { text })).status).toBe(302);
      }
      commentIds = (await commentsOf(id)).map((row) => Number(row.id));
    });

    const moderate = (commentId: number, intent: string, cookie?: string, redirectTo?: string) =>
      post(
        `/admin/comments/${commentId}`,
        { intent, ...(redirectTo === undefined ? {} : { redirectTo }) },
        cookie ? { cookie } : {},
      );
    const hiddenOf = async (commentId: number) =>
      Number(
        (
          await crossTenant(database.db)
            .selectFrom("comments")
            .select("hidden")
            .where("id", "=", commentId)
            .executeTakeFirst()
        )?.hidden,
      );

    it("sends an anonymous moderator to the login page and changes nothing", async () => {
      const response = await moderate(commentIds[1] as number, "hide");
      expect(response.status).toBe(302);
      expect(response.headers.get("location")).toMatch(/^\/admin\/login/);
      expect(await hiddenOf(commentIds[1] as number)).toBe(0);
    });

    it("refuses a product user of another tenant with 403 and changes nothing", async () => {
      const response = await moderate(commentIds[1] as number, "hide", otherTenantCookie);
      expect(response.status).toBe(403);
      expect(await hiddenOf(commentIds[1] as number)).toBe(0);
      expect((await metrics(id)).comments).toBe(3);
    });

    it("shows staff every comment with moderation buttons", async () => {
      const html = await (await get(`${at(id)}`, { cookie: adminCookie })).text();
      expect(html).toContain(`action="/admin/comments/${commentIds[1]}"`);
      expect(html).toMatch(/<button[^>]*value="hide"[^>]*>Hide/);
      expect(html).toMatch(/<button[^>]*value="delete"[^>]*>Confirm delete<\/button>/);
      const anonymous = await (await get(`${at(id)}`)).text();
      expect(anonymous).not.toContain("/admin/comments/");
    });

    it("lets staff hide and unhide a comment, adjusting the public count once", async () => {
      const target = commentIds[1] as number;
      const back = `${at(id)}#comments`;
      const hidden = await moderate(target, "hide", adminCookie, back);
      expect(hidden.status).toBe(302);
      expect(hidden.headers.get("location")).toBe(back);
      expect(await hiddenOf(target)).toBe(1);
      expect((await metrics(id)).comments).toBe(2);
      // Hiding twice takes nothing more away.
      expect((await moderate(target, "hide", adminCookie, back)).status).toBe(302);
      expect((await metrics(id)).comments).toBe(2);

      const publicPage = textOf(await (await get(`${at(id)}`)).text());
      expect(publicPage).not.toContain("Hide me");
      expect(publicPage).toContain("2 comments");
      const staffPage = textOf(await (await get(`${at(id)}`, { cookie: adminCookie })).text());
      expect(staffPage).toContain("Hide me");
      expect(staffPage).toContain("Hidden");
      expect(staffPage).toContain("Unhide");

      expect((await moderate(target, "unhide", adminCookie, back)).status).toBe(302);
      expect(await hiddenOf(target)).toBe(0);
      expect((await metrics(id)).comments).toBe(3);
      expect(textOf(await (await get(`${at(id)}`)).text())).toContain("Hide me");
    });

    it("lets staff delete comments; a hidden one was already off the count", async () => {
      const visible = commentIds[2] as number;
      const response = await moderate(visible, "delete", adminCookie, "//evil.example/x");
      expect(response.status).toBe(302);
      expect(response.headers.get("location")).toBe("/admin/dashboard");
      expect(await commentsOf(id)).toHaveLength(2);
      expect((await metrics(id)).comments).toBe(2);

      const hiddenOne = commentIds[1] as number;
      await moderate(hiddenOne, "hide", adminCookie);
      expect((await metrics(id)).comments).toBe(1);
      expect((await moderate(hiddenOne, "delete", adminCookie)).status).toBe(302);
      expect(await commentsOf(id)).toHaveLength(1);
      expect((await metrics(id)).comments).toBe(1);

      expect((await moderate(visible, "delete", adminCookie)).status).toBe(404);
    });

    it("does not reach another tenant's comment from this tenant's site", async () => {
      const otherComment = await postComment(
        otherTenantId,
        { text: "Legal tenant comment" },
        KEYDISCOVERY,
      );
      expect(otherComment.status).toBe(302);
      const [row] = await commentsOf(otherTenantId);
      const before = await metrics(otherTenantId);
      for (const intent of ["hide", "delete"]) {
        const response = await moderate(Number(row?.id), intent, adminCookie);
        expect(response.status).toBe(404);
      }
      expect(await commentsOf(otherTenantId)).toHaveLength(1);
      expect(await metrics(otherTenantId)).toEqual(before);
    });

    it("refuses a bad intent and answers GET with 405", async () => {
      expect((await moderate(commentIds[0] as number, "publish", adminCookie)).status).toBe(400);
      expect((await get(`/admin/comments/${commentIds[0]}`, { cookie: adminCookie })).status).toBe(
        405,
      );
      expect(await hiddenOf(commentIds[0] as number)).toBe(0);
    });
  });

  describe("feeds", () => {
    it("serves an RSS 2.0 feed of the latest 20 published newsletters, escaped", async () => {
      const special = await seed({
        title: `Q&A: <privilege> logs & "quotes"`,
        publishedAt: "2026-04-01T12:30:00.000Z",
      });
      for (let i = 0; i < 10; i++) {
        await seed({
          title: `Older issue ${i}`,
          publishedAt: `2025-01-${String(i + 10)}T09:00:00.000Z`,
        });
      }
      const response = await get("/newsletter/rss.xml");
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("application/rss+xml; charset=utf-8");
      const xml = await response.text();
      const origin = `http://localhost:${server.port}`;
      expect(xml).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<rss version="2.0"/);
      expect(xml).toContain("<title>KeyDiscovery</title>");
      expect(xml).toContain(`<link>${origin}/newsletter</link>`);
      expect(xml).toContain(
        `<atom:link href="${origin}/newsletter/rss.xml" rel="self" type="application/rss+xml"/>`,
      );
      const items = [...xml.matchAll(/<item>([\s\S]*?)<\/item>/g)].map((match) => match[1] ?? "");
      expect(items).toHaveLength(20);
      expect(items[0]).toContain(
        "<title>Q&amp;A: &lt;privilege&gt; logs &amp; &quot;quotes&quot;</title>",
      );
      // The link is the readable one; the guid stays the id's address it always was.
      expect(items[0]).toContain(`<link>${origin}${at(special)}</link>`);
      expect(at(special)).toBe("/newsletter/qanda-lessprivilegegreater-logs-and-quotes");
      expect(items[0]).toContain(`<guid isPermaLink="true">${origin}/newsletter/${special}</guid>`);
      expect(items[0]).toContain("<pubDate>Wed, 01 Apr 2026 12:30:00 GMT</pubDate>");
      expect(items[0]).toContain("<description>Excerpt of Q&amp;A:");
      expect(xml).not.toContain("Unpublished draft issue");
      expect(xml).not.toContain("KeyDiscovery Legal only");
      expect(xml).not.toContain("Older issue 0<");

      const other = await (await get("/newsletter/rss.xml", KEYDISCOVERY)).text();
      expect(other).toContain("<title>KeyDiscovery Legal</title>");
      expect(other.match(/<item>/g)).toHaveLength(1);
    });

    it("lists the public pages and published newsletters in the sitemap", async () => {
      const response = await get("/sitemap.xml");
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/^application\/xml/);
      const xml = await response.text();
      const origin = `http://localhost:${server.port}`;
      expect(xml).toContain('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">');
      for (const path of [
        "/",
        "/about",
        "/services",
        "/products",
        "/contact",
        "/newsletter",
        "/privacy",
        "/terms",
      ]) {
        expect(xml).toContain(`<loc>${origin}${path}</loc>`);
      }
      const updatedAt = (
        await crossTenant(database.db)
          .selectFrom("newsletters")
          .select("updated_at")
          .where("id", "=", published[0]?.id as string)
          .executeTakeFirstOrThrow()
      ).updated_at;
      expect(xml).toContain(
        `<loc>${origin}${at(published[0]?.id as string)}</loc>\n    <lastmod>${updatedAt}</lastmod>`,
      );
      expect(xml).not.toContain(at(draftId));
      expect(xml).not.toContain(at(otherTenantId));
      expect(xml).not.toContain("/admin");
    });

    it("serves robots.txt with the admin and subscription pages closed and the sitemap", async () => {
      const response = await get("/robots.txt");
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("text/plain; charset=utf-8");
      const text = await response.text();
      expect(text).toContain("User-agent: *");
      expect(text).toContain("Disallow: /admin/");
      expect(text).toContain("Disallow: /subscription/");
      expect(text).toContain("Disallow: /preferences");
      expect(text).toContain("Disallow: /unsubscribe");
      expect(text).toContain(`Sitemap: http://localhost:${server.port}/sitemap.xml`);
    });
  });
});
