import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { crossTenant } from "../../server/db/tenant-guard";
import { createTestDatabase, type TestDatabase, testDialects } from "../support/database";
import { expectServerError } from "../support/error-logs";
import { textOf } from "../support/html";
import { type RunningServer, startServer } from "../support/server";

describe.each(testDialects())("the contact form on %s", (dialect) => {
  let database: TestDatabase;
  let server: RunningServer;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    server = await startServer({ databaseUrl: database.url });
  });

  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  const post = (
    fields: Record<string, string>,
    options: { headers?: Record<string, string>; path?: string } = {},
  ) =>
    fetch(`${server.url}${options.path ?? "/contact"}`, {
      method: "POST",
      body: new URLSearchParams(fields),
      headers: options.headers,
      redirect: "manual",
    });

  const messages = () =>
    crossTenant(database.db).selectFrom("contact_messages").selectAll().orderBy("id").execute();

  it("stores a valid message for the tenant and confirms it", async () => {
    const response = await post({
      name: "  Dana Whitfield ",
      email: "dana@lawfirm.example",
      company: "Whitfield & Ross LLP",
      message: "We need help with our ESI protocol newsletter.",
    });
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("/contact?sent=1#contact-form");
    const stored = await messages();
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({
      tenant_id: "main",
      name: "Dana Whitfield",
      email: "dana@lawfirm.example",
      company: "Whitfield & Ross LLP",
      message: "We need help with our ESI protocol newsletter.",
    });

    const confirmation = await fetch(`${server.url}/contact?sent=1`);
    expect(textOf(await confirmation.text())).toContain(
      "Thank you — your message has been received.",
    );
  });

  it("stores a message sent on another tenant's site under that tenant, company optional", async () => {
    const before = (await messages()).length;
    const response = await post(
      { name: "Lee", email: "lee@corp.example", message: "Hello" },
      { headers: { cookie: "herald_subdomain=keydiscovery" } },
    );
    expect(response.status).toBe(302);
    const stored = await messages();
    expect(stored).toHaveLength(before + 1);
    expect(stored.at(-1)).toMatchObject({ tenant_id: "keydiscovery", company: null });
  });

  it("refuses invalid input with a message per field, keeps what was typed and stores nothing", async () => {
    const before = (await messages()).length;
    const response = await post({ name: "   ", email: "dana@nodot", company: "Acme", message: "" });
    expect(response.status).toBe(400);
    const html = await response.text();
    const text = textOf(html);
    expect(text).toContain("Please enter your full name.");
    expect(text).toContain("Invalid email format: dana@nodot");
    expect(text).toContain("Please enter a message.");
    const input = (name: string) =>
      html.match(new RegExp(`<input[^>]*name="${name}"[^>]*>`))?.[0] ?? "";
    expect(input("email")).toContain('value="dana@nodot"');
    expect(input("email")).toContain('aria-invalid="true"');
    expect(input("company")).toContain('value="Acme"');
    expect(input("company")).not.toContain("aria-invalid");
    expect(input("name")).toContain('aria-invalid="true"');
    expect(await messages()).toHaveLength(before);
  });

  it.each([
    ["an email with spaces", { email: "dana @example.com" }, "Invalid email format"],
    ["an email without @", { email: "dana.example.com" }, "Invalid email format"],
    [
      "a name that is too long",
      { name: "x".repeat(201) },
      "Full name must be at most 200 characters.",
    ],
    [
      "a message that is too long",
      { message: "x".repeat(5001) },
      "Message must be at most 5000 characters.",
    ],
    ["a missing email", { email: "" }, "Please enter your email address."],
  ])("refuses %s", async (_label, override, expected) => {
    const before = (await messages()).length;
    const response = await post({
      name: "Dana",
      email: "dana@example.com",
      message: "Hi",
      ...override,
    });
    expect(response.status).toBe(400);
    expect(textOf(await response.text())).toContain(expected);
    expect(await messages()).toHaveLength(before);
  });

  it("stores HTML and SQL as plain text and shows nothing of it as markup", async () => {
    const payload = `<script>alert(1)</script>'); DROP TABLE contact_messages;--`;
    const response = await post({ name: payload, email: "x@example.com", message: payload });
    expect(response.status).toBe(302);
    const stored = await messages();
    expect(stored.at(-1)?.message).toBe(payload);

    const invalid = await post({ name: payload, email: "<b>bad</b>", message: payload });
    const html = await invalid.text();
    expect(html).not.toContain("<script>alert(1)</script>");
    expect(html).not.toContain("<b>bad</b>");
  });

  it("refuses a cross-site post and stores nothing", async () => {
    const before = (await messages()).length;
    const response = await post(
      { name: "Eve", email: "eve@example.com", message: "csrf" },
      { headers: { origin: "https://evil.example" } },
    );
    expect(response.status).toBe(403);
    const fetchSite = await post(
      { name: "Eve", email: "eve@example.com", message: "csrf" },
      { headers: { "sec-fetch-site": "cross-site" } },
    );
    expect(fetchSite.status).toBe(403);
    const opaque = await post(
      { name: "Eve", email: "eve@example.com", message: "csrf" },
      { headers: { origin: "null" } },
    );
    expect(opaque.status).toBe(403);
    expect(await messages()).toHaveLength(before);
  });

  it("accepts a same-origin post from the browser", async () => {
    const response = await post(
      { name: "Sam", email: "sam@example.com", message: "same origin" },
      {
        headers: {
          origin: server.url.replace("localhost", "localhost"),
          "sec-fetch-site": "same-origin",
        },
      },
    );
    expect(response.status).toBe(302);
  });

  it("answers a bot that fills the honeypot like a person but stores nothing", async () => {
    const before = (await messages()).length;
    const response = await post({
      name: "Bot",
      email: "bot@example.com",
      message: "spam",
      website: "http://spam.example",
    });
    expect(response.status).toBe(302);
    expect(await messages()).toHaveLength(before);
  });

  it("refuses an oversized body", async () => {
    const response = await post({
      name: "Big",
      email: "big@example.com",
      message: "x".repeat(1_100_000),
    });
    expect(response.status).toBe(413);
  });

  it("refuses an oversized chunked body (no Content-Length) with 413, and takes a small one", async () => {
    const chunked = (text: string) =>
      fetch(`${server.url}/contact`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          "x-forwarded-for": "10.8.0.1",
        },
        // A stream has no length: fetch sends it with Transfer-Encoding: chunked.
        body: new ReadableStream({
          start(controller) {
            const bytes = new TextEncoder().encode(text);
            for (let at = 0; at < bytes.length; at += 64 * 1024) {
              controller.enqueue(bytes.slice(at, at + 64 * 1024));
            }
            controller.close();
          },
        }),
        duplex: "half",
        redirect: "manual",
      } as RequestInit);
    const before = (await messages()).length;
    const logBefore = server.output().length;
    const huge = await chunked(
      new URLSearchParams({
        name: "Big",
        email: "big@example.com",
        message: "x".repeat(1_100_000),
      }).toString(),
    );
    expect(huge.status).toBe(413);
    expect(server.output().slice(logBefore)).not.toMatch(/unhandled error|Request body too large/);
    const small = await chunked(
      new URLSearchParams({
        name: "Small",
        email: "small@example.com",
        message: "Sent in chunks.",
      }).toString(),
    );
    expect(small.status).toBe(302);
    expect((await messages()).length).toBe(before + 1);
  });

  it("rate-limits messages per address with a clear message", async () => {
    let limited: Response | undefined;
    for (let i = 0; i < 15 && !limited; i++) {
      const response = await post({
        name: "Busy",
        email: "busy@example.com",
        message: `note ${i}`,
      });
      if (response.status === 429) limited = response;
    }
    expect(limited?.status).toBe(429);
    expect(textOf(await (limited as Response).text())).toContain(
      "Please wait a few minutes and try again.",
    );
  });

  it("shows a 500 page that leaks nothing when storing fails", async () => {
    // logged as the route's failure, with the request's id, not shown
    expectServerError(/contact_messages.*"msg":"a route failed"/);
    await database.db.schema.dropTable("contact_messages").execute();
    const response = await post(
      { name: "Ann", email: "ann@example.com", message: "hello" },
      { headers: { cookie: "herald_subdomain=keydiscovery" } },
    );
    expect(response.status).toBe(500);
    const html = await response.text();
    expect(textOf(html)).toContain("Something went wrong");
    expect(html).not.toMatch(
      /contact_messages|SqliteError|no such table|does not exist|at .*\.js:\d+/,
    );
  });
});

