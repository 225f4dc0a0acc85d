import { readFileSync } from "node:fs";
import { join } from "node:path";
import { strToU8, zipSync } from "fflate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../server/db";
import { migrateToLatest } from "../../server/db/migrate";
import { crossTenant } from "../../server/db/tenant-guard";
import { ImportFileError } from "../../server/subscribers/import-rows";
import { runImport } from "../../server/subscribers/import-run";
import { decodeSourceUpload } from "../../server/subscribers/import-sources";
import {
  claimImport,
  getImport,
  type ImportJob,
  queueImport,
  queueMailerLiteMove,
} from "../../server/subscribers/imports";
import { listTenantLists } from "../../server/subscribers/lists";
import { markUnsubscribed } from "../../server/subscribers/store";
import { insertTenantIfMissing } from "../../server/tenants/admin";
import { tenantHistory } from "../../server/tenants/history";
import { seedTenants } from "../../server/tenants/seed";
import { getTenant, invalidateTenant } from "../../server/tenants/store";
import { invalidEmailMessage } from "../../shared/schemas/email";
import { createStaffUser, signIn } from "../support/auth";
import { createTestDatabase, type TestDatabase, testDialects } from "../support/database";
import {
  type FakeMailerLite,
  type FakeSubscriber,
  startFakeMailerLite,
} from "../support/fake-mailerlite";
import { type RunningServer, startServer } from "../support/server";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink";

const FIXTURES = join(import.meta.dirname, "..", "fixtures", "audience");
const GHOST_CSV = readFileSync(join(FIXTURES, "ghost-members.csv"), "utf8");
const SUBSTACK_CSV = readFileSync(join(FIXTURES, "substack-email-list.csv"), "utf8");
const SECRET = "audience-import-secret-0123456789abcdef";

/** The tenant's people as the tests compare them: status, name, lists (names), created date. */
async function audienceOf(db: Db, tenantId: string) {
  const rows = await db
    .selectFrom("subscribers")
    .select(["id", "email", "name", "status", "created_at", "subscribed_at"])
    .where("tenant_id", "=", tenantId)
    .orderBy("email")
    .execute();
  const memberships = await db
    .selectFrom("subscriptions")
    .innerJoin("lists", "lists.id", "subscriptions.list_id")
    .select(["subscriptions.subscriber_id", "lists.name"])
    .where("subscriptions.tenant_id", "=", tenantId)
    .where("lists.tenant_id", "=", tenantId)
    .execute();
  return Object.fromEntries(
    rows.map((row) => [
      row.email,
      {
        name: row.name,
        status: row.status,
        createdAt: row.created_at,
        lists: memberships
          .filter((m) => Number(m.subscriber_id) === Number(row.id))
          .map((m) => m.name)
          .sort(),
      },
    ]),
  );
}

async function eventsOf(db: Db, tenantId: string) {
  const rows = await db
    .selectFrom("subscriber_events")
    .innerJoin("subscribers", "subscribers.id", "subscriber_events.subscriber_id")
    .select(["subscribers.email", "subscriber_events.kind", "subscriber_events.detail"])
    .where("subscriber_events.tenant_id", "=", tenantId)
    .where("subscribers.tenant_id", "=", tenantId)
    .orderBy("subscribers.email")
    .execute();
  return rows.map((row) => ({ email: row.email, kind: row.kind, ...JSON.parse(row.detail) }));
}

async function mailCount(db: Db): Promise<number> {
  const { n } = await crossTenant(db)
    .selectFrom("mail_log")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(n);
}

async function listNames(db: Db, tenantId: string): Promise<string[]> {
  const rows = await db
    .selectFrom("lists")
    .select("name")
    .where("tenant_id", "=", tenantId)
    .where("deleted_at", "is", null)
    .orderBy("name")
    .execute();
  return rows.map((row) => row.name);
}

