import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "../../server/auth/api-tokens";
import { migrateToLatest } from "../../server/db/migrate";
import { crossTenant } from "../../server/db/tenant-guard";
import { addComment } from "../../server/newsletters/comments";
import { createNewsletter } from "../../server/newsletters/editing";
import { publishNewsletter } from "../../server/newsletters/newsletters";
import { createList } from "../../server/subscribers/lists";
import { seedTenants } from "../../server/tenants/seed";
import { getTenant } from "../../server/tenants/store";
import { createStaffUser, signIn, TEST_PASSWORD } from "../support/auth";
import { createTestDatabase, type TestDatabase, testDialects } from "../support/database";
import { type RunningServer, startServer } from "../support/server";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink";

/*
 * Issue 32, findings 2, 3, 7 and 14, against the running server: one canonical check for redirect
 * targets and for API token scopes (normalise, then decide; the function's name from the matched
 * route), private lists kept from visitors, and public search and share cards rate limited.
 */

/** Redirect targets that leave the site once dot segments, backslashes and tabs are resolved. */
const OFF_SITE_TARGETS = [
  "//evil.example/x",
  "/\\evil.example",
  "/.//evil.example/x",
  "/admin/../..//evil.example",
  "/%2e%2e//evil.example",
  "/%2E%2E//evil.example",
  "/.%2e//evil.example",
  "/./\\evil.example",
  "/\t/evil.example",
  "/\n/evil.example",
  "/\\/evil.example",
  "/admin/..\\..\\/evil.example",
  "https://evil.example/",
  "http:evil.example",
  "/admin/./..//evil.example?x=1#y",
];

/**
 * Ways to spell a function's path. Each either reaches the function's handler (and then needs the
 * function's scope) or does not reach it at all.
 */
const FUNCTION_PATHS = [
  (name: string) => `/api/functions/${name}`,
  (name: string) => `/api/functions/${name}/`,
  (name: string) => `/api/functions/${name}//`,
  (name: string) => `/api/functions//${name}`,
  (name: string) => `/api//functions/${name}`,
  (name: string) => `//api/functions/${name}`,
  (name: string) => `/API/functions/${name}`,
  (name: string) => `/api/Functions/${name}`,
  (name: string) => `/Api/FUNCTIONS/${name}/`,
  (name: string) => `/api/functions/./${name}`,
  (name: string) => `/api/functions/x/../${name}`,
  (name: string) => `/api/functions/${name}?x=1`,
  (name: string) => `/api/functions/${name}/?x=/`,
  (name: string) => `/api/functions/${name}.data`,
  (name: string) => `/api/functions/${name}%2F`,
  (name: string) => `/api/functions/%61${name.slice(1)}`,
  (name: string) => `/api/functions/${encodeURIComponent(name)}%20`,
];

