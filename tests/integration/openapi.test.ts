import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "../../server/auth/api-tokens";
import { migrateToLatest } from "../../server/db/migrate";
import { createTenant } from "../../server/tenants/admin";
import { seedTenants } from "../../server/tenants/seed";
import { TOKEN_SCOPES } from "../../shared/schemas/api-tokens";
import { type ApiResponse, callApi } from "../support/api";
import { createStaffUser } from "../support/auth";
import { createTestDatabase, type TestDatabase } from "../support/database";
import { type RunningServer, startServer } from "../support/server";

const ALL_SCOPES = { scopes: TOKEN_SCOPES };

/**
 * Issue 6: /api/openapi.json is checked against the real routes. Every documented operation must
 * reach a route of the running server that answers as documented, and every /api route in
 * app/routes.ts must be documented. The document does not depend on the database, so this runs on
 * SQLite only.
 */

interface Operation {
  operationId?: string;
  summary?: string;
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string; required?: boolean; $ref?: string }[];
  requestBody?: { content?: Record<string, unknown> };
  responses?: Record<string, { description?: string; $ref?: string }>;
}

interface OpenApiDocument {
  openapi?: string;
  info?: { title?: string; version?: string };
  paths?: Record<string, Record<string, Operation>>;
  components?: {
    schemas?: Record<string, unknown>;
    securitySchemes?: Record<string, { type?: string; in?: string; name?: string }>;
  };
}

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"];
const WRITES = new Set(["post", "put", "patch", "delete"]);
/** The functions the issue names (SPEC §7 Cloud functions). */
const SPEC_FUNCTIONS = [
  "addSubscriber",
  "sendEmail",
  "helloWorld",
  "completeNewsletterSignup",
  "getAllGroups",
  "createAndSendCampaign",
  "getCampaigns",
  "getSubscriber",
];
const DOMAIN = "docs.example.com";

/**
 * The URL paths app/routes.ts declares, with `prefix()` applied, in OpenAPI form (`:id` → `{id}`).
 * A small reader for the file's own style: route("…"), index(), layout() and ...prefix("…", [ … ]).
 */
