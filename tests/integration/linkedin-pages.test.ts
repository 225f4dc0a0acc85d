import { createServer, type IncomingHttpHeaders } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateToLatest } from "../../server/db/migrate";
import { crossTenant } from "../../server/db/tenant-guard";
import { isSealed } from "../../server/secret-box";
import { seedTenants } from "../../server/tenants/seed";
import { createStaffUser, signIn } from "../support/auth";
import { createTestDatabase, type TestDatabase, testDialects } from "../support/database";
import { type FakeLinkedIn, startFakeLinkedIn } from "../support/fake-linkedin";
import { postForm } from "../support/forms";
import { textOf } from "../support/html";
import { linkedInEnv, publishedNewsletterTitled, waitForPost } from "../support/linkedin";
import { type RunningServer, startServer } from "../support/server";

// Issue 36, target 2, through the staff pages against a fake LinkedIn: the OAuth round trip (state
// bound to the session and tenant, tokens sealed), posting now, refresh, and LinkedIn's refusals
// (expired token, 429, duplicate) shown plainly.
describe.each(testDialects())("LinkedIn from the staff pages on %s", (dialect) => {
  let database: TestDatabase;
  let fake: FakeLinkedIn;
  let server: RunningServer;
  let editor: string;
  let otherEditor: string;
  let otherTenant: string;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    await migrateToLatest(database.db);
    await seedTenants(database.db);
    fake = await startFakeLinkedIn();
    server = await startServer({
      databaseUrl: database.url,
      env: { ...linkedInEnv(fake), SESSION_SECRET: "linkedin-pages-secret-0123456789abcdef" },
    });
    const staff = async (email: string, products: Record<string, boolean>) =>
      signIn(server.url, (await createStaffUser(database.db, { email, products })).email);
    editor = await staff("editor@example.com", { main: true });
    otherEditor = await staff("second@example.com", { main: true });
    otherTenant = await staff("kd@example.com", { keydiscovery: true });
  });
  afterAll(async () => {
    await server?.stop();
    await fake?.stop();
    await database?.drop();
  });

  const page = async (cookie = editor) =>
    textOf(await (await fetch(`${server.url}/admin/linkedin`, { headers: { cookie } })).text());
  /** "Post to LinkedIn", now, as the editor. */
  const postNow = (newsletterId: string) =>
    postForm(server.url, "/admin/linkedin", { intent: "post", newsletterId, when: "now" }, editor);
  const connection = () =>
    crossTenant(database.db).selectFrom("linkedin_connections").selectAll().executeTakeFirst();

  /** "Connect LinkedIn" pressed, LinkedIn's page answered: the address LinkedIn sends back to. */
  async function authorize(cookie: string, fields: Record<string, string> = { kind: "member" }) {
    const start = await postForm(
      server.url,
      "/admin/linkedin",
      { intent: "connect", ...fields },
      cookie,
    );
    expect(start.status).toBe(303);
    const to = new URL(start.headers.get("location") ?? "");
    expect(to.origin).toBe(fake.url);
    expect(to.searchParams.get("scope")).toBe(
      fields.kind === "organization"
        ? "openid profile w_organization_social"
        : "openid profile w_member_social",
    );
    const answer = await fetch(to, { redirect: "manual" });
    const back = new URL(answer.headers.get("location") ?? "");
    expect(back.pathname).toBe("/admin/linkedin/callback");
    return `${server.url}${back.pathname}${back.search}`;
  }

  it("lets only staff of the tenant connect", async () => {
    const anonymous = await postForm(
      server.url,
      "/admin/linkedin",
      { intent: "connect", kind: "member" },
      "",
    );
    expect([302, 303]).toContain(anonymous.status);
    expect(anonymous.headers.get("location")).toMatch(/\/admin\/login/);
    const other = await postForm(
      server.url,
      "/admin/linkedin",
      { intent: "connect", kind: "member" },
      otherTenant,
    );
    expect(other.status).toBe(403);
    expect(await connection()).toBeUndefined();
  });

  it("refuses an answer meant for another session, a forged state, and a cancelled one", async () => {
    const callback = await authorize(editor);
    // Another staff member's browser (of the same tenant) presenting this answer: refused.
    const stolen = await fetch(callback, { headers: { cookie: otherEditor } });
    expect(stolen.status).toBe(400);
    expect(textOf(await stolen.text())).toContain("That LinkedIn answer was not for this sign-in");
    const forged = new URL(callback);
    forged.searchParams.set("state", `${forged.searchParams.get("state")?.slice(0, -2)}xx`);
    expect((await fetch(forged, { headers: { cookie: editor } })).status).toBe(400);
    fake.authorize = "cancel";
    const cancelled = await fetch(await authorize(editor), { headers: { cookie: editor } });
    fake.authorize = "approve";
    expect(textOf(await cancelled.text())).toContain(
      "LinkedIn did not connect: (The user cancelled the authorization)",
    );
    expect(await connection()).toBeUndefined();
    expect(fake.tokenGrants).toEqual([]);
  });

  it("connects through the OAuth round trip and keeps the tokens sealed", async () => {
    const back = await fetch(await authorize(editor), {
      headers: { cookie: editor },
      redirect: "manual",
    });
    expect(back.status).toBe(303);
    expect(back.headers.get("location")).toBe("/admin/linkedin?done=connected");
    const row = await connection();
    expect(row).toMatchObject({
      tenant_id: "main",
      author_kind: "member",
      author_urn: `urn:li:person:${fake.member.sub}`,
      author_name: "Jane Counsel",
      connected_by: "editor@example.com",
    });
    expect(isSealed(row?.tokens ?? "")).toBe(true);
    for (const token of [...fake.accessTokens.keys(), ...fake.refreshTokens.keys()]) {
      expect(JSON.stringify(row)).not.toContain(token);
    }
    const text = await page();
    expect(text).toContain("Posting as Jane Counsel (profile), connected by editor@example.com");
    expect(text).not.toContain("Reconnect LinkedIn");
    // The code worked once: the same answer again is refused by LinkedIn, shown plainly.
    expect(fake.tokenGrants).toEqual(["authorization_code"]);
  });

  it("keeps the newsletter chosen across connecting, only if it is the tenant's", async () => {
    const newsletterId = await publishedNewsletterTitled(
      database.db,
      "main",
      "Chosen before connecting",
    );
    const theirs = await publishedNewsletterTitled(database.db, "keydiscovery", "Another tenant's");
    // The connect form (here the reconnect prompt) carries the newsletter staff arrived with.
    await crossTenant(database.db)
      .updateTable("linkedin_connections")
      .set({ refresh_expires_at: new Date(Date.now() + 3 * 86_400_000).toISOString() })
      .execute();
    const arrived = await (
      await fetch(`${server.url}/admin/linkedin?newsletter=${newsletterId}`, {
        headers: { cookie: editor },
      })
    ).text();
    expect(arrived).toContain("Reconnect LinkedIn");
    expect(arrived).toMatch(
      new RegExp(`<input type="hidden" name="newsletterId" value="${newsletterId}"/>`),
    );
    /** The connect round trip with `newsletterId` in the form: where the callback sends back. */
    const connectWith = async (chosen: string) => {
      const back = await fetch(await authorize(editor, { kind: "member", newsletterId: chosen }), {
        headers: { cookie: editor },
        redirect: "manual",
      });
      expect(back.status).toBe(303);
      return back.headers.get("location");
    };
    const location = await connectWith(newsletterId);
    expect(location).toBe(`/admin/linkedin?done=connected&newsletter=${newsletterId}`);
    const landed = await (
      await fetch(`${server.url}${location}`, { headers: { cookie: editor } })
    ).text();
    expect(textOf(landed)).toContain("LinkedIn is connected.");
    expect(landed).toMatch(new RegExp(`<option value="${newsletterId}" selected=""`));
    expect(textOf(landed)).not.toContain("This connection lapses soon.");
    // Another tenant's newsletter, an unknown one, a forged value: connected, nothing chosen.
    for (const forged of [theirs, crypto.randomUUID(), `${newsletterId}"><script>`]) {
      expect(await connectWith(forged)).toBe("/admin/linkedin?done=connected");
    }
    // The signed state edited to carry another newsletter: refused as a whole, nothing saved.
    const callback = new URL(await authorize(editor, { kind: "member", newsletterId }));
    const [payload = "", signature] = (callback.searchParams.get("state") ?? "").split(".");
    const state = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    expect(state.l).toBe(newsletterId);
    const edited = Buffer.from(JSON.stringify({ ...state, l: theirs })).toString("base64url");
    callback.searchParams.set("state", `${edited}.${signature}`);
    const before = (await connection())?.tokens;
    const tampered = await fetch(callback, { headers: { cookie: editor }, redirect: "manual" });
    expect(tampered.status).toBe(400);
    expect(textOf(await tampered.text())).toContain(
      "That LinkedIn answer was not for this sign-in",
    );
    expect((await connection())?.tokens).toBe(before);
  });

  it("posts a published newsletter now, with its image, once", async () => {
    const newsletterId = await publishedNewsletterTitled(database.db, "main", "Posted now");
    // The social pack's "Post it on LinkedIn" arrives with the newsletter chosen.
    const arrived = await (
      await fetch(`${server.url}/admin/linkedin?newsletter=${newsletterId}`, {
        headers: { cookie: editor },
      })
    ).text();
    expect(arrived).toMatch(new RegExp(`<option value="${newsletterId}" selected=""`));
    const posted = await postNow(newsletterId);
    expect(posted.headers.get("location")).toBe("/admin/linkedin?done=queued");
    const row = await waitForPost(database.db, newsletterId, (post) => post.state === "posted");
    expect(fake.posts.filter((post) => post.commentary.includes("Posted now"))).toHaveLength(1);
    const post = fake.posts.at(-1);
    expect(row.post_urn).toBe(post?.id);
    expect(fake.images.get(post?.imageUrn ?? "")?.contentType).toBe("image/png");
    // The social pack's LinkedIn text: the link tagged so its readers count as LinkedIn's (its
    // underscores escaped, as LinkedIn's little text format wants every reserved character).
    expect(post?.commentary).toContain("/newsletter/posted-now?utm\\_source=linkedin");
    for (const call of fake.requests.filter((r) => r.path.startsWith("/rest/"))) {
      expect(call.headers["linkedin-version"]).toBe("202510");
      expect(call.headers["x-restli-protocol-version"]).toBe("2.0.0");
    }
    expect(await page()).toMatch(/Posted now\s*Posted/);
    // Asked again: refused, nothing posted twice.
    const again = await postNow(newsletterId);
    expect(again.status).toBe(400);
    expect(textOf(await again.text())).toContain("This newsletter is already on LinkedIn.");
  });

  it("waits out LinkedIn's rate limit and posts once", async () => {
    const newsletterId = await publishedNewsletterTitled(database.db, "main", "Rate limited");
    fake.inject({
      method: "POST",
      path: "/rest/posts",
      status: 429,
      body: {
        status: 429,
        serviceErrorCode: 101,
        code: "TOO_MANY_REQUESTS",
        message:
          "Resource level throttle APPLICATION DAY limit for calls to this resource is reached.",
      },
      headers: { "retry-after": "2" },
    });
    await postNow(newsletterId);
    const waiting = await waitForPost(database.db, newsletterId, (post) => post.error !== null);
    expect(waiting.state).toBe("scheduled");
    expect(waiting.error).toMatch(
      /^LinkedIn's rate limit was reached\. Herald tries again at .* UTC\. LinkedIn said: TOO_MANY_REQUESTS/,
    );
    expect(await page()).toContain("LinkedIn's rate limit was reached.");
    await waitForPost(database.db, newsletterId, (post) => post.state === "posted");
    expect(fake.posts.filter((post) => post.commentary.includes("Rate limited"))).toHaveLength(1);
  });

  it("shows a duplicate plainly, and posts when asked again", async () => {
    const newsletterId = await publishedNewsletterTitled(database.db, "main", "Duplicated");
    fake.inject({
      method: "POST",
      path: "/rest/posts",
      status: 422,
      body: {
        status: 422,
        code: "DUPLICATE_POST",
        message: "Content is a duplicate of urn:li:share:1",
      },
    });
    await postNow(newsletterId);
    const failed = await waitForPost(database.db, newsletterId, (post) => post.state === "failed");
    expect(failed.error).toBe(
      'LinkedIn refused the post as a duplicate of one already on the page. LinkedIn said: DUPLICATE_POST, "Content is a duplicate of urn:li:share:1"',
    );
    expect(await page()).toContain(
      "LinkedIn refused the post as a duplicate of one already on the page.",
    );
    // The retry: staff post it again.
    await postNow(newsletterId);
    await waitForPost(database.db, newsletterId, (post) => post.state === "posted");
    expect(fake.posts.filter((post) => post.commentary.includes("Duplicated"))).toHaveLength(1);
  });

  it("refreshes an access token about to lapse", async () => {
    const before = (await connection())?.tokens;
    await crossTenant(database.db)
      .updateTable("linkedin_connections")
      .set({ access_expires_at: new Date(Date.now() + 3_600_000).toISOString() })
      .execute();
    const newsletterId = await publishedNewsletterTitled(database.db, "main", "After refresh");
    await postNow(newsletterId);
    await waitForPost(database.db, newsletterId, (post) => post.state === "posted");
    expect(fake.tokenGrants).toContain("refresh_token");
    const after = await connection();
    expect(after?.tokens).not.toBe(before);
    expect(isSealed(after?.tokens ?? "")).toBe(true);
    expect(Date.parse(after?.access_expires_at ?? "")).toBeGreaterThan(Date.now() + 86_400_000);
  });

  it("shows an expired or revoked token plainly, with the reconnect prompt", async () => {
    fake.revokeAll();
    const newsletterId = await publishedNewsletterTitled(database.db, "main", "Token revoked");
    await postNow(newsletterId);
    const failed = await waitForPost(database.db, newsletterId, (post) => post.state === "failed");
    expect(failed.error).toMatch(
      /^LinkedIn no longer accepts Herald's access: the token expired or was revoked\. Reconnect LinkedIn, then post again\. LinkedIn said: INVALID_ACCESS_TOKEN/,
    );
    const text = await page();
    expect(text).toContain(
      "LinkedIn no longer accepts this connection. Reconnect LinkedIn to keep posting.",
    );
    expect(text).toContain("Reconnect LinkedIn");
    // Reconnecting clears the prompt, and the post goes when asked again.
    await fetch(await authorize(editor), { headers: { cookie: editor }, redirect: "manual" });
    expect((await connection())?.problem).toBeNull();
    await postNow(newsletterId);
    await waitForPost(database.db, newsletterId, (post) => post.state === "posted");
    expect(fake.posts.filter((post) => post.commentary.includes("Token revoked"))).toHaveLength(1);
  });

  it("prompts to reconnect when no refresh token will outlast the week", async () => {
    await crossTenant(database.db)
      .updateTable("linkedin_connections")
      .set({ refresh_expires_at: new Date(Date.now() + 3 * 86_400_000).toISOString() })
      .execute();
    expect(await page()).toContain(
      "This connection lapses soon. Reconnect LinkedIn to keep posting.",
    );
  });

  it("refuses bad input with a clear message and changes nothing", async () => {
    const count = async () =>
      (await crossTenant(database.db).selectFrom("linkedin_posts").select("id").execute()).length;
    const before = await count();
    const draft = await postForm(
      server.url,
      "/admin/linkedin",
      { intent: "post", newsletterId: "nope", when: "now" },
      editor,
    );
    expect(draft.status).toBe(400);
    expect(textOf(await draft.text())).toContain(
      "Only a published newsletter can be posted to LinkedIn.",
    );
    const noTime = await postForm(
      server.url,
      "/admin/linkedin",
      { intent: "post", newsletterId: "nope", when: "at", at: "" },
      editor,
    );
    expect(noTime.status).toBe(400);
    const org = await postForm(
      server.url,
      "/admin/linkedin",
      { intent: "connect", kind: "organization", organizationId: "acme" },
      editor,
    );
    expect(org.status).toBe(400);
    // A time gone by (it would post at once), a post that is not waiting, a forged form: each
    // refused in words, not zod's.
    const published = await publishedNewsletterTitled(database.db, "main", "Bad input");
    const refusals: [Record<string, string>, string][] = [
      [
        { intent: "post", newsletterId: published, when: "at", at: "2001-01-01T10:00" },
        "Choose a time from now on for the post, or post it now.",
      ],
      [
        { intent: "cancel", postId: "999999" },
        "That post is no longer waiting: it was posted, is being posted, or was withdrawn.",
      ],
      [{ intent: "cancel", postId: "<b>1</b>" }, "Choose a post to withdraw."],
      [{ intent: "take-over" }, "Unknown action."],
    ];
    for (const [fields, message] of refusals) {
      const refused = await postForm(server.url, "/admin/linkedin", fields, editor);
      expect(refused.status).toBe(400);
      expect(textOf(await refused.text())).toContain(message);
    }
    expect(await count()).toBe(before);
  });

  // Issue 44, finding 9: an OAuth state worked twice (a second code under the same state).
  it("takes each OAuth state once", async () => {
    const start = await postForm(
      server.url,
      "/admin/linkedin",
      { intent: "connect", kind: "member" },
      editor,
    );
    const to = new URL(start.headers.get("location") ?? "");
    const callbackOf = async () => {
      const answer = await fetch(to, { redirect: "manual" });
      const back = new URL(answer.headers.get("location") ?? "");
      return `${server.url}${back.pathname}${back.search}`;
    };
    // Two codes for one state (LinkedIn's authorization page opened twice).
    const first = await callbackOf();
    const second = await callbackOf();
    const grants = fake.tokenGrants.length;
    const used = await fetch(first, { headers: { cookie: editor }, redirect: "manual" });
    expect(used.status).toBe(303);
    const again = await fetch(second, { headers: { cookie: editor }, redirect: "manual" });
    expect(again.status).toBe(400);
    expect(textOf(await again.text())).toContain("That LinkedIn answer was used already");
    // The second code was never exchanged.
    expect(fake.tokenGrants.length).toBe(grants + 1);
  });

  // Issue 44, finding 9: the access token went to whatever upload URL the API answered.
  it("sends the access token only to LinkedIn's hosts", async () => {
    const seen: IncomingHttpHeaders[] = [];
    const elsewhere = createServer((req, res) => {
      seen.push(req.headers);
      req.resume();
      res.writeHead(201).end();
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, "127.0.0.1", resolve));
    const address = elsewhere.address();
    // Another port of the same machine: not the configured LinkedIn base.
    fake.uploadBase = `http://localhost:${typeof address === "object" && address ? address.port : 0}`;
    try {
      const newsletterId = await publishedNewsletterTitled(database.db, "main", "Upload elsewhere");
      await postNow(newsletterId);
      const failed = await waitForPost(
        database.db,
        newsletterId,
        (post) => post.state === "failed",
      );
      expect(failed.error).toContain("LinkedIn's upload address is not on LinkedIn");
      expect(seen).toEqual([]);
      expect(fake.posts.some((post) => post.commentary.includes("Upload elsewhere"))).toBe(false);
    } finally {
      fake.uploadBase = null;
      await new Promise<void>((resolve) => elsewhere.close(() => resolve()));
    }
  });

  // Issue 44, finding 9: posting as an organization the member does not administer.
  it("connects an organization page only when the member administers it", async () => {
    const refused = await fetch(
      await authorize(editor, { kind: "organization", organizationId: "999888" }),
      { headers: { cookie: editor }, redirect: "manual" },
    );
    expect(refused.status).toBe(400);
    expect(textOf(await refused.text())).toContain(
      "Jane Counsel does not administer the LinkedIn organization 999888",
    );
    expect(await connection()).toMatchObject({ author_kind: "member" });
    expect(fake.requests.some((call) => call.path.startsWith("/rest/organizationAcls?"))).toBe(
      true,
    );
    const admin = await fetch(
      await authorize(editor, { kind: "organization", organizationId: "5515715" }),
      { headers: { cookie: editor }, redirect: "manual" },
    );
    expect(admin.status).toBe(303);
    expect(await connection()).toMatchObject({
      author_kind: "organization",
      author_urn: "urn:li:organization:5515715",
    });
  });
});
