import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { migrateToLatest } from "../../server/db/migrate";
import { crossTenant } from "../../server/db/tenant-guard";
import { defineJob } from "../../server/jobs/definition";
import { queueJob } from "../../server/jobs/store";
import { seedTenants } from "../../server/tenants/seed";
import { createStaffUser, signIn } from "../support/auth";
import { createTestDatabase, type TestDatabase } from "../support/database";
import { textOf } from "../support/html";
import { type RunningServer, startServer } from "../support/server";

/** /admin/jobs (decision 056): the super admin sees every tenant's jobs and retries a failed one. */
describe("the background jobs page", () => {
  let database: TestDatabase;
  let server: RunningServer;
  const cookies = { chief: "", editor: "" };
  // A kind no runner knows: its rows stay as the test writes them.
  const probe = defineJob({ kind: "page-probe", payload: z.object({}), run: async () => {} });
  let failedId = 0;

  const page = (cookie = cookies.chief) =>
    fetch(`${server.url}/admin/jobs`, { headers: { cookie }, redirect: "manual" });
  const post = (fields: Record<string, string>, cookie = cookies.chief) =>
    fetch(`${server.url}/admin/jobs`, {
      method: "POST",
      body: new URLSearchParams(fields),
      headers: { cookie, origin: server.url },
      redirect: "manual",
    });

  beforeAll(async () => {
    database = await createTestDatabase("sqlite");
    await migrateToLatest(database.db);
    await seedTenants(database.db);
    failedId = (await queueJob(database.db, probe, {}, { tenantId: "keydiscovery" })) as number;
    await crossTenant(database.db)
      .updateTable("jobs")
      .set({
        status: "failed",
        attempts: 5,
        last_error: "the archive could not be read",
        finished_at: new Date().toISOString(),
      })
      .where("id", "=", failedId)
      .execute();
    await queueJob(database.db, probe, {}, { tenantId: "main" });
    server = await startServer({
      databaseUrl: database.url,
      env: { SESSION_SECRET: "jobs-page-secret-0123456789abcdef0123" },
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
    const anonymous = await page("");
    expect(anonymous.status).toBe(302);
    expect(anonymous.headers.get("location")).toMatch(/^\/admin\/login\?redirectTo=/);
    expect((await page(cookies.editor)).status).toBe(403);
    expect((await post({ intent: "retry", jobId: String(failedId) }, cookies.editor)).status).toBe(
      403,
    );
    const row = await crossTenant(database.db)
      .selectFrom("jobs")
      .select("status")
      .where("id", "=", failedId)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe("failed");
  });

  it("shows the jobs per kind and tenant, the failed one with its error, and retries it", async () => {
    const response = await page();
    expect(response.status).toBe(200);
    const text = textOf(await response.text());
    expect(text).toContain("Background jobs");
    expect(text).toContain("page-probe");
    expect(text).toContain("keydiscovery");
    expect(text).toContain("the archive could not be read");
    expect(text).toContain(`Retry job ${failedId}`);
    // The install's recurring jobs are there too (the runner runs in this process).
    expect(text).toContain("purge");

    expect((await post({ intent: "retry", jobId: "x" })).status).toBe(400);
    const retried = await post({ intent: "retry", jobId: String(failedId) });
    expect(retried.status).toBe(200);
    expect(textOf(await retried.text())).toContain(`Job ${failedId} is queued again.`);
    const row = await crossTenant(database.db)
      .selectFrom("jobs")
      .select(["status", "attempts"])
      .where("id", "=", failedId)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe("waiting");
    expect(Number(row.attempts)).toBe(0);
    expect((await post({ intent: "retry", jobId: String(failedId) })).status).toBe(409);
  });
});
