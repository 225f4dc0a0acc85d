import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEnv, trustProxySetting } from "../../server/env";
import { createStaffUser, signIn, TEST_PASSWORD } from "../support/auth";
import { createTestDatabase, type TestDatabase, testDialects } from "../support/database";
import { textOf } from "../support/html";
import { type RunningServer, startServer } from "../support/server";

describe.each(testDialects())("staff accounts on %s", (dialect) => {
  let database: TestDatabase;
  let server: RunningServer;
  const cookies: Record<string, string> = {};

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    server = await startServer({ databaseUrl: database.url });
    const db = database.db;
    await createStaffUser(db, { email: "root@example.com", role: "super_admin" });
    await createStaffUser(db, { email: "main-editor@example.com", products: { main: true } });
    await createStaffUser(db, { email: "kd-editor@example.com", products: { keydiscovery: true } });
    await createStaffUser(db, { email: "nobody@example.com" });
  });

  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  const get = (path: string, cookie = "") =>
    fetch(`${server.url}${path}`, { headers: cookie ? { cookie } : {}, redirect: "manual" });
  const post = (
    path: string,
    fields: Record<string, string>,
    headers: Record<string, string> = {},
  ) =>
    fetch(`${server.url}${path}`, {
      method: "POST",
      body: new URLSearchParams(fields),
      headers,
      redirect: "manual",
    });
  const asTenant = (cookie: string, tenant: string) => `${cookie}; herald_subdomain=${tenant}`;

  it("logs a one-time setup link on a first start without users", async () => {
    expect(server.output()).toMatch(/\/admin\/setup\?token=[\w-]+/);
  });

  it("shows the SPEC login page", async () => {
    const html = await (await get("/admin/login")).text();
    const text = textOf(html);
    for (const label of ["Admin Login", "Email", "Password", "Show", "Sign In"])
      expect(text).toContain(label);
    expect(html).toMatch(/<input[^>]*type="password"/);
  });

  it("refuses wrong credentials with SPEC's message and the same answer for unknown accounts", async () => {
    const wrong = await post("/admin/login", { email: "root@example.com", password: "nope-nope" });
    expect(wrong.status).toBe(401);
    expect(textOf(await wrong.text())).toContain(
      "Failed to sign in. Please check your credentials.",
    );
    const unknown = await post("/admin/login", {
      email: "ghost@example.com",
      password: "nope-nope",
    });
    expect(unknown.status).toBe(401);
    const body = await unknown.text();
    expect(textOf(body)).toContain("Failed to sign in. Please check your credentials.");
    expect(body).not.toContain("nope-nope");
    const blank = await post("/admin/login", { email: "", password: "" });
    expect(blank.status).toBe(400);
    expect(textOf(await blank.text())).toContain("Email is required");
  });

  it.each([
    ["root@example.com", "/admin/dashboard"],
    ["kd-editor@example.com", "/admin/cms"],
    ["main-editor@example.com", "/"],
    ["nobody@example.com", "/"],
  ])("sends %s to %s after sign-in with a safe session cookie", async (email, target) => {
    const response = await post("/admin/login", { email, password: TEST_PASSWORD });
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe(target);
    const cookie =
      response.headers.getSetCookie().find((c) => c.startsWith("herald_session=")) ?? "";
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).not.toMatch(/Secure/);
    cookies[email] = cookie.split(";")[0] as string;
    const stored = await database.db.selectFrom("sessions").select("token_hash").execute();
    expect(stored.map((row) => row.token_hash)).not.toContain(cookies[email].split("=")[1]);
  });

  it("honours a redirectTo on this site and ignores one that leaves it", async () => {
    const local = await post("/admin/login", {
      email: "root@example.com",
      password: TEST_PASSWORD,
      redirectTo: "/admin/users",
    });
    expect(local.headers.get("location")).toBe("/admin/users");
    for (const evil of ["//evil.example/x", "https://evil.example/", "/\\evil.example"]) {
      const response = await post("/admin/login", {
        email: "root@example.com",
        password: TEST_PASSWORD,
        redirectTo: evil,
      });
      expect(response.headers.get("location")).toBe("/admin/dashboard");
    }
  });

  it("marks the cookie Secure behind HTTPS", async () => {
    const response = await post(
      "/admin/login",
      { email: "root@example.com", password: TEST_PASSWORD },
      { "x-forwarded-proto": "https" },
    );
    expect(response.headers.getSetCookie().join()).toMatch(/Secure/);
  });

  it("shows Dashboard and Sign Out in the server-rendered navigation when signed in, uncached", async () => {
    const response = await get("/about", cookies["root@example.com"]);
    const html = await response.text();
    expect(html).toMatch(/<a[^>]*href="\/admin\/dashboard"[^>]*>Dashboard<\/a>/);
    expect(textOf(html)).toContain("Sign Out");
    expect(textOf(html)).not.toMatch(/Sign In\b/);
    expect(response.headers.get("x-page-cache")).toBeNull();
  });

  describe("who may open what", () => {
    const matrix: [string, string, string, number][] = [
      // who, page, tenant, expected status
      ["anonymous", "/admin/dashboard", "main", 302],
      ["root@example.com", "/admin/dashboard", "main", 200],
      ["root@example.com", "/admin/dashboard", "keydiscovery", 200],
      ["main-editor@example.com", "/admin/dashboard", "main", 200],
      ["main-editor@example.com", "/admin/dashboard", "keydiscovery", 403],
      ["kd-editor@example.com", "/admin/dashboard", "main", 403],
      ["kd-editor@example.com", "/admin/dashboard", "keydiscovery", 200],
      ["nobody@example.com", "/admin/dashboard", "main", 403],
      ["nobody@example.com", "/admin/dashboard", "keydiscovery", 403],
      ["anonymous", "/admin/cms", "main", 302],
      ["kd-editor@example.com", "/admin/cms", "main", 200],
      ["nobody@example.com", "/admin/cms", "main", 403],
      ["anonymous", "/admin/users", "main", 302],
      ["main-editor@example.com", "/admin/users", "main", 403],
      ["root@example.com", "/admin/users", "main", 200],
    ];
    it.each(matrix)("%s → %s on %s answers %i", async (who, page, tenant, status) => {
      const cookie =
        who === "anonymous"
          ? `herald_subdomain=${tenant}`
          : asTenant(cookies[who] as string, tenant);
      const response = await get(page, cookie);
      expect(response.status).toBe(status);
      if (status === 302) {
        expect(response.headers.get("location")).toBe(
          `/admin/login?redirectTo=${encodeURIComponent(page)}`,
        );
      }
      if (status === 403) expect(textOf(await response.text())).toContain("Access denied");
    });

    it("shows the dashboard's SPEC texts and a product user's CMS lists only granted tenants", async () => {
      const dashboard = textOf(
        await (await get("/admin/dashboard", cookies["root@example.com"])).text(),
      );
      for (const text of [
        "Newsletter Management",
        "Create New Newsletter",
        "Sign Out",
        "No newsletters found. Create your first one!",
      ]) {
        expect(dashboard).toContain(text);
      }
      const cms = await (await get("/admin/cms", cookies["kd-editor@example.com"])).text();
      expect(cms).toMatch(/<h2 id="tenant-keydiscovery"[^>]*>KeyDiscovery Legal<\/h2>/);
      expect(cms).not.toContain('id="tenant-main"');
    });
  });

  describe("staff users admin", () => {
    it("lets a super admin add, change, reset and remove staff, refusing bad input", async () => {
      const root = cookies["root@example.com"] as string;
      const postAs = (fields: Record<string, string | string[]>) => {
        const body = new URLSearchParams();
        for (const [key, value] of Object.entries(fields)) {
          for (const item of Array.isArray(value) ? value : [value]) body.append(key, item);
        }
        return fetch(`${server.url}/admin/users`, {
          method: "POST",
          body,
          headers: { cookie: root },
          redirect: "manual",
        });
      };
      const added = await postAs({
        intent: "add",
        email: "new@example.com",
        password: "longenough1",
        role: "editor",
        products: ["keydiscovery"],
      });
      expect(added.status).toBe(200);
      const row = await database.db
        .selectFrom("users")
        .selectAll()
        .where("email", "=", "new@example.com")
        .executeTakeFirstOrThrow();
      expect(JSON.parse(row.products)).toEqual({ keydiscovery: true });

      const duplicate = await postAs({
        intent: "add",
        email: "NEW@example.com",
        password: "longenough1",
        role: "editor",
      });
      expect(duplicate.status).toBe(400);
      expect(textOf(await duplicate.text())).toContain("A user with this email already exists.");
      const short = await postAs({
        intent: "add",
        email: "x@example.com",
        password: "short",
        role: "editor",
      });
      expect(textOf(await short.text())).toContain("Password must be at least 10 characters.");
      // Long enough, but among the passwords attackers try first.
      const common = await postAs({
        intent: "add",
        email: "x@example.com",
        password: "Password123",
        role: "editor",
      });
      expect(common.status).toBe(400);
      expect(textOf(await common.text())).toContain(
        "This password is one of the most common ones, which attackers try first. Choose another.",
      );
      expect(
        await database.db
          .selectFrom("users")
          .select("id")
          .where("email", "=", "x@example.com")
          .execute(),
      ).toEqual([]);
      const badProduct = await postAs({
        intent: "add",
        email: "y@example.com",
        password: "longenough1",
        role: "editor",
        products: ["nope"],
      });
      expect(textOf(await badProduct.text())).toContain("Unknown product: nope");
      const badRole = await postAs({
        intent: "add",
        email: "z@example.com",
        password: "longenough1",
        role: "god",
      });
      expect(badRole.status).toBe(400);
      expect(
        await database.db
          .selectFrom("users")
          .select("email")
          .where("email", "in", ["x@example.com", "y@example.com", "z@example.com"])
          .execute(),
      ).toEqual([]);

      expect(
        (
          await postAs({
            intent: "access",
            userId: row.id,
            role: "editor",
            products: ["main", "keydiscovery"],
          })
        ).status,
      ).toBe(200);
      const changed = await database.db
        .selectFrom("users")
        .select("products")
        .where("id", "=", row.id)
        .executeTakeFirstOrThrow();
      expect(JSON.parse(changed.products)).toEqual({ main: true, keydiscovery: true });

      const newCookie = await signIn(server.url, "new@example.com", "longenough1");
      expect(
        (await postAs({ intent: "password", userId: row.id, password: "another-secret" })).status,
      ).toBe(200);
      // A reset signs the user out everywhere.
      expect((await get("/admin/dashboard", newCookie)).status).toBe(302);

      const rootRow = await database.db
        .selectFrom("users")
        .select("id")
        .where("email", "=", "root@example.com")
        .executeTakeFirstOrThrow();
      const removeSelf = await postAs({ intent: "remove", userId: rootRow.id });
      expect(textOf(await removeSelf.text())).toContain("You cannot remove your own account.");
      const demoteSelf = await postAs({ intent: "access", userId: rootRow.id, role: "editor" });
      expect(textOf(await demoteSelf.text())).toContain(
        "You cannot remove your own super admin role.",
      );

      expect((await postAs({ intent: "remove", userId: row.id })).status).toBe(200);
      expect(
        await database.db.selectFrom("users").select("id").where("id", "=", row.id).execute(),
      ).toEqual([]);
    });

    it("refuses staff changes from anyone but a super admin", async () => {
      const response = await fetch(`${server.url}/admin/users`, {
        method: "POST",
        body: new URLSearchParams({
          intent: "add",
          email: "sneaky@example.com",
          password: "longenough1",
          role: "super_admin",
        }),
        headers: { cookie: cookies["main-editor@example.com"] as string },
        redirect: "manual",
      });
      expect(response.status).toBe(403);
      expect(
        await database.db
          .selectFrom("users")
          .select("id")
          .where("email", "=", "sneaky@example.com")
          .execute(),
      ).toEqual([]);
    });
  });

  it("refuses a cross-site sign-in", async () => {
    const response = await post(
      "/admin/login",
      { email: "root@example.com", password: TEST_PASSWORD },
      { origin: "https://evil.example" },
    );
    expect(response.status).toBe(403);
  });

  it("signs out by deleting the session", async () => {
    const cookie = cookies["main-editor@example.com"] as string;
    const before = await database.db.selectFrom("sessions").select("token_hash").execute();
    const response = await fetch(`${server.url}/admin/logout`, {
      method: "POST",
      headers: { cookie },
      redirect: "manual",
    });
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("/");
    expect(response.headers.getSetCookie().join()).toMatch(/herald_session=;.*Max-Age=0/);
    const after = await database.db.selectFrom("sessions").select("token_hash").execute();
    expect(after).toHaveLength(before.length - 1);
    expect((await get("/admin/dashboard", cookie)).status).toBe(302);
  });

  it("throttles failures where they come from: 20 wrong passwords from A, then the right one from B signs in", async () => {
    const from = (address: string) => ({ "x-forwarded-for": address });
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) {
      const wrong = await post(
        "/admin/login",
        { email: "kd-editor@example.com", password: `wrong-${i}` },
        from("10.9.0.1"),
      );
      statuses.push(wrong.status);
    }
    // Five failures answer as failures; from then on address A waits (1 minute, growing).
    expect(statuses.slice(0, 5).every((status) => status !== 429)).toBe(true);
    expect(statuses.slice(5).every((status) => status === 429)).toBe(true);
    const fromA = await post(
      "/admin/login",
      { email: "kd-editor@example.com", password: TEST_PASSWORD },
      from("10.9.0.1"),
    );
    expect(fromA.status).toBe(429);
    expect(textOf(await fromA.text())).toContain(
      "Too many sign-in attempts. Please wait 15 minutes and try again.",
    );
    // The owner, elsewhere, is not locked out.
    const fromB = await post(
      "/admin/login",
      { email: "kd-editor@example.com", password: TEST_PASSWORD },
      from("10.9.0.2"),
    );
    expect(fromB.status).toBe(302);
    // A session token is 32 random bytes in base64url: 43 characters, "-" and "_" included (a token
    // starting with "-" failed the `\w` this line used to ask for, about one run in 64).
    expect(fromB.headers.getSetCookie().join()).toMatch(/herald_session=[\w-]{43};/);
  });

  it("throttles one address that tries many accounts", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) {
      const response = await post(
        "/admin/login",
        { email: `nobody-${i}@example.com`, password: "wrong-password" },
        { "x-forwarded-for": "10.9.0.3" },
      );
      statuses.push(response.status);
    }
    expect(statuses.slice(0, 30).every((status) => status !== 429)).toBe(true);
    expect(statuses[30]).toBe(429);
    const other = await post(
      "/admin/login",
      { email: "kd-editor@example.com", password: TEST_PASSWORD },
      { "x-forwarded-for": "10.9.0.4" },
    );
    expect(other.status).toBe(302);
  });
});

