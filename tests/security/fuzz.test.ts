import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateToLatest } from "../../server/db/migrate";
import { seedTenants } from "../../server/tenants/seed";
import { createStaffUser, signIn } from "../support/auth";
import { createTestDatabase, type TestDatabase, testDialects } from "../support/database";
import { methodsOf, routePatterns, urlFor } from "../support/routes";
import { type RunningServer, startServer } from "../support/server";
import { scaled } from "../support/timing";

/*
 * Issue 32, target 2: no input gives a 5xx. Every route of app/routes.ts, as an anonymous
 * visitor, an editor and a super admin, gets bodies that are not forms, broken forms, oversized
 * fields, NUL, invalid UTF-8 and lone surrogates, in the body, the query and the path. Any 5xx,
 * and any error-level line or stack trace in the server's output, fails the run.
 */

type Role = "anonymous" | "editor" | "super admin";
const ROLES: Role[] = ["anonymous", "editor", "super admin"];

interface Payload {
  name: string;
  contentType?: string;
  body: Uint8Array<ArrayBuffer>;
}

/** Field names the forms of app/routes read, so the odd values reach their parsers. */
const FIELDS = [
  "intent",
  "email",
  "name",
  "firstName",
  "lastName",
  "title",
  "slug",
  "content",
  "subject",
  "message",
  "comment",
  "password",
  "currentPassword",
  "newPassword",
  "code",
  "value",
  "field",
  "operator",
  "rule",
  "rules",
  "listId",
  "lists",
  "domain",
  "description",
  "redirectTo",
  "token",
  "q",
  "fromEmail",
  "fromName",
  "status",
  "id",
];

const bytes = (text: string) => new TextEncoder().encode(text);
const formOf = (value: string) =>
  `${FIELDS.map((field) => `${field}=${value}`).join("&")}&data=%7B%7D`;
const FORM = "application/x-www-form-urlencoded";
const BOUNDARY = "----herald-fuzz";

const PAYLOADS: Payload[] = [
  {
    name: "JSON",
    contentType: "application/json",
    body: bytes(JSON.stringify({ email: "a@example.com", name: "x", data: {} })),
  },
  {
    name: "JSON with NUL and a lone surrogate",
    contentType: "application/json",
    body: bytes(
      '{"email":"a\\u0000@example.com","name":"\\ud800","id":"\\u0000","data":{"email":"\\u0000","name":"\\udc00"}}',
    ),
  },
  { name: "text/plain", contentType: "text/plain", body: bytes("email=a@example.com") },
  {
    name: "XML",
    contentType: "application/xml",
    body: bytes('<?xml version="1.0"?><subscriber><email>a@example.com</email></subscriber>'),
  },
  { name: "no Content-Type", body: bytes("email=a%40example.com&name=x") },
  {
    name: "broken multipart",
    contentType: `multipart/form-data; boundary=${BOUNDARY}`,
    body: bytes(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="email"\r\n\r\nunterminated`,
    ),
  },
  { name: "multipart without a boundary", contentType: "multipart/form-data", body: bytes("x") },
  {
    name: "multipart with NUL",
    contentType: `multipart/form-data; boundary=${BOUNDARY}`,
    body: bytes(
      `${FIELDS.map(
        (field) =>
          `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${field}"\r\n\r\na\u0000b\r\n`,
      ).join(
        "",
      )}--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a\u0000.png"\r\nContent-Type: image/png\r\n\r\n\u0000\u0000\r\n--${BOUNDARY}--\r\n`,
    ),
  },
  { name: "oversized fields", contentType: FORM, body: bytes(formOf("x".repeat(5_000))) },
  { name: "NUL", contentType: FORM, body: bytes(formOf("a%00b")) },
  {
    name: "invalid UTF-8",
    contentType: FORM,
    body: new Uint8Array([...bytes(formOf("a")), ...bytes("&email="), 0xc3, 0x28, 0xff, 0xfe]),
  },
  { name: "lone surrogates", contentType: FORM, body: bytes(formOf("%ED%A0%80x%ED%B0%80")) },
  { name: "empty form", contentType: FORM, body: bytes("") },
];

