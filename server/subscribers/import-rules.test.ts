import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase, testDialects } from "../../tests/support/database";
import { migrateToLatest } from "../db/migrate";
import { outboxTransport } from "../mail/transport";
import type { TenantConfig } from "../tenants/config";
import { seedTenants } from "../tenants/seed";
import { getTenant } from "../tenants/store";
import { exportSubscribersCsv } from "./csv-export";
import { createField, FieldError, readFieldValue, type SubscriberField } from "./fields";
import { decodeCsvUpload, ImportFileError, type ImportRow, prepareImport } from "./import-rows";
import { importSubscribersCsv, writeImportRows } from "./import-write";
import { listTenantLists } from "./lists";
import { addSubscriber } from "./profile-edit";
import { ProfileError } from "./profiles";
import { getSubscriberById, type SubscriptionContext } from "./subscribers";

/*
 * The rules of bringing people in, on a real database (SQLite, and PostgreSQL with
 * TEST_DATABASE_URL): a CSV file checked row by row before anything is written (addresses,
 * duplicates within the file, names, statuses, lists), then written — who is created, who is
 * updated, who stays away — and custom field values checked by their field's type.
 */

const csv = (...lines: string[]) => lines.join("\r\n");
const bytes = (text: string) => new TextEncoder().encode(text);

describe("a CSV upload's bytes", () => {
  it("must be UTF-8 text without NUL, not empty, not over the limit", () => {
    // A byte-order mark is dropped with the decoding.
    expect(decodeCsvUpload(bytes("\uFEFFemail\r\na@example.com"))).toBe("email\r\na@example.com");
    expect(() => decodeCsvUpload(new Uint8Array())).toThrow("The file is empty.");
    expect(() => decodeCsvUpload(new Uint8Array([0x65, 0xff, 0xfe, 0x0a]))).toThrow(
      "The file is not UTF-8 text",
    );
    expect(() => decodeCsvUpload(bytes("email\na@example.com\u0000"))).toThrow(
      "The file contains NUL characters",
    );
    expect(() => decodeCsvUpload(new Uint8Array(10_000_001))).toThrow("The file is larger than");
    expect(() => decodeCsvUpload(bytes("x"))).not.toThrow();
    expect(new ImportFileError("x")).toBeInstanceOf(Error);
  });
});

describe("a custom field's value", () => {
  const field = (type: SubscriberField["type"], choices: string[] = []): SubscriberField => ({
    key: "k",
    label: "K",
    type,
    choices,
  });

  it("is checked against its field's type", () => {
    expect(readFieldValue(field("text"), "  hello ")).toEqual({ value: "hello" });
    expect(readFieldValue(field("text"), "   ")).toEqual({ value: null });
    expect(readFieldValue(field("text"), "x".repeat(501))).toHaveProperty("error");
    expect(readFieldValue(field("number"), "1,250.50")).toEqual({ value: "1250.5" });
    expect(readFieldValue(field("number"), "12abc")).toEqual({ error: "K must be a number" });
    expect(readFieldValue(field("date"), "2026-02-28")).toEqual({ value: "2026-02-28" });
    expect(readFieldValue(field("date"), "2026-02-30")).toEqual({
      error: "K must be a date (YYYY-MM-DD)",
    });
    expect(readFieldValue(field("date"), "28/02/2026")).toHaveProperty("error");
    expect(readFieldValue(field("choice", ["red", "blue"]), "blue")).toEqual({ value: "blue" });
    expect(readFieldValue(field("choice", ["red", "blue"]), "Blue")).toEqual({
      error: "K must be one of: red, blue",
    });
  });
});