/** Runs one queued job here, as the import worker would, and answers its final state. */
async function runJob(db: Db, tenantId: string, id: number): Promise<ImportJob> {
  const claimed = await claimImport(db, "test-worker", new Date(), { id, tenantId });
  expect(claimed).toEqual({ id, tenantId });
  await runImport(db, { id, tenantId }, "test-worker");
  return getImport({ db, tenant: (await getTenant(db, tenantId)).config }, id);
}

const scopeOf = async (db: Db, tenantId: string) => ({
  db,
  tenant: (await getTenant(db, tenantId)).config,
});

async function addTenant(db: Db, id: string, overrides: object = {}) {
  await insertTenantIfMissing(
    db,
    { id, name: `${id} Media`, description: "", overrides },
    new Date().toISOString(),
  );
  invalidateTenant(id);
}

function mlSubscriber(
  id: number,
  email: string,
  status: FakeSubscriber["status"],
  groups: string[],
  fields: Record<string, string | number | null> = {},
): FakeSubscriber {
  return {
    id: String(id),
    email,
    status,
    fields: { name: null, ...fields },
    groups,
    subscribed_at: "2020-02-03 04:05:06",
  };
}

/** One fake MailerLite for the file: the deployment's settings are read once per process. */
let fake: FakeMailerLite;

beforeAll(async () => {
  fake = await startFakeMailerLite();
  process.env.MAILERLITE_API_KEY = fake.apiKey;
  process.env.MAILERLITE_BASE_URL = fake.url;
});

afterAll(async () => {
  await fake?.stop();
});

/** The fake's account emptied, as each database's tests start it. */
function resetFake() {
  fake.subscribers.clear();
  fake.groups.clear();
  fake.fields.splice(2);
  fake.pageLimitCap = 1000;
  fake.failPagesAfter = null;
  fake.pagesServed = 0;
}

