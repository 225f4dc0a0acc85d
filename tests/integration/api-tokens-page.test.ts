import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateToLatest } from "../../server/db/migrate";
import { seedTenants } from "../../server/tenants/seed";
import { createStaffUser, signIn } from "../support/auth";
import { createTestDatabase, type TestDatabase } from "../support/database";
import { textOf } from "../support/html";
import { type RunningServer, startServer } from "../support/server";

/** /admin/api-tokens: a super admin creates a token, it works once shown, and revoking stops it. */
describe("the API tokens page", () => {
  let database: TestDatabase;
  let server: RunningServer;
  const cookies = { chief: "", editor: "" };

  const post = (fields: Record<string, string | string[]>, cookie = cookies.chief) =>
    fetch(`${server.url}/admin/api-tokens`, {
      method: "POST",
      body: new URLSearchParams(
        Object.entries({ scopes: "read", lifetimeDays: "90", ...fields }).flatMap(([key, value]) =>
          (Array.isArray(value) ? value : [value]).map((each) => [key, each]),
        ),
      ),
      headers: { cookie, origin: server.url },
      redirect: "manual",
    });
  const verify = (token: string) =>
    fetch(`${server.url}/api/auth/verify`, { headers: { "x-auth-token": token } });

  beforeAll(async () => {
    database = await createTestDatabase("sqlite");
    await migrateToLatest(database.db);
    await seedTenants(database.db);
    server = await startServer({
      databaseUrl: database.url,
      env: { SESSION_SECRET: "api-tokens-page-secret-0123456789abcdef" },
    });
    await createStaffUser(database.db, { email: "chief@example.com", role: "super_admin" });
    await createStaffUser(database.db, { email: "editor@example.com", products: { main: true } });
    cookies.chief = await signIn(server.url, "chief@example.com");
    cookies.editor = await signIn(server.url, "editor@example.com");
  });

  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  it("is for super admins only", async () => {
    const anonymous = await fetch(`${server.url}/admin/api-tokens`, { redirect: "manual" });
    expect(anonymous.status).toBe(302);
    const editor = await fetch(`${server.url}/admin/api-tokens`, {
      headers: { cookie: cookies.editor },
    });
    expect(editor.status).toBe(403);
    expect((await post({ intent: "create", name: "sneaky" }, cookies.editor)).status).toBe(403);
    expect(await database.db.selectFrom("api_tokens").select("id").execute()).toEqual([]);
  });

  it("refuses a blank or too long name and stores nothing", async () => {
    const blank = await post({ intent: "create", name: "   " });
    expect(blank.status).toBe(400);
    expect(textOf(await blank.text())).toContain("Give the token a name");
    const long = await post({ intent: "create", name: "x".repeat(101) });
    expect(long.status).toBe(400);
    expect(await database.db.selectFrom("api_tokens").select("id").execute()).toEqual([]);
  });

  it("shows a new token once, keeps only its hash, and revoking stops it at once", async () => {
    const created = await post({ intent: "create", name: "Nightly export <script>" });
    expect(created.status).toBe(200);
    const html = await created.text();
    const token = /value="(hrld_[\w-]+)"/.exec(html)?.[1];
    expect(token).toBeDefined();
    expect(html).not.toContain("Nightly export <script>");
    const row = await database.db.selectFrom("api_tokens").selectAll().executeTakeFirstOrThrow();
    expect(row.name).toBe("Nightly export <script>");
    expect(row.token_hash).not.toContain(token ?? "");
    expect(row.token_hash).toMatch(/^[0-9a-f]{64}$/);

    const answer = await verify(token ?? "");
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ isAdmin: true, via: "api-token" });

    // The list shows the token without its secret.
    const list = await (
      await fetch(`${server.url}/admin/api-tokens`, { headers: { cookie: cookies.chief } })
    ).text();
    expect(list).toContain("Nightly export &lt;script&gt;");
    expect(list).not.toContain(token ?? "");

    const revoked = await post({ intent: "revoke", id: row.id });
    expect(revoked.status).toBe(200);
    expect(textOf(await revoked.text())).toContain("Token revoked");
    expect((await verify(token ?? "")).status).toBe(401);
    const again = await post({ intent: "revoke", id: row.id });
    expect(again.status).toBe(404);
  });

  it("gives a token only the scopes ticked (read by default) and an expiry", async () => {
    const none = await post({ intent: "create", name: "No scope", scopes: [] });
    expect(none.status).toBe(400);
    expect(textOf(await none.text())).toContain("Choose at least one scope");
    const badScope = await post({ intent: "create", name: "Bad", scopes: ["admin"] });
    expect(badScope.status).toBe(400);
    const badExpiry = await post({ intent: "create", name: "Bad", lifetimeDays: "7" });
    expect(badExpiry.status).toBe(400);

    const reader = await post({ intent: "create", name: "Reader", lifetimeDays: "30" });
    const token = /value="(hrld_[\w-]+)"/.exec(await reader.text())?.[1] ?? "";
    const row = await database.db
      .selectFrom("api_tokens")
      .select(["scopes", "expires_at"])
      .where("name", "=", "Reader")
      .executeTakeFirstOrThrow();
    expect(JSON.parse(row.scopes)).toEqual(["read"]);
    const days = (Date.parse(row.expires_at ?? "") - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);
    // Read: yes. Write tenants or call a function that changes data: no.
    const headers = { "x-auth-token": token, "content-type": "application/json" };
    expect((await fetch(`${server.url}/api/tenants`, { headers })).status).toBe(200);
    const write = await fetch(`${server.url}/api/tenants/main/branding`, {
      method: "PATCH",
      headers,
      body: JSON.stringify({ primaryColor: "#112233" }),
    });
    expect(write.status).toBe(403);
    expect((await write.json()).error.message).toBe(
      "This API token lacks the tenants:write scope.",
    );
    const call = (name: string, data: unknown) =>
      fetch(`${server.url}/api/functions/${name}`, {
        method: "POST",
        headers,
        body: JSON.stringify({ data }),
      });
    expect((await call("getAllGroups", {})).status).toBe(200);
    const add = await call("addSubscriber", { email: "scoped@example.com" });
    expect(add.status).toBe(403);
    expect((await add.json()).error.message).toBe("This API token lacks the functions scope.");
    expect(
      await database.db
        .selectFrom("subscribers")
        .select("id")
        .where("tenant_id", "=", "main")
        .where("email", "=", "scoped@example.com")
        .execute(),
    ).toEqual([]);

    const list = textOf(
      await (
        await fetch(`${server.url}/admin/api-tokens`, { headers: { cookie: cookies.chief } })
      ).text(),
    );
    expect(list).toContain("Scopes: read");

    // Once expired, it is refused like a revoked one.
    await database.db
      .updateTable("api_tokens")
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where("name", "=", "Reader")
      .execute();
    expect((await verify(token)).status).toBe(401);
    expect((await fetch(`${server.url}/api/tenants`, { headers })).status).toBe(401);
  });
});