describe("first run", () => {
  it("creates the super admin from ADMIN_EMAIL and ADMIN_PASSWORD", async () => {
    const database = await createTestDatabase("sqlite");
    const server = await startServer({
      databaseUrl: database.url,
      env: { ADMIN_EMAIL: "Admin@Example.com", ADMIN_PASSWORD: "a-long-password" },
    });
    try {
      expect(server.output()).not.toMatch(/admin\/setup/);
      const cookie = await signIn(server.url, "admin@example.com", "a-long-password");
      expect((await fetch(`${server.url}/admin/dashboard`, { headers: { cookie } })).status).toBe(
        200,
      );
    } finally {
      await server.stop();
      await database.drop();
    }
  });

  it("lets the logged setup link create the first super admin, once", async () => {
    const database = await createTestDatabase("sqlite");
    const server = await startServer({ databaseUrl: database.url });
    try {
      const token = server.output().match(/\/admin\/setup\?token=([\w-]+)/)?.[1] as string;
      expect((await fetch(`${server.url}/admin/setup?token=wrong`)).status).toBe(404);
      expect((await fetch(`${server.url}/admin/setup?token=${token}`)).status).toBe(200);
      // The browser posts the form to the page's own URL, token included.
      const mismatch = await fetch(`${server.url}/admin/setup?token=${token}`, {
        method: "POST",
        body: new URLSearchParams({
          token,
          email: "first@example.com",
          password: "a-long-password",
          confirmPassword: "different",
        }),
        redirect: "manual",
      });
      expect(mismatch.status).toBe(400);
      expect(textOf(await mismatch.text())).toContain("The passwords do not match.");
      const common = await fetch(`${server.url}/admin/setup?token=${token}`, {
        method: "POST",
        body: new URLSearchParams({
          token,
          email: "first@example.com",
          password: "qwertyuiop",
          confirmPassword: "qwertyuiop",
        }),
        redirect: "manual",
      });
      expect(common.status).toBe(400);
      expect(textOf(await common.text())).toContain("one of the most common ones");
      expect(await database.db.selectFrom("users").select("id").execute()).toEqual([]);
      const created = await fetch(`${server.url}/admin/setup`, {
        method: "POST",
        body: new URLSearchParams({
          token,
          email: "first@example.com",
          password: "a-long-password",
          confirmPassword: "a-long-password",
        }),
        redirect: "manual",
      });
      expect(created.status).toBe(302);
      expect(created.headers.get("location")).toBe("/admin/dashboard");
      const users = await database.db.selectFrom("users").select(["email", "role"]).execute();
      expect(users).toEqual([{ email: "first@example.com", role: "super_admin" }]);
      const again = await fetch(`${server.url}/admin/setup`, {
        method: "POST",
        body: new URLSearchParams({
          token,
          email: "second@example.com",
          password: "a-long-password",
          confirmPassword: "a-long-password",
        }),
        redirect: "manual",
      });
      expect(again.status).toBe(400);
      expect(await database.db.selectFrom("users").select("email").execute()).toHaveLength(1);
    } finally {
      await server.stop();
      await database.drop();
    }
  });
});

