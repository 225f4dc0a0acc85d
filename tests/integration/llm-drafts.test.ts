import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "../../server/db";
import { crossTenant } from "../../server/db/tenant-guard";
import { createNewsletter } from "../../server/newsletters/editing";
import { publishNewsletter } from "../../server/newsletters/newsletters";
import { createStaffUser, signIn } from "../support/auth";
import { createTestDatabase, type TestDatabase, testDialects } from "../support/database";
import { type FakeLlm, startFakeLlm } from "../support/fake-llm";
import { postForm } from "../support/forms";
import { textOf } from "../support/html";
import { type RunningServer, startServer } from "../support/server";
import { scaled } from "../support/timing";

/**
 * Issue 36, target 4: "Suggest a subject line" and "Draft the LinkedIn post" call an
 * OpenAI-compatible endpoint (here a local fake that checks every request) with the tenant's voice
 * notes and its three most recent newsletters; failures come back as plain sentences.
 */
describe.each(testDialects())("drafts in the leader's voice, on %s", (dialect) => {
  let database: TestDatabase;
  let server: RunningServer;
  let fake: FakeLlm;
  let db: Db;
  let cookie: string;
  let draftId: string;
  const VOICE = "Warm and direct. Always end with a question to the reader.";
  const timeoutMs = Math.max(2000, scaled(2000));

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    fake = await startFakeLlm({ model: "herald-voice", apiKey: "sk-herald-test" });
    server = await startServer({
      databaseUrl: database.url,
      env: {
        LLM_BASE_URL: fake.baseUrl,
        LLM_MODEL: "herald-voice",
        LLM_API_KEY: "sk-herald-test",
        LLM_TIMEOUT_MS: String(timeoutMs),
      },
    });
    db = createDb(database.url);
    const ctx = { db, tenantId: "main" };
    // Four published newsletters, oldest first: the three newest are the examples.
    for (let i = 1; i <= 4; i++) {
      const newsletter = await createNewsletter(
        { ...ctx, authorId: null },
        { title: `Published number ${i}`, excerpt: `Excerpt ${i}.`, content: `<p>Body ${i}.</p>` },
      );
      await publishNewsletter(ctx, newsletter.id);
      await crossTenant(db)
        .updateTable("newsletters")
        .set({ published_at: `2026-0${i}-01T09:00:00.000Z` })
        .where("id", "=", newsletter.id)
        .execute();
    }
    const draft = await createNewsletter(
      { ...ctx, authorId: null },
      { title: "The draft at hand", excerpt: "About pricing.", content: "<p>Pricing matters.</p>" },
    );
    draftId = draft.id;
    await createStaffUser(db, { email: "voice@example.com", role: "super_admin" });
    cookie = await signIn(server.url, "voice@example.com");
  }, scaled(60_000));

  afterAll(async () => {
    await db?.destroy();
    await server?.stop();
    await fake?.close();
    await database?.drop();
  });

  const assist = (intent: string, id = draftId) =>
    postForm(server.url, `/admin/newsletter/assist/${id}`, { intent }, cookie);

  it("keeps the tenant's voice notes in the tenant manager", async () => {
    const tooLong = await postForm(
      server.url,
      "/admin/tenants/main",
      { intent: "voice:save", tenantId: "main", voiceNotes: "x".repeat(4001) },
      cookie,
    );
    expect(tooLong.status).toBe(400);
    expect(textOf(await tooLong.text())).toContain("Keep the voice notes to 4,000 characters.");
    const saved = await postForm(
      server.url,
      "/admin/tenants/main",
      { intent: "voice:save", tenantId: "main", voiceNotes: VOICE },
      cookie,
    );
    expect(saved.status).toBe(302);
    const page = await fetch(`${server.url}/admin/tenants/main`, { headers: { cookie } });
    const text = textOf(await page.text());
    expect(text).toContain("Voice notes");
    expect(text).toContain(VOICE);
  });

  it("suggests subject lines from the voice notes, the three newest newsletters and the draft", async () => {
    fake.mode = {
      kind: "answer",
      content: '1. Pricing, plainly\n2. "What we charge, and why"\n- Pricing matters\n\n',
    };
    const before = fake.requests.length;
    const response = await assist("subject");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      suggestions: ["Pricing, plainly", "What we charge, and why", "Pricing matters"],
    });
    expect(fake.requests.length).toBe(before + 1);
    const request = fake.requests.at(-1);
    expect(request?.authorization).toBe("Bearer sk-herald-test");
    expect(request?.body.model).toBe("herald-voice");
    const [system, user] = request?.body.messages ?? [];
    expect(system?.role).toBe("system");
    expect(system?.content).toContain(VOICE);
    expect(user?.role).toBe("user");
    for (const i of [2, 3, 4]) expect(user?.content).toContain(`Published number ${i}`);
    expect(user?.content).not.toContain("Published number 1");
    expect(user?.content).toContain("The draft at hand");
    expect(user?.content).toContain("Pricing matters.");
    expect(user?.content).toMatch(/subject lines/);
  });

  it("drafts the LinkedIn post and saves nothing", async () => {
    fake.mode = { kind: "answer", content: "Pricing is a promise. What would you charge?" };
    const before = await crossTenant(db)
      .selectFrom("newsletters")
      .selectAll()
      .where("id", "=", draftId)
      .executeTakeFirstOrThrow();
    const response = await assist("linkedin");
    expect(response.status).toBe(200);
    const { draft } = await response.json();
    expect(draft).toMatch(
      /^Pricing is a promise\. What would you charge\?\n\nRead it here: http:\/\/\S+\/newsletter\/the-draft-at-hand\?utm_source=linkedin&utm_medium=social&utm_campaign=the-draft-at-hand$/,
    );
    expect(fake.requests.at(-1)?.body.messages?.[1]?.content).toMatch(/LinkedIn post/);
    const after = await crossTenant(db)
      .selectFrom("newsletters")
      .selectAll()
      .where("id", "=", draftId)
      .executeTakeFirstOrThrow();
    expect(after).toEqual(before);
  });

  it("says plainly when the model fails, answers nonsense or is too slow", async () => {
    fake.mode = { kind: "status", status: 500 };
    let response = await assist("subject");
    expect(response.status).toBe(502);
    expect(await response.json()).toEqual({
      error: "The language model failed (HTTP 500). Try again in a few minutes.",
    });
    fake.mode = { kind: "status", status: 429 };
    response = await assist("linkedin");
    expect(response.status).toBe(503);
    expect((await response.json()).error).toMatch(/busy or over its quota/);
    fake.mode = { kind: "not-json" };
    response = await assist("subject");
    expect(response.status).toBe(502);
    expect((await response.json()).error).toMatch(/could not be read/);
    fake.mode = { kind: "slow" };
    response = await assist("linkedin");
    expect(response.status).toBe(504);
    expect((await response.json()).error).toMatch(/did not answer within \d+ seconds?\./);
  });

  it("refuses a newsletter it does not have, a wrong intent and a GET", async () => {
    fake.mode = { kind: "answer", content: "unused" };
    const missing = await assist("subject", "no-such-newsletter");
    expect(missing.status).toBe(422);
    expect(await missing.json()).toEqual({ error: "No such newsletter." });
    const wrong = await assist("publish");
    expect(wrong.status).toBe(400);
    const get = await fetch(`${server.url}/admin/newsletter/assist/${draftId}`, {
      headers: { cookie },
    });
    expect(get.status).toBe(405);
    const anonymous = await postForm(
      server.url,
      `/admin/newsletter/assist/${draftId}`,
      { intent: "subject" },
      "",
    );
    expect([302, 401, 403]).toContain(anonymous.status);
  });

  it("limits how many drafts a staff member asks for", async () => {
    fake.mode = { kind: "answer", content: "A line" };
    let refused: Response | null = null;
    for (let i = 0; i < 25 && !refused; i++) {
      const response = await assist("subject");
      if (response.status === 429) refused = response;
    }
    expect(refused).not.toBeNull();
    const before = fake.requests.length;
    expect(await refused?.json()).toEqual({
      error: "Too many drafts asked for in a short time. Wait a few minutes and try again.",
    });
    await assist("linkedin");
    expect(fake.requests.length).toBe(before);
  });
});