describe("contact messages in the staff area", () => {
  it("shows a tenant's messages to its staff only, as text", async () => {
    const database = await createTestDatabase("sqlite");
    const server = await startServer({ databaseUrl: database.url });
    try {
      const { createStaffUser, signIn } = await import("../support/auth");
      await createStaffUser(database.db, { email: "main@example.com", products: { main: true } });
      await createStaffUser(database.db, {
        email: "kd@example.com",
        products: { keydiscovery: true },
      });
      const send = (fields: Record<string, string>, cookie = "") =>
        fetch(`${server.url}/contact`, {
          method: "POST",
          body: new URLSearchParams(fields),
          headers: { cookie },
          redirect: "manual",
        });
      await send({ name: "Ada", email: "ada@example.com", message: "<b>Main</b> question" });
      await send(
        { name: "Kay", email: "kay@example.com", message: "KD question" },
        "herald_subdomain=keydiscovery",
      );

      const mainCookie = await signIn(server.url, "main@example.com");
      const page = await (
        await fetch(`${server.url}/admin/messages`, { headers: { cookie: mainCookie } })
      ).text();
      expect(textOf(page)).toContain("Ada");
      expect(page).toContain("&lt;b&gt;Main&lt;/b&gt; question");
      expect(textOf(page)).not.toContain("KD question");

      const kdCookie = await signIn(server.url, "kd@example.com");
      const denied = await fetch(`${server.url}/admin/messages`, { headers: { cookie: kdCookie } });
      expect(denied.status).toBe(403);
      const anonymous = await fetch(`${server.url}/admin/messages`, { redirect: "manual" });
      expect(anonymous.status).toBe(302);
    } finally {
      await server.stop();
      await database.drop();
    }
  });
});