function routePathsOf(source: string): string[] {
  const code = source.replace(/\/\/[^\n]*/g, "").replace(/\/\*[\s\S]*?\*\//g, "");
  const prefixes: string[] = [];
  const paths: string[] = [];
  let pendingPrefix: string | null = null;
  for (const match of code.matchAll(/prefix\(\s*"([^"]*)"\s*,|route\(\s*"([^"]*)"|\[|\]/g)) {
    const [token, prefix, route] = match;
    if (prefix !== undefined) pendingPrefix = prefix;
    else if (route !== undefined) {
      const full = [...prefixes, route].filter(Boolean).join("/");
      paths.push(`/${full}`.replace(/:([A-Za-z0-9_]+)/g, "{$1}"));
    } else if (token === "[") {
      prefixes.push(pendingPrefix ?? "");
      pendingPrefix = null;
    } else {
      prefixes.pop();
    }
  }
  return paths;
}

describe("the OpenAPI document (/api/openapi.json)", () => {
  let database: TestDatabase;
  let server: RunningServer;
  let doc: OpenApiDocument;
  let adminToken = "";

  const operations = () =>
    Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => METHODS.includes(method))
        .map(([method, operation]) => ({ path, method, operation })),
    );
  /** A documented path with its parameters filled in with values that exist. */
  const concrete = (path: string) =>
    path
      .replaceAll("{id}", "main")
      .replaceAll("{domain}", DOMAIN)
      .replace(/\{name\}/g, "helloWorld");
  /** True when the operation needs a caller (no empty requirement among its alternatives). */
  const needsCaller = (operation: Operation) =>
    operation.security !== undefined &&
    operation.security.length > 0 &&
    !operation.security.some((requirement) => Object.keys(requirement).length === 0);

  beforeAll(async () => {
    database = await createTestDatabase("sqlite");
    await migrateToLatest(database.db);
    await seedTenants(database.db);
    await createTenant(database.db, "setup", { id: "docs", name: "Docs", domain: DOMAIN });
    const admin = await createStaffUser(database.db, {
      email: "chief@example.com",
      role: "super_admin",
    });
    adminToken = (await createApiToken(database.db, admin, "openapi-test", ALL_SCOPES)).token;
    server = await startServer({ databaseUrl: database.url });
    const response = await fetch(`${server.url}/api/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("application/json");
    doc = (await response.json()) as OpenApiDocument;
  });

  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  it("is a well-formed OpenAPI 3.1 document", () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.info?.title).toBeTruthy();
    expect(doc.info?.version).toBeTruthy();
    const ops = operations();
    expect(ops.length).toBeGreaterThanOrEqual(10);

    const ids = ops.map(({ operation }) => operation.operationId);
    expect(ids.every((id) => typeof id === "string" && id.length > 0)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);

    const schemes = doc.components?.securitySchemes ?? {};
    for (const { path, method, operation } of ops) {
      const where = `${method.toUpperCase()} ${path}`;
      expect(path, where).toMatch(/^\/api\//);
      const responses = Object.entries(operation.responses ?? {});
      expect(responses.length, where).toBeGreaterThan(0);
      expect(
        responses.some(([code]) => /^2\d\d$/.test(code)),
        where,
      ).toBe(true);
      for (const [code, response] of responses) {
        expect(code, where).toMatch(/^[1-5]\d\d$/);
        expect(response.description ?? response.$ref, `${where} ${code}`).toBeTruthy();
      }
      // Path templates and path parameters agree, both ways.
      const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
      const declared = (operation.parameters ?? [])
        .filter((parameter) => parameter.in === "path")
        .map((parameter) => {
          expect(parameter.required, `${where} ${parameter.name}`).toBe(true);
          return parameter.name;
        })
        .sort();
      expect(declared, where).toEqual(templated);
      for (const requirement of operation.security ?? []) {
        for (const name of Object.keys(requirement)) expect(schemes, where).toHaveProperty(name);
      }
      if (operation.requestBody) {
        expect(Object.keys(operation.requestBody.content ?? {}), where).toContain(
          "application/json",
        );
      }
    }
    expect(schemes.authToken).toMatchObject({ type: "apiKey", in: "header", name: "x-auth-token" });

    // Every $ref points at something the document defines.
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"([^"]+)"/g)].map((m) => m[1] ?? "");
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) {
      expect(ref).toMatch(/^#\//);
      let node: unknown = doc;
      for (const part of ref.slice(2).split("/")) {
        node =
          node && typeof node === "object"
            ? (node as Record<string, unknown>)[part.replaceAll("~1", "/").replaceAll("~0", "~")]
            : undefined;
      }
      expect(node, ref).toBeDefined();
    }
  });

  it("documents the tenant API and GET /api/auth/verify of SPEC §7", () => {
    const documented = operations().map(({ path, method }) => `${method.toUpperCase()} ${path}`);
    expect(documented).toEqual(
      expect.arrayContaining([
        "GET /api/tenants",
        "POST /api/tenants",
        "GET /api/tenants/{id}",
        "PUT /api/tenants/{id}",
        "DELETE /api/tenants/{id}",
        "GET /api/tenants/domain/{domain}",
        "PATCH /api/tenants/{id}/branding",
        "PATCH /api/tenants/{id}/email-templates",
        "GET /api/tenants/{id}/email-groups",
        "GET /api/auth/verify",
      ]),
    );
  });

  it("reaches a real route for every documented operation, guarded as documented", async () => {
    for (const { path, method, operation } of operations()) {
      const where = `${method.toUpperCase()} ${path}`;
      const isFunction = path.startsWith("/api/functions/");
      const response: ApiResponse = await callApi(server.url, concrete(path), {
        method: method.toUpperCase(),
        json:
          WRITES.has(method) && method !== "delete" ? (isFunction ? { data: {} } : {}) : undefined,
      });
      // Not the site's HTML 404 page and not "wrong method": the router knows this operation.
      expect(response.status, where).not.toBe(405);
      expect(response.contentType, `${where}: ${response.text.slice(0, 200)}`).toContain(
        "application/json",
      );
      expect(response.status === 404 && !response.body.error, where).toBe(false);
      expect(
        Object.keys(operation.responses ?? {}),
        `${where} answered ${response.status}`,
      ).toContain(String(response.status));
      if (needsCaller(operation)) {
        // The route exists and is guarded: an anonymous call is refused in the envelope.
        expect(response.status, where).toBe(401);
        expect(response.body.error?.status, where).toBe("UNAUTHENTICATED");
        expect(response.body.error?.message, where).toBeTruthy();
      } else if (!isFunction) {
        expect(response.status, `${where}: ${response.text.slice(0, 200)}`).toBe(200);
      } else {
        expect(response.status, where).not.toBe(401);
      }
      if (WRITES.has(method) && !isFunction) {
        expect(needsCaller(operation), `${where} writes: it must name who may call it`).toBe(true);
      }
    }
  });

  it("answers a super admin's harmless calls with documented statuses", async () => {
    // Invalid or no-op bodies, and DELETE of main (always refused): nothing changes.
    const calls: [string, string, unknown, number][] = [
      ["post", "/api/tenants", {}, 400],
      ["put", "/api/tenants/{id}", {}, 400],
      ["delete", "/api/tenants/{id}", undefined, 409],
      ["patch", "/api/tenants/{id}/branding", {}, 200],
      ["patch", "/api/tenants/{id}/email-templates", {}, 200],
      ["get", "/api/tenants", undefined, 200],
      ["get", "/api/auth/verify", undefined, 200],
    ];
    for (const [method, path, json, expected] of calls) {
      const operation = doc.paths?.[path]?.[method];
      expect(operation, `${method} ${path}`).toBeDefined();
      const response = await callApi(server.url, concrete(path), {
        method: method.toUpperCase(),
        json,
        token: adminToken,
      });
      expect(response.status, `${method} ${path}: ${response.text.slice(0, 300)}`).toBe(expected);
      expect(Object.keys(operation?.responses ?? {})).toContain(String(expected));
    }
    const created = doc.paths?.["/api/tenants"]?.post?.responses ?? {};
    expect(Object.keys(created)).toContain("201");
  });

  it("documents every /api route of app/routes.ts", () => {
    const routes = routePathsOf(readFileSync("app/routes.ts", "utf8"));
    // The reader works: it sees prefixed routes and ordinary ones.
    expect(routes).toContain("/admin/tenants/{id}");
    expect(routes).toContain("/api/tenants/{id}/branding");
    const apiRoutes = routes.filter(
      (path) =>
        path.startsWith("/api/") &&
        !path.startsWith("/api/webhooks/") &&
        // the document itself, and the functions API (one documented path per function, below)
        path !== "/api/openapi.json" &&
        path !== "/api/functions/{name}",
    );
    expect(apiRoutes.length).toBeGreaterThanOrEqual(7);
    const documented = Object.keys(doc.paths ?? {});
    for (const path of apiRoutes) expect(documented, path).toContain(path);
  });

  it("documents the functions API with one path per function", () => {
    const routes = routePathsOf(readFileSync("app/routes.ts", "utf8"));
    const functionPaths = Object.keys(doc.paths ?? {}).filter((path) =>
      path.startsWith("/api/functions/"),
    );
    expect(routes).toContain("/api/functions/{name}");
    for (const name of SPEC_FUNCTIONS) expect(functionPaths).toContain(`/api/functions/${name}`);
    for (const path of functionPaths) {
      expect(Object.keys(doc.paths?.[path] ?? {}), path).toEqual(["post"]);
    }
  });
});
