import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Access, accessFor, ROUTE_ACCESS } from "../../app/route-access";
import { migrateToLatest } from "../../server/db/migrate";
import { seedTenants } from "../../server/tenants/seed";
import { createStaffUser, signIn } from "../support/auth";
import { createTestDatabase, type TestDatabase } from "../support/database";
import { textOf } from "../support/html";
import { methodsOf, routePatterns, urlFor } from "../support/routes";
import { type RunningServer, startServer } from "../support/server";

/*
 * Issue 13, point 2: generated from app/routes.ts. Every route and method is called as an
 * anonymous visitor, as an editor of another tenant and as a super admin, and each answer is
 * checked against the route's declaration in app/route-access.ts. A route without a declaration
 * fails here (and is refused at run time).
 */

const patterns = routePatterns;

type Role = "anonymous" | "other-tenant editor" | "super admin";

/** How a request was refused, or "allowed" (any answer that is not a refusal: 200, 400, 404, 405…). */
type Answer = "sign-in" | "tenant-manager sign-in" | "403" | "/unauthorized" | "401" | "allowed";

function answerOf(response: Response): Answer {
  const location = response.headers.get("location") ?? "";
  if (response.status === 302 && location.startsWith("/admin/login?redirectTo=")) return "sign-in";
  if (response.status === 302 && location.startsWith("/login?redirectTo=")) {
    return "tenant-manager sign-in";
  }
  if (response.status === 302 && location === "/unauthorized") return "/unauthorized";
  if (response.status === 401) return "401";
  if (response.status === 403) return "403";
  return "allowed";
}

/** What each declaration promises each caller. */
const EXPECTED: Record<Access, Record<Role, Answer>> = {
  public: { anonymous: "allowed", "other-tenant editor": "allowed", "super admin": "allowed" },
  "signed-link": {
    anonymous: "allowed",
    "other-tenant editor": "allowed",
    "super admin": "allowed",
  },
  "signed-request": {
    anonymous: "401",
    "other-tenant editor": "401",
    "super admin": "401",
  },
  staff: { anonymous: "sign-in", "other-tenant editor": "allowed", "super admin": "allowed" },
  "tenant-staff": { anonymous: "sign-in", "other-tenant editor": "403", "super admin": "allowed" },
  "super-admin": { anonymous: "sign-in", "other-tenant editor": "403", "super admin": "allowed" },
  "tenant-manager": {
    anonymous: "tenant-manager sign-in",
    "other-tenant editor": "/unauthorized",
    "super admin": "allowed",
  },
  "api-public": {
    anonymous: "allowed",
    "other-tenant editor": "allowed",
    "super admin": "allowed",
  },
  "api-staff": { anonymous: "401", "other-tenant editor": "allowed", "super admin": "allowed" },
  "api-super-admin": { anonymous: "401", "other-tenant editor": "403", "super admin": "allowed" },
};

/**
 * Routes whose own answer is a refusal status, whoever calls: the page that says "unauthorized"
 * (403), and the check of an `x-auth-token` header, which these requests do not send (401).
 */
const OWN_ANSWER: Record<string, Answer> = {
  "GET /unauthorized": "403",
  "GET /api/auth/verify": "401",
};

describe("every route answers as app/route-access.ts declares", () => {
  let database: TestDatabase;
  let server: RunningServer;
  const cookies: Record<Role, string> = {
    anonymous: "",
    "other-tenant editor": "",
    "super admin": "",
  };
  let clients = 0;

  beforeAll(async () => {
    database = await createTestDatabase("sqlite");
    await migrateToLatest(database.db);
    await seedTenants(database.db);
    await createStaffUser(database.db, { email: "root@example.com", role: "super_admin" });
    await createStaffUser(database.db, {
      email: "kd-editor@example.com",
      products: { keydiscovery: true },
    });
    // With a token set, /metrics answers 401 to a caller without it (unset, it is a 404).
    server = await startServer({
      databaseUrl: database.url,
      env: { METRICS_TOKEN: "route-access-metrics-token" },
    });
    cookies["super admin"] = await signIn(server.url, "root@example.com");
    cookies["other-tenant editor"] = await signIn(server.url, "kd-editor@example.com");
  });

  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  it("declares every route of app/routes.ts, and nothing else", () => {
    expect(patterns.length).toBeGreaterThan(50);
    expect(patterns.filter((pattern) => !(pattern in ROUTE_ACCESS))).toEqual([]);
    expect(Object.keys(ROUTE_ACCESS).filter((pattern) => !patterns.includes(pattern))).toEqual([]);
  });

  it("renders a refused page in the tenant's layout, naming the signed-in account", async () => {
    const response = await fetch(`${server.url}/admin/users`, {
      headers: { cookie: cookies["other-tenant editor"] },
    });
    expect(response.status).toBe(403);
    const html = await response.text();
    expect(html).toMatch(/<html[^>]*data-tenant="main"[^>]*style="[^"]*--brand/);
    expect(html).toContain("<header");
    expect(html).toContain("<footer");
    expect(textOf(html)).toMatch(
      /You are signed in as kd-editor@example\.com\s*, which does not have access to this page\./,
    );
  });

  const cases = patterns.flatMap((pattern) =>
    methodsOf(pattern).flatMap((method) =>
      (["anonymous", "other-tenant editor", "super admin"] as Role[]).map(
        (role) => [method, pattern, role] as const,
      ),
    ),
  );

  it.each(cases)("%s %s as %s", async (method, pattern, role) => {
    const access = accessFor(pattern, method);
    expect(access, `no declaration for ${method} ${pattern}`).toBeTruthy();
    const path = urlFor(pattern);
    clients += 1;
    const json = pattern.startsWith("/api/");
    const response = await fetch(`${server.url}${path}`, {
      method,
      redirect: "manual",
      headers: {
        cookie: cookies[role],
        origin: server.url,
        // Each request its own client address: per-address limits must not decide an answer.
        "x-forwarded-for": `198.51.100.${clients % 250}`,
        ...(method === "GET"
          ? {}
          : { "content-type": json ? "application/json" : "application/x-www-form-urlencoded" }),
      },
      body: method === "GET" ? undefined : json ? "{}" : "",
    });
    const answer = answerOf(response);
    expect(
      { status: response.status, answer },
      `${method} ${path} as ${role} (${access}): ${response.status} ${response.headers.get("location") ?? ""}`,
    ).toMatchObject({
      answer: OWN_ANSWER[`${method} ${pattern}`] ?? EXPECTED[access as Access][role],
    });
    expect(response.status, "no route fails on a stranger's request").toBeLessThan(500);
    if (pattern === "/admin/logout" && method === "POST" && role !== "anonymous") {
      // Signing out ends this session: take a new one for the routes after it.
      cookies[role] = await signIn(
        server.url,
        role === "super admin" ? "root@example.com" : "kd-editor@example.com",
      );
    }
  });
});