/** A request with the path exactly as given (fetch would normalise it first). */
function rawRequest(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; location: string | null; setCookie: string[]; text: string }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, method, path, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => {
        text += chunk;
      });
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          location: res.headers.location ?? null,
          setCookie: res.headers["set-cookie"] ?? [],
          text,
        }),
      );
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe.each(testDialects())("one canonical path on %s", (dialect) => {
  let database: TestDatabase;
  let server: RunningServer;
  let sink: SmtpSink;
  let rootCookie = "";
  let editorCookie = "";
  let privateListId = 0;
  let commentId = 0;
  let newsletterSlug = "";
  const tokens: Record<"tenantsWrite" | "read" | "functions", string> = {
    tenantsWrite: "",
    read: "",
    functions: "",
  };
  let clients = 0;
  /** A new client address per call: only the rate-limit tests share one. */
  const nextClient = () => {
    clients += 1;
    return `198.19.${Math.floor(clients / 250)}.${clients % 250}`;
  };

  /** Where a browser goes with this Location, from a page of the site: it must stay on the site. */
  const expectOnSite = (location: string | null, sent: string) => {
    expect(location, `no Location for ${JSON.stringify(sent)}`).not.toBeNull();
    const landed = new URL(location as string, `${server.url}/admin/login`);
    expect(landed.origin, `${JSON.stringify(sent)} → ${location}`).toBe(new URL(server.url).origin);
    expect(location, `${JSON.stringify(sent)} → ${location}`).toMatch(/^\/(?![/\\])/);
  };

  const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
  const formHeaders = (extra: Record<string, string> = {}) => ({
    "content-type": "application/x-www-form-urlencoded",
    "x-forwarded-for": nextClient(),
    ...extra,
  });

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    await migrateToLatest(database.db);
    await seedTenants(database.db);
    const main = (await getTenant(database.db, "main")).config;
    // Made before the server starts, so no list cache of the server has seen the lists without it.
    privateListId = (
      await createList(database.db, main, {
        name: "Board members only",
        description: "Not for visitors",
        visibility: "private",
      })
    ).id;
    const root = await createStaffUser(database.db, {
      email: "root@example.com",
      role: "super_admin",
    });
    await createStaffUser(database.db, { email: "editor@example.com", products: { main: true } });
    tokens.tenantsWrite = (
      await createApiToken(database.db, root, "tenants only", { scopes: ["tenants:write"] })
    ).token;
    tokens.read = (
      await createApiToken(database.db, root, "read only", { scopes: ["read"] })
    ).token;
    tokens.functions = (
      await createApiToken(database.db, root, "functions", { scopes: ["functions"] })
    ).token;
    const ctx = { db: database.db, tenantId: "main" };
    const newsletter = await createNewsletter(
      { ...ctx, authorId: null },
      { title: "Paths", excerpt: "On paths.", content: "<p>Paths and protocols.</p>" },
    );
    await publishNewsletter(ctx, newsletter.id);
    newsletterSlug = newsletter.slug;
    const comment = await addComment(ctx, { newsletterId: newsletter.id, text: "A comment" });
    if (comment.status !== "added") throw new Error(`comment not added: ${comment.status}`);
    commentId = comment.comment.id;
    sink = await startSmtpSink();
    server = await startServer({ databaseUrl: database.url, env: { SMTP_URL: sink.url } });
    rootCookie = await signIn(server.url, "root@example.com");
    editorCookie = await signIn(server.url, "editor@example.com");
  });

  afterAll(async () => {
    await server?.stop();
    await sink?.stop();
    await database?.drop();
  });

  describe("finding 2: redirects stay on the site", () => {
    // One test per target: each signs in (a password hash), and a busy machine makes that slow.
    it.each(OFF_SITE_TARGETS)(
      "after sign-in and sign-out, redirectTo=%j stays on the site",
      async (target) => {
        const signedIn = await rawRequest(
          server.url,
          "POST",
          "/admin/login",
          formHeaders(),
          form({ email: "editor@example.com", password: TEST_PASSWORD, redirectTo: target }),
        );
        expect(signedIn.status).toBe(302);
        expectOnSite(signedIn.location, target);
        const cookie = signedIn.setCookie.find((value) => value.startsWith("herald_session="));
        expect(cookie).toBeDefined();
        const session = (cookie as string).split(";")[0] as string;
        // Already signed in, the sign-in page sends staff on at once: the same check.
        const again = await rawRequest(
          server.url,
          "GET",
          `/admin/login?${new URLSearchParams({ redirectTo: target })}`,
          { cookie: session, "x-forwarded-for": nextClient() },
        );
        expect(again.status).toBe(302);
        expectOnSite(again.location, target);
        const signedOut = await rawRequest(
          server.url,
          "POST",
          "/admin/logout",
          formHeaders({ cookie: session }),
          form({ redirectTo: target }),
        );
        expect(signedOut.status).toBe(302);
        expectOnSite(signedOut.location, target);
      },
    );

    it("a target on the site is still honoured, normalised", async () => {
      const kept = await rawRequest(
        server.url,
        "POST",
        "/admin/login",
        formHeaders(),
        form({
          email: "editor@example.com",
          password: TEST_PASSWORD,
          redirectTo: "/admin/./lists/../users?x=1",
        }),
      );
      expect(kept.location).toBe("/admin/users?x=1");
      const out = await rawRequest(
        server.url,
        "POST",
        "/admin/logout",
        formHeaders(),
        form({ redirectTo: "/newsletter/../about" }),
      );
      expect(out.location).toBe("/about");
    });

    it("after comment moderation, whatever redirectTo says", async () => {
      for (const [index, target] of OFF_SITE_TARGETS.entries()) {
        const response = await rawRequest(
          server.url,
          "POST",
          `/admin/comments/${commentId}`,
          formHeaders({ cookie: rootCookie }),
          form({ intent: index % 2 === 0 ? "hide" : "unhide", redirectTo: target }),
        );
        expect(response.status, target).toBe(302);
        expectOnSite(response.location, target);
      }
    });
  });

  describe("finding 3: a token's scope does not depend on how the path is spelled", () => {
    const subscriberCount = async (email: string) =>
      (
        await crossTenant(database.db)
          .selectFrom("subscribers")
          .select("id")
          .where("email", "=", email)
          .execute()
      ).length;
    const campaignCount = async (subject: string) =>
      (
        await crossTenant(database.db)
          .selectFrom("campaigns")
          .select("id")
          .where("subject", "=", subject)
          .execute()
      ).length;
    const callFunction = (token: string, path: string, data: unknown) =>
      rawRequest(
        server.url,
        "POST",
        path,
        {
          "content-type": "application/json",
          accept: "application/json",
          "x-auth-token": token,
          "x-forwarded-for": nextClient(),
        },
        JSON.stringify({ data }),
      );

    it("a token with only tenants:write or read writes nothing through any spelling", async () => {
      const refused: string[] = [];
      for (const [kind, token] of [
        ["tenants:write", tokens.tenantsWrite],
        ["read", tokens.read],
      ] as const) {
        for (const [index, pathOf] of FUNCTION_PATHS.entries()) {
          const email = `spelled-${kind.replace(":", "-")}-${index}@example.com`;
          const added = await callFunction(token, pathOf("addSubscriber"), {
            email,
            groups: ["newsletter"],
          });
          const subject = `Spelled ${kind} ${index}`;
          const sent = await callFunction(token, pathOf("createAndSendCampaign"), {
            subject,
            content: "<p>To everyone</p>",
            groups: ["newsletter"],
          });
          for (const [name, answer] of [
            ["addSubscriber", added],
            ["createAndSendCampaign", sent],
          ] as const) {
            const path = pathOf(name);
            // Refused (403) or never reached a function (404, 405): anything but success.
            expect([403, 404, 405], `${kind} ${path}: ${answer.status}`).toContain(answer.status);
            expect(answer.status, `${kind} ${path}`).toBeLessThan(500);
            if (answer.status === 403) refused.push(path);
          }
          expect(await subscriberCount(email), `${kind} ${pathOf("addSubscriber")}`).toBe(0);
          expect(await campaignCount(subject), `${kind} ${pathOf("createAndSendCampaign")}`).toBe(
            0,
          );
        }
      }
      // The finding's spellings reach the handler and are refused for the missing scope.
      expect(refused).toEqual(
        expect.arrayContaining([
          "/api/functions/addSubscriber/",
          "/api/functions/addSubscriber//",
          "/API/functions/addSubscriber",
          "/api/Functions/addSubscriber",
        ]),
      );
    });

    it("the spellings that reach a function are judged as the function: functions scope writes, read reads", async () => {
      // Control: the same spellings do reach the handler for a token that has the scope.
      for (const path of [
        "/api/functions/addSubscriber/",
        "/api/functions/addSubscriber//",
        "/API/functions/addSubscriber",
        "/api/Functions/addSubscriber",
      ]) {
        const email = `allowed-${path.replace(/\W+/g, "-").toLowerCase()}@example.com`;
        const answer = await callFunction(tokens.functions, path, {
          email,
          groups: ["newsletter"],
        });
        expect(answer.status, `${path}: ${answer.text}`).toBe(200);
        expect(await subscriberCount(email), path).toBe(1);
      }
      // A read-only function spelled any way needs only read (or never reaches it: 404, 405).
      for (const pathOf of FUNCTION_PATHS.slice(0, 9)) {
        const answer = await callFunction(tokens.read, pathOf("getAllGroups"), {});
        expect([200, 404, 405], pathOf("getAllGroups")).toContain(answer.status);
      }
      const plain = await callFunction(tokens.read, "/api/functions/getAllGroups", {});
      expect(plain.status).toBe(200);
    });
  });

  describe("finding 7: visitors see only public lists", () => {
    const groupIds = async (path: string, headers: Record<string, string> = {}) => {
      const answer = await rawRequest(
        server.url,
        "POST",
        path,
        {
          "content-type": "application/json",
          accept: "application/json",
          "x-forwarded-for": nextClient(),
          ...headers,
        },
        JSON.stringify({ data: {} }),
      );
      expect(answer.status, answer.text).toBe(200);
      const body = JSON.parse(answer.text) as { result: { groups: { id: string }[] } };
      return body.result.groups.map((group) => group.id);
    };

    it("anonymous getAllGroups leaves out private lists; the tenant's staff see them", async () => {
      const anonymous = await groupIds("/api/functions/getAllGroups");
      expect(anonymous.length).toBeGreaterThan(0);
      expect(anonymous).not.toContain(String(privateListId));
      expect(await groupIds("/API/functions/getAllGroups/")).not.toContain(String(privateListId));
      expect(await groupIds("/api/functions/getAllGroups", { cookie: editorCookie })).toContain(
        String(privateListId),
      );
      expect(
        await groupIds("/api/functions/getAllGroups", { "x-auth-token": tokens.read }),
      ).toContain(String(privateListId));
    });
  });

  describe("finding 14: public search and share cards are rate limited", () => {
    const burst = async (path: string, address: string, count: number) => {
      const statuses: number[] = [];
      let limitedText = "";
      for (let i = 0; i < count; i++) {
        const response = await fetch(`${server.url}${path}`, {
          headers: { "x-forwarded-for": address },
          redirect: "manual",
        });
        statuses.push(response.status);
        const text = await response.text();
        if (response.status === 429) limitedText = text;
      }
      return { statuses, limitedText };
    };
    const LIMITED = "Too many requests from your address. Please wait a few minutes and try again.";

    it("a burst of searches from one address gets 429 with the usual message; a person does not", async () => {
      const script = await burst("/newsletter/search?q=protocol", "203.0.113.10", 45);
      expect(script.statuses.slice(0, 10).every((status) => status === 200)).toBe(true);
      expect(script.statuses).toContain(429);
      expect(script.statuses.at(-1)).toBe(429);
      expect(script.limitedText).toContain(LIMITED);
      // A person: ten searches in a minute, from their own address, all answered.
      const person = await burst("/newsletter/search?q=paths", "203.0.113.11", 10);
      expect(person.statuses).toEqual(Array(10).fill(200));
      const page = await (
        await fetch(`${server.url}/newsletter/search?q=paths`, {
          headers: { "x-forwarded-for": "203.0.113.11" },
        })
      ).text();
      expect(page).toContain("Paths");
    });

    it("a burst of share cards from one address gets 429; a person does not", async () => {
      const paths = ["/brand/share-card", `/newsletter/${newsletterSlug}/share-card`];
      for (const [index, path] of paths.entries()) {
        const script = await burst(path, `203.0.113.${20 + index}`, 75);
        expect(script.statuses[0], path).toBe(200);
        expect(script.statuses.at(-1), path).toBe(429);
        expect(script.limitedText).toContain(LIMITED);
        const person = await burst(path, `203.0.113.${30 + index}`, 5);
        expect(person.statuses, path).toEqual(Array(5).fill(200));
      }
    });
  });
});