describe("TRUST_PROXY", () => {
  it("decides whose X-Forwarded-For counts: a proxy not trusted cannot pose as many clients", async () => {
    const database = await createTestDatabase("sqlite");
    // Only 10.1.2.3 is a trusted proxy: requests from loopback speak for themselves.
    const server = await startServer({
      databaseUrl: database.url,
      env: {
        TRUST_PROXY: "10.1.2.3",
        ADMIN_EMAIL: "admin@example.com",
        ADMIN_PASSWORD: "a-long-password",
      },
    });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        const response = await fetch(`${server.url}/admin/login`, {
          method: "POST",
          body: new URLSearchParams({ email: "admin@example.com", password: `wrong-${i}` }),
          // a new "client" each time, if the header were believed
          headers: { "x-forwarded-for": `10.9.9.${i + 1}` },
          redirect: "manual",
        });
        statuses.push(response.status);
      }
      // One client (loopback) failing five times in a row: the sixth try waits.
      expect(statuses.slice(0, 5).every((status) => status !== 429)).toBe(true);
      expect(statuses[5]).toBe(429);
    } finally {
      await server.stop();
      await database.drop();
    }
  });

  it("refuses a malformed value at start", () => {
    expect(parseEnv({ TRUST_PROXY: "<script>" })).toMatchObject({ ok: false });
    const parsed = parseEnv({ TRUST_PROXY: "10.0.0.0/8, 192.168.1.5" });
    expect(parsed.ok && trustProxySetting(parsed.env.TRUST_PROXY)).toEqual([
      "10.0.0.0/8",
      "192.168.1.5",
    ]);
    const hops = parseEnv({ TRUST_PROXY: "2" });
    expect(hops.ok && trustProxySetting(hops.env.TRUST_PROXY)).toBe(2);
  });
});