describe.each(testDialects())("importing and custom fields on %s", (dialect) => {
  let database: TestDatabase;
  let tenant: TenantConfig;
  const staff = () => ({ db: database.db, tenant });
  const ctx = (): SubscriptionContext => ({
    db: database.db,
    logger: pino({ level: "silent" }),
    transport: outboxTransport(),
    tenant,
    origin: "http://localhost:3000",
    sessionSecret: "test-secret-test-secret-test-secret-0123",
  });
  const subscriber = async (email: string) => {
    const row = await database.db
      .selectFrom("subscribers")
      .select(["id", "name", "status"])
      .where("tenant_id", "=", "main")
      .where("email", "=", email)
      .executeTakeFirstOrThrow();
    return { ...row, lists: (await getSubscriberById(ctx(), row.id))?.lists ?? [] };
  };
  /** Where someone stands: their status and lists. */
  const state = async (email: string) => {
    const { status, lists } = await subscriber(email);
    return [status, lists];
  };

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    await migrateToLatest(database.db);
    await seedTenants(database.db);
    tenant = (await getTenant(database.db, "main")).config;
  });

  afterAll(async () => {
    await database?.drop();
  });

  it("refuses a file without an email column, and checks every row on its own", async () => {
    await expect(prepareImport(staff(), csv("name,lists", "Ann,newsletter"))).rejects.toThrow(
      'The file has no "email" column',
    );
    const { rows, refused, defaultList } = await prepareImport(
      staff(),
      csv(
        "Email,Name,Lists,Status",
        "ok@example.com,Ok,newsletter,",
        "OK@Example.com,Again,,",
        ",No address,,",
        "not-an-email,,,",
        `long@example.com,${"n".repeat(101)},,`,
        "unc@example.com,,,unconfirmed",
        "odd@example.com,,,paused",
        'lists@example.com,,"newsletter;nope",',
        "",
        "'=formula@example.com,'=SUM(A1),,",
        'multi@example.com,"Tab\there", Newsletter | industry-news ,Unsubscribed',
      ),
    );
    expect(defaultList?.key).toBe("newsletter");
    expect(refused).toEqual([
      { line: 3, email: "OK@Example.com", reason: "Duplicate email (also on row 2)" },
      { line: 4, email: "", reason: "Missing email" },
      { line: 5, email: "not-an-email", reason: "Invalid email format: not-an-email" },
      { line: 6, email: "long@example.com", reason: "Name must be at most 100 characters." },
      {
        line: 7,
        email: "unc@example.com",
        reason: "Status unconfirmed cannot be imported: use active or unsubscribed.",
      },
      {
        line: 8,
        email: "odd@example.com",
        reason: "Unknown status: paused (use active or unsubscribed)",
      },
      { line: 9, email: "lists@example.com", reason: "Unknown list: nope" },
    ]);
    expect(
      rows.map((row) => [
        row.line,
        row.email,
        row.name,
        row.status,
        row.lists === null ? null : row.lists.map((l) => l.key),
      ]),
    ).toEqual([
      [2, "ok@example.com", "Ok", null, ["newsletter"]],
      // The export's formula guard is taken off again.
      [11, "=formula@example.com", "=SUM(A1)", null, null],
      [12, "multi@example.com", "Tab here", "unsubscribed", ["newsletter", "industry-news"]],
    ]);
  });

  it("reads a file separated by semicolons too", async () => {
    const { rows, refused } = await prepareImport(
      staff(),
      csv("email;name", "semi@example.com;Semi"),
    );
    expect(refused).toEqual([]);
    expect(rows.map((row) => [row.email, row.name])).toEqual([["semi@example.com", "Semi"]]);
  });

  it("writes rows: new people active on the default list; someone who left stays away unless the row says active", async () => {
    const first = await importSubscribersCsv(
      staff(),
      csv(
        "email,name,lists,status",
        "new@example.com,New,,",
        "gone@example.com,Gone,industry-news,unsubscribed",
        "mover@example.com,Mover,newsletter;industry-news,",
      ),
    );
    expect(first).toMatchObject({ imported: 3, created: 3, updated: 0, keptUnsubscribed: 0 });
    expect(await state("new@example.com")).toEqual(["active", ["newsletter"]]);
    expect(await state("gone@example.com")).toEqual(["unsubscribed", []]);

    const second = await importSubscribersCsv(
      staff(),
      csv(
        "email,name,lists,status",
        "gone@example.com,,newsletter,",
        "mover@example.com,,industry-news,",
        "new@example.com,,,unsubscribed",
      ),
    );
    expect(second).toMatchObject({ imported: 3, created: 0, updated: 3, keptUnsubscribed: 1 });
    // No status: someone who unsubscribed stays so, on no list, their name kept.
    expect(await subscriber("gone@example.com")).toMatchObject({
      name: "Gone",
      status: "unsubscribed",
      lists: [],
    });
    // Named lists replace the old ones.
    expect(await subscriber("mover@example.com")).toMatchObject({
      name: "Mover",
      status: "active",
      lists: ["industry-news"],
    });
    expect(await state("new@example.com")).toEqual(["unsubscribed", []]);

    const third = await importSubscribersCsv(
      staff(),
      csv("email,status", "gone@example.com,active", "mover@example.com,"),
    );
    expect(third).toMatchObject({ created: 0, updated: 2, keptUnsubscribed: 0 });
    // Said in so many words: back, and (having no list) on the default one.
    expect(await state("gone@example.com")).toEqual(["active", ["newsletter"]]);
    // No lists named: the lists stay as they are.
    expect((await subscriber("mover@example.com")).lists).toEqual(["industry-news"]);
  });

  it("never brings back through another platform's list someone who left here, but takes its bounces", async () => {
    await importSubscribersCsv(
      staff(),
      csv(
        "email,status",
        "left@example.com,unsubscribed",
        "here@example.com,active",
        "bouncy@example.com,active",
      ),
    );
    const lists = await listTenantLists(database.db, tenant);
    const news = lists.filter((list) => list.key === "industry-news");
    const row = (line: number, email: string, status: ImportRow["status"]): ImportRow => ({
      line,
      email,
      name: "",
      status,
      lists: news,
    });
    const counts = await database.db
      .transaction()
      .execute((trx) =>
        writeImportRows(
          trx,
          "main",
          [
            row(2, "left@example.com", "active"),
            row(3, "here@example.com", "unconfirmed"),
            row(4, "bouncy@example.com", "bounced"),
            row(5, "fresh@example.com", "active"),
          ],
          undefined,
          new Date().toISOString(),
          { origin: "ghost" },
        ),
      );
    expect(counts).toEqual({ created: 1, updated: 3, keptUnsubscribed: 1 });
    expect(await state("left@example.com")).toEqual(["unsubscribed", []]);
    // Unconfirmed there is no step back for someone active here.
    expect(await state("here@example.com")).toEqual(["active", ["industry-news"]]);
    expect(await state("bouncy@example.com")).toEqual(["bounced", []]);
    expect(await state("fresh@example.com")).toEqual(["active", ["industry-news"]]);
    const consent = await database.db
      .selectFrom("subscriber_events")
      .innerJoin("subscribers", "subscribers.id", "subscriber_events.subscriber_id")
      .select("subscriber_events.detail")
      .where("subscriber_events.tenant_id", "=", "main")
      .where("subscribers.tenant_id", "=", "main")
      .where("subscribers.email", "=", "fresh@example.com")
      .executeTakeFirstOrThrow();
    expect(JSON.parse(consent.detail)).toMatchObject({ source: "import", origin: "ghost" });
  });

  it("exports names a spreadsheet would run as formulas guarded, and imports the export unchanged", async () => {
    await importSubscribersCsv(
      staff(),
      csv("email,name", 'formula@example.com,"=HYPERLINK(""x"")"'),
    );
    const exported = await exportSubscribersCsv(staff(), { q: "formula@" });
    expect(exported.startsWith("\uFEFFemail,name,status,lists,subscribed_at\r\n")).toBe(true);
    expect(exported).toContain(`formula@example.com,"'=HYPERLINK(""x"")",active,newsletter,`);
    const again = await importSubscribersCsv(staff(), exported);
    expect(again).toMatchObject({ created: 0, updated: 1, refused: [] });
    expect((await subscriber("formula@example.com")).name).toBe('=HYPERLINK("x")');
  });

  it("gives custom fields keys of their own, and refuses a value its field cannot take", async () => {
    const field = (label: string, type: SubscriberField["type"] = "text", choices: string[] = []) =>
      createField(database.db, "main", { label, type, choices });
    expect((await field("City!")).key).toBe("city");
    expect((await field("City?")).key).toBe("city_2");
    expect((await field("Email")).key).toBe("field_email");
    expect((await field("2nd address")).key).toBe("field_2nd_address");
    await expect(field("CITY!")).rejects.toBeInstanceOf(FieldError);
    await expect(field("CITY!")).rejects.toMatchObject({ status: 409 });
    await field("Seats", "number");
    await field("Tier", "choice", ["gold", "silver"]);

    const add = (fields: Record<string, string>) =>
      addSubscriber(ctx(), "staff@example.com", {
        email: "fields@example.com",
        name: "Fields",
        lists: ["newsletter"],
        fields,
        optIn: false,
      });
    const refused = await add({ seats: "many", tier: "bronze" }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ProfileError);
    expect((refused as ProfileError).fields).toEqual({
      "field.seats": ["Seats must be a number"],
      "field.tier": ["Tier must be one of: gold, silver"],
    });
    const id = await add({ seats: "1,000", tier: "gold", city: " Lyon " });
    const values = await database.db
      .selectFrom("subscriber_values")
      .select(["field_key", "value"])
      .where("tenant_id", "=", "main")
      .where("subscriber_id", "=", id)
      .orderBy("field_key")
      .execute();
    expect(values).toEqual([
      { field_key: "city", value: "Lyon" },
      { field_key: "seats", value: "1000" },
      { field_key: "tier", value: "gold" },
    ]);
  });
});