describe.each(testDialects())("audiences from Ghost, Substack and MailerLite on %s", (dialect) => {
  let database: TestDatabase;
  let db: Db;

  beforeAll(async () => {
    resetFake();
    database = await createTestDatabase(dialect);
    db = database.db;
    await migrateToLatest(db);
    await seedTenants(db);
  });

  afterAll(async () => {
    await database?.drop();
  });

  it("imports a Ghost members CSV: statuses, labels as lists, dates and the consent record; nobody is emailed", async () => {
    const scope = await scopeOf(db, "keydiscovery");
    // The tenant's lists as they start (made on first use).
    const defaultList = (await listTenantLists(db, scope.tenant)).find(
      (list) => list.key === scope.tenant.emailGroups.default,
    )?.name;
    expect(defaultList).toBeDefined();
    const listsBefore = await listNames(db, "keydiscovery");

    const id = await queueImport(scope, "chief@example.com", "members.csv", GHOST_CSV, "ghost");
    // Checking the upload writes nothing: the labels' lists come when the job runs.
    expect(await listNames(db, "keydiscovery")).toEqual(listsBefore);
    const job = await runJob(db, "keydiscovery", id);

    expect(job).toMatchObject({
      source: "ghost",
      status: "done",
      totalRows: 4,
      doneRows: 4,
      created: 4,
      updated: 0,
      refusedCount: 4,
      error: null,
    });
    expect(job.refused).toEqual([
      { line: 4, email: "bob@example.com", reason: "Duplicate email (also on row 3)" },
      { line: 6, email: "dan@example.com", reason: "Deleted in Ghost: not imported" },
      { line: 7, email: "not-an-email", reason: invalidEmailMessage("not-an-email") },
      { line: 9, email: "", reason: "Missing email" },
    ]);
    expect(await listNames(db, "keydiscovery")).toEqual(
      [...listsBefore, "Early bird", 'Quotes "R" Us', "VIP"].sort(),
    );
    const created = await db
      .selectFrom("lists")
      .select(["name", "visibility"])
      .where("tenant_id", "=", "keydiscovery")
      .where("name", "in", ["Early bird", "VIP"])
      .execute();
    expect(created.map((list) => list.visibility)).toEqual(["private", "private"]);

    expect(await audienceOf(db, "keydiscovery")).toEqual({
      "ada@example.com": {
        name: "Ada Lovelace",
        status: "active",
        createdAt: "2021-03-04T10:00:00.000Z",
        lists: [defaultList as string, "Early bird", "VIP"].sort(),
      },
      "bob@example.com": {
        name: "Bob & Co",
        status: "active",
        createdAt: "2022-01-01T00:00:00.000Z",
        lists: [defaultList as string, "Early bird"].sort(),
      },
      "carol@example.com": {
        name: "",
        status: "unsubscribed",
        createdAt: "2020-05-05T00:00:00.000Z",
        lists: [],
      },
      "fay@example.com": {
        name: `Fay "The Ace" O'Neil`,
        status: "active",
        createdAt: "2019-12-31T23:59:59.000Z",
        lists: [defaultList as string, 'Quotes "R" Us'].sort(),
      },
    });
    const events = await eventsOf(db, "keydiscovery");
    expect(
      events.map((event) => [event.email, event.kind, event.source, event.origin, event.note]),
    ).toEqual([
      ["ada@example.com", "signed-up", "import", "ghost", "Met at the conference"],
      ["bob@example.com", "signed-up", "import", "ghost", undefined],
      ["carol@example.com", "signed-up", "import", "ghost", undefined],
      ["fay@example.com", "signed-up", "import", "ghost", "<b>asked for invoices</b>"],
    ]);
    expect(events.find((event) => event.email === "carol@example.com")?.active).toBe(false);
    expect(await mailCount(db)).toBe(0);
  });

  it("imports the same Ghost file again without duplicating anyone or subscribing again who left", async () => {
    const scope = await scopeOf(db, "keydiscovery");
    // Ada unsubscribed here after the first import; Ghost still says she is subscribed.
    const ada = await db
      .selectFrom("subscribers")
      .select("id")
      .where("tenant_id", "=", "keydiscovery")
      .where("email", "=", "ada@example.com")
      .executeTakeFirstOrThrow();
    await db
      .transaction()
      .execute((trx) => markUnsubscribed(trx, "keydiscovery", ada.id, new Date().toISOString()));
    const before = await audienceOf(db, "keydiscovery");
    const lists = await listNames(db, "keydiscovery");
    const events = (await eventsOf(db, "keydiscovery")).length;

    const id = await queueImport(scope, "chief@example.com", "members.csv", GHOST_CSV, "ghost");
    const job = await runJob(db, "keydiscovery", id);

    // Ada is kept unsubscribed against the file; Carol's row says unsubscribed itself.
    expect(job).toMatchObject({ status: "done", created: 0, updated: 4, keptUnsubscribed: 1 });
    expect(before["ada@example.com"]?.status).toBe("unsubscribed");
    expect(await audienceOf(db, "keydiscovery")).toEqual(before);
    expect(await listNames(db, "keydiscovery")).toEqual(lists);
    expect((await eventsOf(db, "keydiscovery")).length).toBe(events);
    expect(await mailCount(db)).toBe(0);
  });

  it("imports Substack's email list from its CSV and from the export zip alike", async () => {
    await addTenant(db, "stackzip");
    const scope = await scopeOf(db, "main");
    const zipScope = await scopeOf(db, "stackzip");
    const zip = zipSync({
      "posts.csv": strToU8("post_id,post_date,is_published,email_sent_at,title\n"),
      "posts/101.first-post.html": strToU8("<p>Hello</p>"),
      "email_list.thepub.csv": strToU8(SUBSTACK_CSV),
    });
    const fromCsv = await runJob(
      db,
      "main",
      await queueImport(scope, "chief@example.com", "email_list.csv", SUBSTACK_CSV, "substack"),
    );
    const fromZip = await runJob(
      db,
      "stackzip",
      await queueImport(
        zipScope,
        "chief@example.com",
        "export.zip",
        decodeSourceUpload("substack", zip),
        "substack",
      ),
    );
    for (const job of [fromCsv, fromZip]) {
      expect(job).toMatchObject({ status: "done", totalRows: 3, created: 3, refusedCount: 2 });
      expect(job.refused).toEqual([
        { line: 4, email: "paid@example.com", reason: "Duplicate email (also on row 3)" },
        { line: 6, email: "bad@@example.com", reason: invalidEmailMessage("bad@@example.com") },
      ]);
    }
    for (const tenantId of ["main", "stackzip"]) {
      const audience = await audienceOf(db, tenantId);
      expect(Object.keys(audience)).toEqual([
        "paid@example.com",
        "quiet@example.com",
        "reader@example.com",
      ]);
      expect(audience["paid@example.com"]).toMatchObject({
        status: "active",
        createdAt: "2021-01-01T00:00:00.000Z",
      });
      expect(audience["paid@example.com"]?.lists).toHaveLength(1);
      expect(audience["quiet@example.com"]).toMatchObject({ status: "unsubscribed", lists: [] });
      const events = await eventsOf(db, tenantId);
      expect(events.find((event) => event.email === "paid@example.com")).toMatchObject({
        origin: "substack",
        note: "Substack plan: paid",
      });
    }
    expect(await mailCount(db)).toBe(0);
  });

  it("refuses a file that is not the chosen platform's export, clearly, and queues nothing", async () => {
    const scope = await scopeOf(db, "main");
    const jobs = async () =>
      Number(
        (
          await crossTenant(db)
            .selectFrom("subscriber_imports")
            .select((eb) => eb.fn.countAll<number>().as("n"))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await jobs();
    await expect(
      queueImport(scope, "x", "herald.csv", "email,name\na@example.com,A\n", "ghost"),
    ).rejects.toThrow(
      'This is not a Ghost members export: it has no "subscribed_to_emails" column. Choose the file\'s source again, or export the file again.',
    );
    await expect(queueImport(scope, "x", "members.csv", GHOST_CSV, "substack")).rejects.toThrow(
      'This is not a Substack email list: it has no "email_disabled" column.',
    );
    await expect(queueImport(scope, "x", "empty.csv", "", "ghost")).rejects.toThrow(
      ImportFileError,
    );
    expect(() => decodeSourceUpload("ghost", zipSync({ "a.csv": strToU8("email\n") }))).toThrow(
      "This is a zip file. Upload the Ghost members CSV itself (a .csv file).",
    );
    expect(() =>
      decodeSourceUpload("substack", zipSync({ "posts.csv": strToU8("post_id\n") })),
    ).toThrow(
      "The zip file has no email list (email_list….csv). Upload Substack's whole export, or the email list CSV from it.",
    );
    expect(() =>
      decodeSourceUpload("substack", new Uint8Array([0x50, 0x4b, 0x03, 0x04, 1, 2, 3])),
    ).toThrow("The zip file could not be read. Download Substack's export again.");
    await expect(queueMailerLiteMove(scope, "x")).rejects.toThrow(
      "already sends with Herald: there is no MailerLite account to move from.",
    );
    expect(await jobs()).toBe(before);
  });

  describe("a tenant leaving MailerLite", () => {
    const GROUPS = { newsletter: "9001", webinar: "9100" };

    beforeAll(async () => {
      fake.groups.set(GROUPS.newsletter, { id: GROUPS.newsletter, name: "Newsletter" });
      fake.groups.set(GROUPS.webinar, { id: GROUPS.webinar, name: "Webinar attendees" });
      fake.fields.push(
        { key: "company", name: "Company", type: "text" },
        { key: "score", name: "Score", type: "number" },
        { key: "birthday", name: "Birthday", type: "date" },
      );
      const people = [
        mlSubscriber(1, "ann@example.com", "active", [GROUPS.newsletter], {
          name: "Ann",
          last_name: "Archer",
          company: "Acme & Sons",
          score: 42,
          birthday: "1990-04-01",
        }),
        mlSubscriber(2, "ben@example.com", "active", [GROUPS.newsletter, GROUPS.webinar]),
        mlSubscriber(3, "cat@example.com", "unsubscribed", [GROUPS.newsletter]),
        mlSubscriber(4, "dev@example.com", "unconfirmed", [GROUPS.newsletter]),
        mlSubscriber(5, "eli@example.com", "bounced", [GROUPS.newsletter]),
        mlSubscriber(6, "flo@example.com", "junk", [GROUPS.webinar]),
        mlSubscriber(7, "left@example.com", "active", [GROUPS.newsletter]),
        mlSubscriber(8, "gus@example.com", "active", [], { company: "Gus <script>x</script>" }),
        mlSubscriber(9, "hal@example.com", "active", [GROUPS.webinar], { score: "not a number" }),
        mlSubscriber(10, "ivy@example.com", "active", [GROUPS.newsletter]),
      ];
      for (const person of people) fake.subscribers.set(person.id, person);
      fake.pageLimitCap = 3;
    });

    const mlTenant = async (id: string) => {
      await addTenant(db, id, {
        mailProvider: "mailerlite",
        features: { doubleOptIn: false },
      });
      await db
        .updateTable("tenants")
        .set({ mail_list_group_id: GROUPS.newsletter })
        .where("id", "=", id)
        .execute();
      invalidateTenant(id);
      return scopeOf(db, id);
    };

    it("moves everyone page by page, with status, fields and groups as lists, then sends with Herald", async () => {
      const scope = await mlTenant("mlmove");
      // Someone who unsubscribed here (the mirror) and is still active in MailerLite.
      const [left] = await db
        .insertInto("subscribers")
        .values({
          tenant_id: "mlmove",
          email: "left@example.com",
          name: "Left Already",
          status: "unsubscribed",
          subscribed_at: null,
          unsubscribed_at: "2024-01-01T00:00:00.000Z",
          created_at: "2023-01-01T00:00:00.000Z",
          updated_at: "2024-01-01T00:00:00.000Z",
        })
        .returning("id")
        .execute();
      expect(left).toBeDefined();
      fake.pagesServed = 0;
      const requestsBefore = fake.requests.length;

      const id = await queueMailerLiteMove(scope, "chief@example.com");
      // Pressing the button again while it waits is the same move.
      expect(await queueMailerLiteMove(scope, "chief@example.com")).toBe(id);
      const job = await runJob(db, "mlmove", id);

      expect(job).toMatchObject({
        source: "mailerlite",
        status: "done",
        totalRows: 10,
        doneRows: 10,
        created: 9,
        updated: 1,
        keptUnsubscribed: 1,
        refusedCount: 0,
        error: null,
      });
      // Four pages of at most three, each after the cursor the previous one answered.
      const pages = fake.requests
        .slice(requestsBefore)
        .filter((r) => r.method === "GET" && r.path.startsWith("/subscribers?limit=1000"));
      expect(pages).toHaveLength(4);
      expect(pages[0]?.path).toBe("/subscribers?limit=1000");
      expect(pages.slice(1).every((page) => page.path.includes("&cursor="))).toBe(true);

      const newsletter = (await getTenant(db, "mlmove")).config.emailGroups.default;
      const newsletterName = (
        await db
          .selectFrom("lists")
          .select("name")
          .where("tenant_id", "=", "mlmove")
          .where("key", "=", newsletter)
          .executeTakeFirstOrThrow()
      ).name;
      const audience = await audienceOf(db, "mlmove");
      const summary = Object.fromEntries(
        Object.entries(audience).map(([email, person]) => [
          email,
          `${person.status} [${person.lists.join(", ")}] ${person.name}`.trim(),
        ]),
      );
      expect(summary).toEqual({
        "ann@example.com": `active [${newsletterName}] Ann Archer`,
        "ben@example.com": `active [${[newsletterName, "Webinar attendees"].sort().join(", ")}]`,
        "cat@example.com": "unsubscribed []",
        "dev@example.com": `unconfirmed [${newsletterName}]`,
        "eli@example.com": "bounced []",
        "flo@example.com": "complained []",
        "left@example.com": "unsubscribed [] Left Already",
        "gus@example.com": "active []",
        "hal@example.com": "active [Webinar attendees]",
        "ivy@example.com": `active [${newsletterName}]`,
      });
      expect(audience["ann@example.com"]?.createdAt).toBe("2020-02-03T04:05:06.000Z");

      const fields = await db
        .selectFrom("subscriber_fields")
        .select(["key", "label", "type"])
        .where("tenant_id", "=", "mlmove")
        .orderBy("position")
        .execute();
      expect(fields).toEqual([
        { key: "company", label: "Company", type: "text" },
        { key: "score", label: "Score", type: "number" },
        { key: "birthday", label: "Birthday", type: "date" },
      ]);
      const values = await db
        .selectFrom("subscriber_values")
        .innerJoin("subscribers", "subscribers.id", "subscriber_values.subscriber_id")
        .select(["subscribers.email", "subscriber_values.field_key", "subscriber_values.value"])
        .where("subscriber_values.tenant_id", "=", "mlmove")
        .where("subscribers.tenant_id", "=", "mlmove")
        .orderBy("subscribers.email")
        .orderBy("subscriber_values.field_key")
        .execute();
      expect(values.map((v) => `${v.email} ${v.field_key}=${v.value}`)).toEqual([
        "ann@example.com birthday=1990-04-01",
        "ann@example.com company=Acme & Sons",
        "ann@example.com score=42",
        "gus@example.com company=Gus <script>x</script>",
      ]);

      const tenant = (await getTenant(db, "mlmove")).config;
      expect(tenant.mailProvider).toBe("builtin");
      const [change] = await tenantHistory(db, "mlmove");
      expect(change).toMatchObject({
        action: "updated",
        actor: "chief@example.com",
        changes: [{ field: "mailProvider", before: "mailerlite", after: "builtin" }],
      });
      expect(await mailCount(db)).toBe(0);

      // A second move is refused: the tenant sends with Herald now.
      await expect(queueMailerLiteMove(await scopeOf(db, "mlmove"), "x")).rejects.toThrow(
        ImportFileError,
      );
    });

    it("keeps the tenant on MailerLite when someone cannot come across, saying why", async () => {
      const scope = await mlTenant("mlrefused");
      const broken = mlSubscriber(11, "broken@", "active", [GROUPS.newsletter]);
      fake.subscribers.set(broken.id, broken);
      try {
        const job = await runJob(
          db,
          "mlrefused",
          await queueMailerLiteMove(scope, "chief@example.com"),
        );
        expect(job).toMatchObject({ status: "done", doneRows: 10, refusedCount: 1 });
        expect(job.refused).toEqual([
          { line: 11, email: "broken@", reason: "Not an address Herald can send to" },
        ]);
        expect(job.error).toBe(
          "mlrefused Media stays on MailerLite: 1 of its subscribers could not be brought across (see below). Correct them in MailerLite and move again.",
        );
        expect((await getTenant(db, "mlrefused")).config.mailProvider).toBe("mailerlite");
        expect(await tenantHistory(db, "mlrefused")).toHaveLength(0);
      } finally {
        fake.subscribers.delete(broken.id);
      }
    });

    it("stops when MailerLite fails half way, leaves the tenant on MailerLite, and goes on from there when moved again", async () => {
      const scope = await mlTenant("mlhalf");
      fake.pagesServed = 0;
      fake.failPagesAfter = 2;
      const id = await queueMailerLiteMove(scope, "chief@example.com");
      const failed = await runJob(db, "mlhalf", id);
      expect(failed).toMatchObject({ status: "failed", doneRows: 6, created: 6 });
      expect(failed.error).toBe(
        `MailerLite stopped answering (${"An error occurred while processing your request."}). The 6 subscribers brought across so far are kept and mlhalf Media stays on MailerLite; move again to go on from where it stopped.`,
      );
      expect((await getTenant(db, "mlhalf")).config.mailProvider).toBe("mailerlite");
      expect(await tenantHistory(db, "mlhalf")).toHaveLength(0);
      expect(Object.keys(await audienceOf(db, "mlhalf"))).toHaveLength(6);

      fake.failPagesAfter = null;
      const requestsBefore = fake.requests.length;
      expect(await queueMailerLiteMove(await scopeOf(db, "mlhalf"), "chief@example.com")).toBe(id);
      const done = await runJob(db, "mlhalf", id);
      expect(done).toMatchObject({
        status: "done",
        totalRows: 10,
        doneRows: 10,
        created: 10,
        updated: 0,
        error: null,
      });
      // It went on from the third page: two pages more, the first with the saved cursor.
      const pages = fake.requests
        .slice(requestsBefore)
        .filter((r) => r.method === "GET" && r.path.startsWith("/subscribers?limit=1000"));
      expect(pages).toHaveLength(2);
      expect(pages[0]?.path).toContain("&cursor=");
      expect(Object.keys(await audienceOf(db, "mlhalf"))).toHaveLength(10);
      expect((await getTenant(db, "mlhalf")).config.mailProvider).toBe("builtin");
      expect(await mailCount(db)).toBe(0);
    });
  });
});

describe.each(testDialects())("the imports page on %s", (dialect) => {
  let database: TestDatabase;
  let sink: SmtpSink;
  let server: RunningServer;
  const cookies = { superAdmin: "", mainEditor: "", otherEditor: "" };

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    await migrateToLatest(database.db);
    await seedTenants(database.db);
    resetFake();
    fake.groups.set("9001", { id: "9001", name: "Newsletter" });
    fake.subscribers.set("1", mlSubscriber(1, "moved@example.com", "active", ["9001"]));
    sink = await startSmtpSink();
    server = await startServer({
      databaseUrl: database.url,
      env: {
        SMTP_URL: sink.url,
        SESSION_SECRET: SECRET,
        MAILERLITE_API_KEY: fake.apiKey,
        MAILERLITE_BASE_URL: fake.url,
      },
    });
    const users = {
      superAdmin: await createStaffUser(database.db, {
        email: "chief@example.com",
        role: "super_admin",
      }),
      mainEditor: await createStaffUser(database.db, {
        email: "main@example.com",
        products: { main: true },
      }),
      otherEditor: await createStaffUser(database.db, {
        email: "kd@example.com",
        products: { keydiscovery: true },
      }),
    };
    for (const key of Object.keys(cookies) as (keyof typeof cookies)[]) {
      cookies[key] = await signIn(server.url, users[key].email);
    }
  });

  afterAll(async () => {
    await server?.stop();
    await sink?.stop();
    await database?.drop();
  });

  const upload = (cookie: string, source: string, name: string, content: string) => {
    const form = new FormData();
    form.set("source", source);
    form.set("file", new File([content], name));
    return fetch(`${server.url}/admin/subscribers/imports`, {
      method: "POST",
      body: form,
      headers: { cookie, origin: server.url },
      redirect: "manual",
    });
  };

  /** The job page until the job has ended (the worker runs it in the server). */
  async function finishedJobPage(cookie: string, location: string): Promise<string> {
    for (;;) {
      const html = await (await fetch(`${server.url}${location}`, { headers: { cookie } })).text();
      if (!/Waiting to start|import-progress/.test(html)) return html;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  it("imports a Ghost members CSV chosen on the page, with the report on the job page and no mail", async () => {
    const page = await (
      await fetch(`${server.url}/admin/subscribers/imports`, {
        headers: { cookie: cookies.mainEditor },
      })
    ).text();
    expect(page).toContain("Ghost members CSV");
    expect(page).toContain("Substack email list or export zip");
    expect(page).not.toContain("Move to Herald&#x27;s sending");

    const posted = await upload(cookies.mainEditor, "ghost", "members.csv", GHOST_CSV);
    expect(posted.status).toBe(303);
    const location = posted.headers.get("location") ?? "";
    expect(location).toMatch(/^\/admin\/subscribers\/imports\/\d+$/);
    const html = await finishedJobPage(cookies.mainEditor, location);
    expect(html).toContain("Imported 4 rows; refused 4 rows");
    expect(html).toContain("Ghost members CSV");
    expect(html).toContain("Deleted in Ghost: not imported");
    const { n } = await database.db
      .selectFrom("subscribers")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("tenant_id", "=", "main")
      .executeTakeFirstOrThrow();
    expect(Number(n)).toBe(4);
    // The consent record on the profile names Ghost and keeps the note, as text.
    const fay = await database.db
      .selectFrom("subscribers")
      .select("id")
      .where("tenant_id", "=", "main")
      .where("email", "=", "fay@example.com")
      .executeTakeFirstOrThrow();
    const profile = await (
      await fetch(`${server.url}/admin/subscribers/${fay.id}`, {
        headers: { cookie: cookies.mainEditor },
      })
    ).text();
    expect(profile).toContain("Imported from Ghost");
    expect(profile).toContain("note: &lt;b&gt;asked for invoices&lt;/b&gt;");
    expect(sink.messages).toHaveLength(0);
    expect(await mailCount(database.db)).toBe(0);
  });

  it("refuses a wrong source or file with its reason, and another tenant's staff", async () => {
    const wrong = await upload(cookies.mainEditor, "substack", "members.csv", GHOST_CSV);
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toContain("This is not a Substack email list");
    const unknown = await upload(cookies.mainEditor, "wordpress", "members.csv", GHOST_CSV);
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toContain("Choose where the file comes from.");
    const other = await upload(cookies.otherEditor, "ghost", "members.csv", GHOST_CSV);
    expect(other.status).toBe(403);
    const otherPage = await fetch(`${server.url}/admin/subscribers/imports`, {
      headers: { cookie: cookies.otherEditor },
    });
    expect(otherPage.status).toBe(403);
  });

  it("moves a MailerLite tenant for a super admin only", async () => {
    await database.db
      .updateTable("tenants")
      .set({
        config: JSON.stringify({ mailProvider: "mailerlite" }),
        mail_list_group_id: "9001",
        updated_at: new Date().toISOString(),
      })
      .where("id", "=", "main")
      .execute();
    const move = (cookie: string) =>
      fetch(`${server.url}/admin/subscribers/imports`, {
        method: "POST",
        body: new URLSearchParams({ intent: "move-from-mailerlite" }),
        headers: { cookie, origin: server.url },
        redirect: "manual",
      });
    // The server caches tenants briefly: wait until it sees MailerLite.
    for (;;) {
      const page = await (
        await fetch(`${server.url}/admin/subscribers/imports`, {
          headers: { cookie: cookies.superAdmin },
        })
      ).text();
      if (page.includes("Move to Herald&#x27;s sending")) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const editorPage = await (
      await fetch(`${server.url}/admin/subscribers/imports`, {
        headers: { cookie: cookies.mainEditor },
      })
    ).text();
    expect(editorPage).not.toContain("Move to Herald&#x27;s sending");
    expect((await move(cookies.mainEditor)).status).toBe(403);
    expect((await move(cookies.otherEditor)).status).toBe(403);

    const moved = await move(cookies.superAdmin);
    expect(moved.status).toBe(303);
    const html = await finishedJobPage(cookies.superAdmin, moved.headers.get("location") ?? "");
    expect(html).toContain("Everyone came across: this site now sends with Herald.");
    invalidateTenant("main");
    expect((await getTenant(database.db, "main")).config.mailProvider).toBe("builtin");
    const moved_ = await database.db
      .selectFrom("subscribers")
      .select("status")
      .where("tenant_id", "=", "main")
      .where("email", "=", "moved@example.com")
      .executeTakeFirstOrThrow();
    expect(moved_.status).toBe("active");
    expect(sink.messages).toHaveLength(0);
  });
});