/** Path parameters that PostgreSQL cannot store or that are not UTF-8, already percent-encoded. */
const BAD_PARAMS = ["a%00b", "%ED%A0%80", "%C3%28"];
const BAD_QUERY = ["q", "page", "redirectTo", "email", "token", "tenant", "list", "status", "sort"]
  .map((name) => `${name}=%00%ED%A0%80%C3%28`)
  .join("&");

interface Probe {
  role: Role;
  method: string;
  path: string;
  payload?: Payload;
}

function probesFor(pattern: string): Probe[] {
  const writable = methodsOf(pattern).filter((method) => method !== "GET");
  const params = /[:*]/.test(pattern) ? BAD_PARAMS.map((param) => urlFor(pattern, param)) : [];
  return ROLES.flatMap((role) => {
    // Signing out would end the session the next probes need.
    const methods = pattern === "/admin/logout" && role !== "anonymous" ? [] : writable;
    return [
      { role, method: "GET", path: `${urlFor(pattern)}?${BAD_QUERY}` },
      ...params.map((path) => ({ role, method: "GET", path })),
      ...methods.flatMap((method) => [
        ...PAYLOADS.map((payload) => ({ role, method, path: urlFor(pattern), payload })),
        ...params.map((path) => ({ role, method, path, payload: PAYLOADS[9] })),
      ]),
    ];
  });
}

/** Runs `work` over `items`, `limit` at a time. */
async function eachLimited<T>(items: T[], limit: number, work: (item: T) => Promise<void>) {
  let next = 0;
  const lanes = Array.from({ length: limit }, async () => {
    while (next < items.length) {
      const item = items[next] as T;
      next += 1;
      await work(item);
    }
  });
  await Promise.all(lanes);
}

describe.each(testDialects())("no input gives a 5xx (%s)", (dialect) => {
  let database: TestDatabase;
  let server: RunningServer;
  const cookies: Record<Role, string> = { anonymous: "", editor: "", "super admin": "" };

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    await migrateToLatest(database.db);
    await seedTenants(database.db);
    await createStaffUser(database.db, { email: "root@example.com", role: "super_admin" });
    await createStaffUser(database.db, { email: "editor@example.com", products: { main: true } });
    server = await startServer({ databaseUrl: database.url });
    cookies["super admin"] = await signIn(server.url, "root@example.com");
    cookies.editor = await signIn(server.url, "editor@example.com");
  });

  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  it(
    "walks every route with odd bodies, queries and paths without a 5xx or a logged error",
    async () => {
      const probes = routePatterns.flatMap(probesFor);
      expect(probes.length).toBeGreaterThan(1000);
      const failures: string[] = [];
      let clients = 0;
      await eachLimited(probes, 6, async ({ role, method, path, payload }) => {
        clients += 1;
        const headers: Record<string, string> = {
          origin: server.url,
          // Each request its own client address: rate limits must not keep the fuzz from a route.
          "x-forwarded-for": `198.18.${Math.floor(clients / 250) % 250}.${clients % 250}`,
        };
        if (cookies[role]) headers.cookie = cookies[role];
        if (payload?.contentType) headers["content-type"] = payload.contentType;
        const probe = `${method} ${path} as ${role}${payload ? `, ${payload.name}` : ""}`;
        const send = () =>
          fetch(`${server.url}${path}`, {
            method,
            headers,
            body: payload ? payload.body : undefined,
            redirect: "manual",
          });
        let response: Response;
        try {
          // Once more on a reset: the server may close a kept-alive connection as it is reused.
          response = await send().catch(send);
          await response.arrayBuffer();
        } catch (error) {
          // A connection cut twice instead of an answer fails too.
          failures.push(`${String((error as Error).cause ?? error)} ${probe}`);
          return;
        }
        if (response.status >= 500) failures.push(`${response.status} ${probe}`);
      });
      expect(failures.sort()).toEqual([]);
      const output = server.output();
      const errors = output
        .split("\n")
        .filter((line) => /"level":(50|60)|^\s+at |^\w*Error\b/.test(line))
        .slice(0, 20);
      expect(errors).toEqual([]);
    },
    scaled(180_000),
  );
});
