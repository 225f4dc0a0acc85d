import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { crossTenant } from "../../server/db/tenant-guard";
import { listTenantLists } from "../../server/subscribers/lists";
import { getTenant } from "../../server/tenants/store";
import { startWorkerProcess } from "../support/campaigns";
import { type TestDatabase, testDialects } from "../support/database";
import { postForm } from "../support/forms";
import { textOf } from "../support/html";
import type { RunningServer } from "../support/server";
import type { SmtpSink } from "../support/smtp-sink";
import { type StaffSite, startStaffSite } from "../support/staff-site";
import { insertSubscriber } from "../support/subscribers";
import { scaled } from "../support/timing";

const SECRET = "welcome-secret-0123456789abcdef012345678";
const DAY = 86_400_000;

describe.each(testDialects())("welcome sequences on %s", (dialect) => {
  let site: StaffSite;
  let database: TestDatabase;
  let sink: SmtpSink;
  let server: RunningServer;
  let editor = "";
  let otherTenant = "";
  let listId = 0;
  const steps: Record<string, string> = {};
  const children: ChildProcess[] = [];

  const get = (path: string, cookie = editor) =>
    fetch(`${server.url}${path}`, { headers: { cookie }, redirect: "manual" });
  const post = (path: string, fields: Record<string, string | string[]>, cookie = editor) =>
    postForm(server.url, path, fields, cookie);
  const mailsTo = (email: string, subject: string) =>
    sink.messages.filter((mail) => mail.to.includes(email) && mail.subject === subject);
  const settle = () => new Promise((resolve) => setTimeout(resolve, 2_500));
  const waitForMail = (email: string, subject: string) =>
    sink.waitFor((mail) => mail.to.includes(email) && mail.subject === subject, 15_000);
  /** Moves a step's start and a member's joining into the past, as if days went by. */
  const daysAgo = async (stepId: string, email: string, started: number, joined: number) => {
    await crossTenant(database.db)
      .updateTable("campaigns")
      .set({ started_at: new Date(Date.now() - started * DAY).toISOString() })
      .where("id", "=", stepId)
      .execute();
    const subscriber = await crossTenant(database.db)
      .selectFrom("subscribers")
      .select("id")
      .where("email", "=", email)
      .executeTakeFirstOrThrow();
    await crossTenant(database.db)
      .updateTable("subscriptions")
      .set({ created_at: new Date(Date.now() - joined * DAY).toISOString() })
      .where("subscriber_id", "=", subscriber.id)
      .execute();
  };
  const addMember = (email: string) =>
    post("/admin/subscribers/new", { email, lists: ["onboarding"], mode: "active" });

  beforeAll(async () => {
    site = await startStaffSite(dialect, SECRET);
    ({ database, sink, server, editor, otherTenant } = site);
    const created = await post("/admin/lists", { name: "Onboarding", visibility: "public" });
    listId = Number((created.headers.get("location") ?? "").match(/\/(\d+)\?/)?.[1]);
    // someone already on the list before any welcome email exists
    const lists = await listTenantLists(database.db, (await getTenant(database.db, "main")).config);
    await insertSubscriber(database.db, {
      email: "early@example.com",
      listIds: [lists.find((list) => list.key === "onboarding")?.id ?? 0],
    });
  });

  afterAll(async () => {
    for (const child of children) child.kill("SIGKILL");
    await site?.stop();
  });

  it("refuses a bad step and lets only this tenant's staff in", async () => {
    const path = `/admin/lists/${listId}/welcome/new`;
    expect((await get(path, otherTenant)).status).toBe(403);
    for (const [fields, message] of [
      [{ subject: "", content: "<p>Hi</p>", delayDays: "0" }, "Subject and content are required"],
      [{ subject: "Hi", content: "", delayDays: "0" }, "Subject and content are required"],
      [
        { subject: "Hi", content: "<p>Hi</p>", delayDays: "-1" },
        "The delay must be a whole number of days from 0 to 365",
      ],
      [
        { subject: "Hi", content: "<p>Hi</p>", delayDays: "1.5" },
        "The delay must be a whole number of days from 0 to 365",
      ],
      [
        { subject: "Hi", content: "<p>Hi</p>", delayDays: "soon" },
        "The delay must be a whole number of days from 0 to 365",
      ],
    ] as [Record<string, string>, string][]) {
      const response = await post(path, fields);
      expect(response.status, message).toBe(400);
      expect(textOf(await response.text())).toContain(message);
    }
    const rows = await crossTenant(database.db)
      .selectFrom("campaigns")
      .select("id")
      .where("sequence_list_id", "is not", null)
      .execute();
    expect(rows).toHaveLength(0);
  });

  it("sends the first email at once to each who joins, once, and the next after its delay", async () => {
    for (const [_name, subject, delayDays] of [
      ["first", "Welcome aboard", "0"],
      ["second", "Three days in", "3"],
    ] as const) {
      const saved = await post(`/admin/lists/${listId}/welcome/new`, {
        subject,
        content: `<p>${subject}: <a href="https://example.com/start">start here</a></p>`,
        delayDays,
      });
      expect(saved.status).toBe(303);
      expect(saved.headers.get("location")).toBe(`/admin/lists/${listId}?step=saved`);
    }
    const rows = await crossTenant(database.db)
      .selectFrom("campaigns")
      .select(["id", "subject"])
      .where("sequence_list_id", "=", listId)
      .execute();
    for (const row of rows) steps[row.subject === "Welcome aboard" ? "first" : "second"] = row.id;
    const page = textOf(await (await get(`/admin/lists/${listId}`)).text());
    expect(page).toMatch(/At once · Welcome aboard/);
    expect(page).toMatch(/After 3 days · Three days in/);
    // steps are not campaigns of the campaigns page
    expect(textOf(await (await get("/admin/campaigns")).text())).not.toContain("Welcome aboard");

    expect((await addMember("ann@example.com")).status).toBe(303);
    await waitForMail("ann@example.com", "Welcome aboard");
    await settle();
    expect(mailsTo("ann@example.com", "Welcome aboard")).toHaveLength(1);
    expect(mailsTo("ann@example.com", "Three days in")).toHaveLength(0);
    // whoever was on the list before the sequence began gets nothing
    expect(sink.messages.filter((mail) => mail.to.includes("early@example.com"))).toHaveLength(0);

    await daysAgo(steps.second ?? "", "ann@example.com", 10, 4);
    await waitForMail("ann@example.com", "Three days in");
    await settle();
    expect(mailsTo("ann@example.com", "Three days in")).toHaveLength(1);
    expect(mailsTo("ann@example.com", "Welcome aboard")).toHaveLength(1);
    // the step's report is a campaign report
    const report = textOf(await (await get(`/admin/campaigns/${steps.first}`)).text());
    expect(report).toMatch(/Sent\s*1/);
  });

  it("stops for someone who leaves the list, and holds while paused", async () => {
    expect((await addMember("bo@example.com")).status).toBe(303);
    await waitForMail("bo@example.com", "Welcome aboard");
    const bo = await crossTenant(database.db)
      .selectFrom("subscribers")
      .select("id")
      .where("email", "=", "bo@example.com")
      .executeTakeFirstOrThrow();
    await post("/admin/subscribers", {
      intent: "bulk",
      scope: "ticked",
      bulk: "remove",
      toList: "onboarding",
      ids: [String(bo.id)],
    });
    // three days later nothing more comes: bo left
    await crossTenant(database.db)
      .updateTable("campaigns")
      .set({ started_at: new Date(Date.now() - 10 * DAY).toISOString() })
      .where("id", "=", steps.second ?? "")
      .execute();
    await settle();
    expect(mailsTo("bo@example.com", "Three days in")).toHaveLength(0);

    const pause = await post(`/admin/lists/${listId}/welcome/${steps.first}`, { intent: "pause" });
    expect(pause.headers.get("location")).toBe(`/admin/lists/${listId}?step=pause`);
    expect((await addMember("cy@example.com")).status).toBe(303);
    await settle();
    expect(mailsTo("cy@example.com", "Welcome aboard")).toHaveLength(0);
    await post(`/admin/lists/${listId}/welcome/${steps.first}`, { intent: "resume" });
    await waitForMail("cy@example.com", "Welcome aboard");

    // a list with a running sequence is not deleted under it
    const refused = await post(`/admin/lists/${listId}`, { intent: "delete", confirmed: "yes" });
    expect(refused.status).toBe(409);
    expect(textOf(await refused.text())).toContain("This list has a welcome sequence");
    // stopping asks first
    const asked = await post(`/admin/lists/${listId}/welcome/${steps.second}`, { intent: "stop" });
    expect(textOf(await asked.text())).toContain("Stop this welcome email?");
    const stopped = await post(`/admin/lists/${listId}/welcome/${steps.second}`, {
      intent: "stop",
      confirmed: "yes",
    });
    expect(stopped.status).toBe(303);
    expect((await get(`/admin/lists/${listId}/welcome/${steps.second}`)).status).toBe(404);
  });

  it(
    "sends each new member one welcome after the worker process is killed with SIGKILL",
    async () => {
      await server.stop();
      const saved = await crossTenant(database.db)
        .selectFrom("campaigns")
        .select("id")
        .where("id", "=", steps.first ?? "")
        .executeTakeFirstOrThrow();
      const lists = await listTenantLists(
        database.db,
        (await getTenant(database.db, "main")).config,
      );
      const onboarding = lists.find((list) => list.key === "onboarding")?.id ?? 0;
      const expected: string[] = [];
      for (let index = 0; index < 300; index++) {
        const email = `k-${index}@example.com`;
        expected.push(email);
        await insertSubscriber(database.db, { email, listIds: [onboarding] });
      }
      expected.sort();
      const received = () =>
        sink.messages
          .filter((mail) => mail.subject === "Welcome aboard")
          .flatMap((mail) => mail.to)
          .filter((to) => to.startsWith("k-"));
      const startWorker = () => {
        const child = startWorkerProcess({
          databaseUrl: database.url,
          smtpUrl: sink.url,
          sessionSecret: SECRET,
        });
        children.push(child);
        return child;
      };
      const first = startWorker();
      const deadline = Date.now() + scaled(30_000);
      while (received().length < 100 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      first.kill("SIGKILL");
      await new Promise((resolve) => first.once("exit", resolve));
      const atKill = received().length;
      expect(atKill).toBeGreaterThanOrEqual(100);
      expect(atKill).toBeLessThan(300);
      startWorker();
      const until = Date.now() + scaled(90_000);
      while (new Set(received()).size < 300 && Date.now() < until) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await settle();
      expect([...new Set(received())].sort()).toEqual(expected);
      // Only messages in flight at the kill may repeat, and they carry the same Message-ID.
      expect(received().length - expected.length).toBeLessThanOrEqual(4);
      const ids = sink.messages
        .filter((mail) => mail.subject === "Welcome aboard" && mail.to[0]?.startsWith("k-"))
        .map((mail) => mail.messageId);
      expect(new Set(ids).size).toBe(expected.length);
      expect(saved.id).toBe(steps.first);
    },
    scaled(120_000),
  );
});
