import { ColumnNode, InsertQueryNode, sql, UpdateQueryNode } from "kysely";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Db } from "../../server/db";
import { migrateToLatest } from "../../server/db/migrate";
import type { SubscriberStatus } from "../../server/db/schema";
import { crossTenant, tenantDb } from "../../server/db/tenant-guard";
import { audienceImportJob } from "../../server/jobs/imports";
import { JobRunner } from "../../server/jobs/runner";
import {
  type AudienceCounts,
  audienceCounts,
  foldAudienceCounts,
  type StatusCounts,
  zeroCounts,
} from "../../server/subscribers/counts";
import { clearFieldValues, createField, setFieldValues } from "../../server/subscribers/fields";
import { ImportFileError } from "../../server/subscribers/import-rows";
import { runImport } from "../../server/subscribers/import-run";
import {
  claimImport,
  getImport,
  IMPORT_CHUNK_ROWS,
  IMPORT_STALE_MS,
  ImportNotFound,
  queueImport,
  recentImports,
} from "../../server/subscribers/imports";
import {
  createList,
  deleteList,
  listTenantLists,
  type MailingList,
} from "../../server/subscribers/lists";
import {
  countByList,
  countByStatus,
  listSubscribers,
  SEARCH_COUNT_CAP,
  SUBSCRIBERS_PAGE_SIZE,
  type SubscriberFilter,
  selectedSubscriberIds,
} from "../../server/subscribers/search";
import { countSegment } from "../../server/subscribers/segment-counts";
import { numberFieldKeys, segmentCondition } from "../../server/subscribers/segment-sql";
import {
  changeEmail,
  emptyList,
  eraseSubscriberRows,
  insertSubscribers,
  joinLists,
  leaveList,
  leaveListMany,
  markUnsubscribed,
  type NewSubscriber,
  updateSubscriber,
  writeInChunks,
} from "../../server/subscribers/store";
import { deleteTenant, insertTenantIfMissing } from "../../server/tenants/admin";
import type { TenantConfig } from "../../server/tenants/config";
import { seedTenants } from "../../server/tenants/seed";
import { getTenant } from "../../server/tenants/store";
import type { SegmentRule } from "../../shared/schemas/segment";
import { SUBSCRIBER_STATUSES } from "../../shared/schemas/subscribers";
import { createTestDatabase, type TestDatabase, testDialects } from "../support/database";
import { scaled } from "../support/timing";

/*
 * Issue 16 at the database level: the counts kept by triggers (audience_counts) against a plain
 * GROUP BY after every kind of write, the trigram search and its capped count against the rows
 * filtered in JavaScript, and CSV imports as jobs (queue, claim, chunks, resume, takeover, failure).
 */

interface Counts {
  all: StatusCounts;
  /** list id → counts, lists with no counted member left out */
  lists: Record<number, StatusCounts>;
}

const zero = (): StatusCounts => ({ ...zeroCounts });
const nonZero = (counts: StatusCounts) => Object.values(counts).some((n) => n !== 0);

/** The kept counts in the shape of `countedDirectly`. */
function keptShape(counts: AudienceCounts): Counts {
  const lists: Record<number, StatusCounts> = {};
  for (const [listId, of] of counts.lists) if (nonZero(of)) lists[listId] = { ...of };
  return { all: { ...counts.all }, lists };
}

/** The counts as a GROUP BY over the rows themselves (raw SQL: the oracle shares no code). */
async function countedDirectly(guarded: Db, tenantId: string): Promise<Counts> {
  const db = crossTenant(guarded); // raw SQL on tenant tables: past the guard
  const all = zero();
  const { rows: byStatus } = await sql<{ status: SubscriberStatus; n: number | string }>`
    SELECT status, COUNT(*) AS n FROM subscribers
    WHERE tenant_id = ${tenantId} AND erased_at IS NULL GROUP BY status`.execute(db);
  for (const row of byStatus) all[row.status] = Number(row.n);
  const lists: Record<number, StatusCounts> = {};
  const { rows: byList } = await sql<{
    list_id: number;
    status: SubscriberStatus;
    n: number | string;
  }>`
    SELECT x.list_id, s.status, COUNT(*) AS n
    FROM subscriptions x JOIN subscribers s ON s.id = x.subscriber_id
    WHERE s.tenant_id = ${tenantId} AND s.erased_at IS NULL
    GROUP BY x.list_id, s.status`.execute(db);
  for (const row of byList) {
    const of = lists[Number(row.list_id)] ?? zero();
    of[row.status] = Number(row.n);
    lists[Number(row.list_id)] = of;
  }
  return { all, lists };
}

async function countRowsOf(db: Db, tenantId: string) {
  return (
    await db
      .selectFrom("audience_counts")
      .select(["list_id", "status", "n"])
      .where("tenant_id", "=", tenantId)
      .execute()
  ).map((row) => ({ key: `${row.list_id}/${row.status}`, n: Number(row.n) }));
}

const total = (counts: StatusCounts) => Object.values(counts).reduce((sum, n) => sum + n, 0);

/** A CSV of `rows` below the header email,name,lists,status (no cell needs quotes). */
const csvOf = (rows: readonly (readonly string[])[]) =>
  `email,name,lists,status\n${rows.map((row) => row.join(",")).join("\n")}\n`;

interface Stored {
  status: SubscriberStatus;
  name: string;
  lists: string[];
}

describe.each(testDialects())("audience at scale on %s", (dialect) => {
  let database: TestDatabase;
  let db: Db;
  let main: TenantConfig;
  let other: TenantConfig;

  const tenantConfig = async (id: string, name: string) => {
    await insertTenantIfMissing(
      db,
      { id, name, description: "", overrides: {} },
      new Date().toISOString(),
    );
    return (await getTenant(db, id)).config;
  };

  /** Every way of reading the counts agrees with the GROUP BY; answers the GROUP BY. */
  const expectExactCounts = async (tenant: TenantConfig, step: string): Promise<Counts> => {
    const ctx = { db, tenant };
    const direct = await countedDirectly(db, tenant.id);
    expect(keptShape(await audienceCounts(db, tenant.id)), step).toEqual(direct);
    expect(await countByStatus(ctx), step).toEqual({ ...direct.all, total: total(direct.all) });
    const lists = await listTenantLists(db, tenant);
    expect(await countByList(ctx), step).toEqual(
      lists.map((list) => ({
        key: list.key,
        name: list.name,
        active: direct.lists[list.id]?.active ?? 0,
      })),
    );
    for (const list of lists) {
      const of = direct.lists[list.id] ?? zero();
      expect(
        await countSegment(db, tenant.id, {
          lists: [list.key],
          statuses: ["active", "bounced"],
          fields: [],
        }),
        `${step}: segment of ${list.key}`,
      ).toEqual({ matching: of.active + of.bounced, active: of.active });
      for (const status of ["all", ...SUBSCRIBER_STATUSES] as const) {
        const { total: listed, capped } = await listSubscribers(ctx, { list: list.key, status });
        expect({ listed, capped }, `${step}: ${list.key}/${status}`).toEqual({
          listed: status === "all" ? total(of) : of[status],
          capped: false,
        });
      }
    }
    for (const status of SUBSCRIBER_STATUSES) {
      expect((await listSubscribers(ctx, { status })).total, `${step}: ${status}`).toBe(
        direct.all[status],
      );
    }
    return direct;
  };

  /** Folding leaves one row per key, none of them zero, and the same sums. */
  const expectFolded = async (tenant: TenantConfig, step: string) => {
    await foldAudienceCounts(db, tenant.id);
    const rows = await countRowsOf(db, tenant.id);
    const keys = rows.map((row) => row.key);
    expect(new Set(keys).size, step).toBe(keys.length);
    expect(
      rows.filter((row) => row.n === 0),
      step,
    ).toEqual([]);
    return expectExactCounts(tenant, `${step} (folded)`);
  };

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    db = database.db;
    await migrateToLatest(db);
    await seedTenants(db);
    main = (await getTenant(db, "main")).config;
    other = (await getTenant(db, "keydiscovery")).config;
  });

  afterAll(async () => {
    await database.drop();
  });

  describe("kept counts", () => {
    it("stay exact through inserts, list changes, status changes, erasure, deletes, folding and deleting the tenant", async () => {
      const tenant = await tenantConfig("counting", "Counting");
      const lists = await listTenantLists(db, tenant);
      const listId = (key: string) => (lists.find((list) => list.key === key) as MailingList).id;
      const newsletter = listId("newsletter");
      const updates = listId("product-updates");
      const industry = listId("industry-news");
      const now = new Date().toISOString();

      // Another tenant's audience with the same addresses: untouched by all of this.
      const people = (prefix: string, status: SubscriberStatus, n: number): NewSubscriber[] =>
        Array.from({ length: n }, (_, i) => ({
          email: `${prefix}${i}@counting.test`,
          name: `${prefix} ${i}`,
          status,
          subscribed_at: status === "active" ? now : null,
          unsubscribed_at: null,
        }));
      const everyone = [
        ...people("a", "active", 12),
        ...people("u", "unconfirmed", 6),
        ...people("x", "unsubscribed", 5),
        ...people("b", "bounced", 4),
        ...people("c", "complained", 3),
      ];
      const theirs = await insertSubscribers(db, other.id, everyone.slice(0, 10), now);
      const theirList = (await listTenantLists(db, other)).find(
        (list) => list.key === "newsletter",
      ) as MailingList;
      await joinLists(
        db,
        other.id,
        theirs.map(({ id }) => ({ subscriberId: id, listId: theirList.id })),
        now,
      );
      const otherBefore = await expectExactCounts(other, "the other tenant");
      expect(otherBefore.all.active).toBe(10);

      // 1. Inserted, in every status.
      const ids: Record<string, number> = {};
      for (const { id, email } of await insertSubscribers(db, tenant.id, everyone, now)) {
        ids[email.split("@")[0] as string] = id;
      }
      const id = (name: string) => ids[name] as number;
      const step1 = await expectExactCounts(tenant, "inserted");
      expect(step1.all).toEqual({
        active: 12,
        unconfirmed: 6,
        unsubscribed: 5,
        bounced: 4,
        complained: 3,
      });
      expect(step1.lists).toEqual({});

      // 2. Lists joined, some twice (a membership that exists is kept, not counted again).
      const join = async (names: string[], list: number) =>
        joinLists(
          db,
          tenant.id,
          names.map((name) => ({ subscriberId: id(name), listId: list })),
          now,
        );
      const actives = Array.from({ length: 12 }, (_, i) => `a${i}`);
      await join(actives, newsletter);
      await join(["a0", "a1", "a2", "a3", "a4", "a5"], industry);
      await join(["u0", "u1", "u2"], updates);
      await join(["b0"], newsletter);
      await join(["a0", "a1", "b0"], newsletter);
      await join(["a1"], industry);
      const step2 = await expectExactCounts(tenant, "joined");
      expect(step2.lists[newsletter]).toEqual({ ...zero(), active: 12, bounced: 1 });
      expect(step2.lists[industry]).toEqual({ ...zero(), active: 6 });
      expect(step2.lists[updates]).toEqual({ ...zero(), unconfirmed: 3 });

      // 3. Status changes, with and without memberships; changes that are not status changes.
      await markUnsubscribed(db, tenant.id, id("a0"), now);
      await updateSubscriber(
        db,
        tenant.id,
        id("u0"),
        { status: "active", subscribed_at: now },
        now,
      );
      await updateSubscriber(db, tenant.id, id("a1"), { status: "bounced" }, now);
      await updateSubscriber(db, tenant.id, id("a2"), { name: "Renamed" }, now);
      await updateSubscriber(db, tenant.id, id("a3"), { status: "active" }, now);
      // a bounce does not hide an earlier complaint
      expect(
        await updateSubscriber(db, tenant.id, id("c0"), { status: "bounced" }, now, {
          unlessStatusIn: ["complained"],
        }),
      ).toBe(false);
      // one statement, several rows
      await crossTenant(db)
        .updateTable("subscribers")
        .set({ status: "complained" })
        .where("id", "in", [id("a4"), id("a5"), id("x2")])
        .execute();
      const step3 = await expectExactCounts(tenant, "status changes");
      expect(step3.all).toEqual({
        active: 9,
        unconfirmed: 5,
        unsubscribed: 5,
        bounced: 5,
        complained: 6,
      });
      expect(step3.lists[newsletter]).toEqual({
        ...zero(),
        active: 8,
        bounced: 2,
        complained: 2,
      });
      expect(step3.lists[updates]).toEqual({ ...zero(), active: 1, unconfirmed: 2 });

      // 4. Leaving lists.
      await leaveList(db, tenant.id, { subscriberId: id("a6"), listId: newsletter });
      await leaveListMany(db, tenant.id, newsletter, [id("a7"), id("a8"), id("b0")]);
      const step4 = await expectExactCounts(tenant, "left lists");
      expect(step4.lists[newsletter]).toEqual({
        ...zero(),
        active: 5,
        bounced: 1,
        complained: 2,
      });

      // 5. Erasure, then a status change of an erased row (not counted either way).
      await eraseSubscriberRows(db, tenant.id, [id("a9"), id("u1"), id("x0")], now);
      const step5 = await expectExactCounts(tenant, "erased");
      expect(total(step5.all)).toBe(27);
      await crossTenant(db)
        .updateTable("subscribers")
        .set({ status: "active" })
        .where("id", "=", id("x0"))
        .execute();
      await expectExactCounts(tenant, "erased row's status changed");

      // 6. Rows deleted outright: one on lists, one on none, one erased.
      await crossTenant(db)
        .deleteFrom("subscribers")
        .where("id", "in", [id("a10"), id("x1"), id("u1")])
        .execute();
      const step6 = await expectExactCounts(tenant, "deleted rows");
      expect(total(step6.all)).toBe(25);

      // 7. A list emptied.
      await emptyList(db, tenant.id, industry);
      const step7 = await expectExactCounts(tenant, "emptied a list");
      expect(step7.lists[industry]).toBeUndefined();

      // 8. Folded; written to again; folded again.
      const keys = new Set((await countRowsOf(db, tenant.id)).map((row) => row.key)).size;
      expect((await countRowsOf(db, tenant.id)).length).toBeGreaterThan(keys);
      await expectFolded(tenant, "first fold");
      const fresh = await insertSubscribers(db, tenant.id, people("n", "active", 3), now);
      await joinLists(
        db,
        tenant.id,
        fresh.map((row) => ({ subscriberId: row.id, listId: industry })),
        now,
      );
      await markUnsubscribed(db, tenant.id, fresh[0]?.id as number, now);
      await updateSubscriber(db, tenant.id, id("a11"), { status: "bounced" }, now);
      const step8 = await expectExactCounts(tenant, "written after the fold");
      expect(step8.lists[industry]).toEqual({ ...zero(), active: 2 });
      await expectFolded(tenant, "second fold");

      // 9. The other tenant was never touched.
      expect(await expectExactCounts(other, "the other tenant, after")).toEqual(otherBefore);

      // 10. The tenant deleted: no count of it is left behind.
      await expect(deleteTenant(db, "tester", tenant.id, false)).rejects.toThrow();
      await deleteTenant(db, "tester", tenant.id, true);
      expect(await countRowsOf(db, tenant.id)).toEqual([]);
      const left = await crossTenant(db)
        .selectFrom("audience_counts")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("tenant_id", "=", "counting")
        .executeTakeFirstOrThrow();
      expect(Number(left.n)).toBe(0);
      expect(await countedDirectly(db, tenant.id)).toEqual({ all: zero(), lists: {} });
      expect(await expectExactCounts(other, "the other tenant, at the end")).toEqual(otherBefore);
      await crossTenant(db).deleteFrom("subscribers").where("tenant_id", "=", other.id).execute();
      await expectExactCounts(other, "the other tenant, emptied");
    });
  });

  describe("segment counts", () => {
    /**
     * Every shortcut of countSegment (kept counts, one field's values, a rule led by a field)
     * against the one SQL condition the sender uses to pick recipients (segmentCondition).
     */
    it("agree with the sender's own condition for every kind of rule", async () => {
      const tenant = await tenantConfig("segmenting", "Segmenting");
      const lists = await listTenantLists(db, tenant);
      const [first, second, third] = lists;
      if (!first || !second || !third) throw new Error("the tenant needs three lists");
      await createField(db, tenant.id, {
        label: "Region",
        type: "choice",
        choices: ["EMEA", "Americas", "APAC"],
      });
      await createField(db, tenant.id, { label: "Size", type: "number", choices: [] });
      await createField(db, tenant.id, { label: "Note", type: "text", choices: [] });
      const statuses = SUBSCRIBER_STATUSES;
      const now = new Date().toISOString();
      const people = await insertSubscribers(
        db,
        tenant.id,
        Array.from({ length: 300 }, (_, i) => ({
          email: `seg${i}@example.com`,
          name: `Seg ${i}`,
          status: statuses[(i * 7) % statuses.length] as SubscriberStatus,
          subscribed_at: now,
          unsubscribed_at: null,
        })),
        now,
      );
      await joinLists(
        db,
        tenant.id,
        people.flatMap(({ id }, i) => [
          ...(i % 2 === 0 ? [{ subscriberId: id, listId: first.id }] : []),
          ...(i % 3 === 0 ? [{ subscriberId: id, listId: second.id }] : []),
          ...(i % 5 === 0 ? [{ subscriberId: id, listId: third.id }] : []),
        ]),
        now,
      );
      for (const [i, { id }] of people.entries()) {
        await setFieldValues(db, tenant.id, id, {
          region: i % 4 === 3 ? null : (["EMEA", "Americas", "APAC"][i % 3] ?? null),
          size: i % 6 === 5 ? null : String((i * 37) % 1000),
          note: i % 2 === 0 ? `note ${i % 10} about Discovery` : null,
        });
        const day = new Date(Date.UTC(2025, 0, 1) + (i % 60) * 86_400_000).toISOString();
        await crossTenant(db)
          .updateTable("subscribers")
          .set({ created_at: day })
          .where("id", "=", id)
          .execute();
      }
      // Erased people keep their rows but count nowhere; some changed status after their values.
      const erased = people.filter((_, i) => i % 25 === 0).map(({ id }) => id);
      await writeInChunks(db, tenant.id, erased, clearFieldValues);
      await eraseSubscriberRows(db, tenant.id, erased, now);
      for (const { id } of people.filter((_, i) => i % 11 === 1)) {
        await markUnsubscribed(db, tenant.id, id, now);
      }

      const numbers = await numberFieldKeys(db, tenant.id);
      /** The sender's answer: one SQL condition over subscribers. */
      const oracle = async (rule: SegmentRule) => {
        const row = await tenantDb(db, tenant.id)
          .selectFrom("subscribers")
          .select((eb) => [
            eb.fn.countAll<number>().as("matching"),
            eb.fn
              .sum<number>(
                eb.case().when("subscribers.status", "=", "active").then(1).else(0).end(),
              )
              .as("active"),
          ])
          .where("subscribers.erased_at", "is", null)
          .where((eb) => segmentCondition(eb, rule, numbers))
          .executeTakeFirstOrThrow();
        return { matching: Number(row.matching), active: Number(row.active ?? 0) };
      };
      const rule = (part: Partial<SegmentRule>): SegmentRule => ({
        lists: [],
        statuses: [],
        fields: [],
        ...part,
      });
      const region = (op: SegmentRule["fields"][number]["op"], value = "EMEA") => ({
        key: "region",
        op,
        value,
      });
      const rules: SegmentRule[] = [
        rule({}),
        rule({ lists: [first.key] }),
        rule({ lists: [first.key, third.key] }),
        rule({ statuses: ["active", "unconfirmed"] }),
        rule({ lists: [second.key], statuses: ["unsubscribed"] }),
        rule({ lists: ["no-such-list"] }),
        rule({ fields: [region("is")] }),
        rule({ fields: [region("is-not")] }),
        rule({ fields: [region("set", "")] }),
        rule({ fields: [region("unset", "")], statuses: ["active"] }),
        rule({ fields: [{ key: "size", op: "greater", value: "500" }] }),
        rule({ fields: [{ key: "size", op: "less", value: "75.5" }], statuses: ["bounced"] }),
        rule({ fields: [{ key: "note", op: "contains", value: "DISCOVERY" }] }),
        rule({ fields: [{ key: "note", op: "contains", value: "100%" }] }),
        rule({ lists: [first.key], fields: [region("is")] }),
        rule({ lists: [second.key, third.key], statuses: ["active"], fields: [region("is")] }),
        rule({ lists: ["no-such-list"], fields: [region("is")] }),
        rule({ fields: [region("is"), { key: "size", op: "greater", value: "300" }] }),
        rule({ fields: [region("is-not"), { key: "size", op: "greater", value: "300" }] }),
        rule({ fields: [{ key: "note", op: "set", value: "" }, region("unset", "")] }),
        rule({
          lists: [third.key],
          statuses: ["active", "unsubscribed"],
          fields: [{ key: "size", op: "less", value: "900" }, region("is", "APAC")],
        }),
        rule({ signedUpAfter: "2025-01-10", signedUpBefore: "2025-02-01" }),
        rule({ signedUpAfter: "2025-01-10", fields: [region("is")] }),
      ];
      for (const each of rules) {
        const expected = await oracle(each);
        expect(await countSegment(db, tenant.id, each), JSON.stringify(each)).toEqual(expected);
      }
      // The oracle is not empty: the rules above match people in more than one way.
      expect((await oracle(rules[0] as SegmentRule)).matching).toBe(300 - erased.length);
      expect(
        (await oracle(rule({ lists: [first.key], fields: [region("is")] }))).matching,
      ).toBeGreaterThan(0);
    });
  });

  describe("search", () => {
    const N = SEARCH_COUNT_CAP + 50;
    interface Row {
      id: number;
      email: string;
      name: string;
      status: SubscriberStatus;
      lists: Set<number>;
    }
    let ctx: { db: Db; tenant: TenantConfig };
    let newsletter: MailingList;

    /** A tenant's rows (not erased) as they stand, with their lists, newest first. */
    const rowsOf = async (tenantId: string): Promise<Row[]> => {
      const subscribers = await db
        .selectFrom("subscribers")
        .select(["id", "email", "name", "status"])
        .where("tenant_id", "=", tenantId)
        .where("erased_at", "is", null)
        .orderBy("id", "desc")
        .execute();
      const memberships = await db
        .selectFrom("subscriptions")
        .select(["subscriber_id", "list_id"])
        .where("tenant_id", "=", tenantId)
        .execute();
      const lists = new Map<number, Set<number>>();
      for (const row of memberships) {
        const set = lists.get(Number(row.subscriber_id)) ?? new Set();
        set.add(Number(row.list_id));
        lists.set(Number(row.subscriber_id), set);
      }
      return subscribers.map((row) => ({
        ...row,
        id: Number(row.id),
        lists: lists.get(Number(row.id)) ?? new Set(),
      }));
    };

    /** What listSubscribers must answer, from the rows filtered here. */
    const expectSearch = async (filter: SubscriberFilter, page = 1) => {
      const q = (filter.q ?? "").trim().toLowerCase();
      const expected = (await rowsOf(ctx.tenant.id)).filter(
        (row) =>
          (row.email.toLowerCase().includes(q) || row.name.toLowerCase().includes(q)) &&
          (!filter.status || filter.status === "all" || row.status === filter.status) &&
          (!filter.list || row.lists.has(newsletter.id)),
      );
      if (filter.list) expect(filter.list).toBe(newsletter.key);
      const result = await listSubscribers(ctx, filter, page);
      const shown = Math.min(expected.length, SEARCH_COUNT_CAP);
      expect(
        {
          ids: result.items.map((item) => item.id),
          total: result.total,
          capped: result.capped,
          pageCount: result.pageCount,
        },
        JSON.stringify(filter),
      ).toEqual({
        ids: expected
          .slice((page - 1) * SUBSCRIBERS_PAGE_SIZE, page * SUBSCRIBERS_PAGE_SIZE)
          .map((row) => row.id),
        total: shown,
        capped: expected.length > SEARCH_COUNT_CAP,
        pageCount: Math.max(1, Math.ceil(shown / SUBSCRIBERS_PAGE_SIZE)),
      });
      return { result, matching: expected.length };
    };

    const specials = (domain: string): NewSubscriber[] =>
      [
        ["mara.q@quill.test", "Mara QUILLON"],
        [`quillon.fan@${domain}`, "Fan"],
        ["x@quill.test", "Dr. Quillon Jr"],
        ["pure@percent.test", "100% Pure"],
        ["foo_too@under.test", "Foo"],
        ["back@slash.test", "back\\slash"],
        [`vanishing.quokka@${domain}`, "Quokka"],
        ["old.address@moving.test", "Mover"],
      ].map(([email, name]) => ({
        email: email as string,
        name: name as string,
        status: "active",
        subscribed_at: null,
        unsubscribed_at: null,
      }));

    beforeAll(async () => {
      ctx = { db, tenant: main };
      newsletter = (await listTenantLists(db, main)).find(
        (list) => list.key === "newsletter",
      ) as MailingList;
      const now = new Date().toISOString();
      const person = (i: number): NewSubscriber => ({
        email: `reader${i}@example.com`,
        name: i % 2 === 0 ? `Bright Otter ${i}` : `Calm Heron ${i}`,
        status: i % 7 === 0 ? "unsubscribed" : i % 13 === 0 ? "bounced" : "active",
        subscribed_at: now,
        unsubscribed_at: null,
      });
      const mine = await insertSubscribers(
        db,
        main.id,
        [...Array.from({ length: N }, (_, i) => person(i + 1)), ...specials("example.org")],
        now,
      );
      await joinLists(
        db,
        main.id,
        mine
          // readers 1, 5, 9, … and so herons only
          .filter((row) => Number(/^reader(\d+)@/.exec(row.email)?.[1] ?? 0) % 4 === 1)
          .map((row) => ({ subscriberId: row.id, listId: newsletter.id })),
        now,
      );
      // The other tenant: the same names and addresses, which main's searches must never show.
      await insertSubscribers(
        db,
        other.id,
        [...Array.from({ length: 100 }, (_, i) => person(i + 1)), ...specials("example.org")],
        now,
      );
    });

    it("finds a rare term exactly, newest first, case-insensitively, and never another tenant's rows", async () => {
      const { result, matching } = await expectSearch({ q: "quillon" });
      expect(matching).toBe(3);
      expect(result.items.map((item) => item.email)).toEqual([
        "x@quill.test",
        "quillon.fan@example.org",
        "mara.q@quill.test",
      ]);
      const theirs = await db
        .selectFrom("subscribers")
        .select("id")
        .where("tenant_id", "=", other.id)
        .execute();
      const theirIds = new Set(theirs.map((row) => Number(row.id)));
      expect(result.items.filter((item) => theirIds.has(item.id))).toEqual([]);
      expect((await listSubscribers({ db, tenant: other }, { q: "QUILLON" })).total).toBe(3);

      expect((await expectSearch({ q: "  QuIlLoN " })).matching).toBe(3);
      expect((await expectSearch({ q: "HERON 1" })).matching).toBe(581);
      await expectSearch({ q: "HERON 1" }, 12);
      expect((await expectSearch({ q: "READER4207@" })).matching).toBe(1);
      expect((await expectSearch({ q: "jR" })).matching).toBe(1);
      expect((await expectSearch({ q: "heron 1", status: "bounced" })).matching).toBeGreaterThan(0);
      expect((await expectSearch({ q: "heron 1", list: newsletter.key })).matching).toBeGreaterThan(
        0,
      );
      expect((await expectSearch({ q: "no such person" })).matching).toBe(0);
      const selected = await selectedSubscriberIds(ctx, { q: "quillon" });
      expect(selected.sort((a, b) => a - b)).toEqual(
        result.items.map((item) => item.id).sort((a, b) => a - b),
      );
    });

    it("answers a common term (over 5,000 trigram matches) with the same rows and an exact count", async () => {
      expect((await expectSearch({ q: "otter" })).matching).toBe(N / 2);
      await expectSearch({ q: "otter" }, 2);
      await expectSearch({ q: "Otter" }, 100);
      expect((await expectSearch({ q: "otter", status: "unsubscribed" })).matching).toBe(
        Math.floor(N / 14),
      );
      await expectSearch({ q: "heron", list: newsletter.key });
    });

    it(`stops counting at ${SEARCH_COUNT_CAP.toLocaleString("en-US")} and says so`, async () => {
      const { result, matching } = await expectSearch({ q: "example" });
      expect(matching).toBeGreaterThan(SEARCH_COUNT_CAP);
      expect(result).toMatchObject({ total: SEARCH_COUNT_CAP, capped: true, pageCount: 200 });
      await expectSearch({ q: "example" }, 3);
      await expectSearch({ q: "example" }, 201);
      // Under the cap: exact and not capped, even with a filter beside the term.
      const unsubscribed = await expectSearch({ q: "example", status: "unsubscribed" });
      expect(unsubscribed.matching).toBe(Math.floor(N / 7));
      expect(unsubscribed.result.capped).toBe(false);
    });

    it("takes %, _ and \\ literally", async () => {
      expect((await expectSearch({ q: "0%" })).matching).toBe(1);
      expect((await expectSearch({ q: "%" })).matching).toBe(1);
      expect((await expectSearch({ q: "o_t" })).matching).toBe(1);
      expect((await expectSearch({ q: "_" })).matching).toBe(1);
      expect((await expectSearch({ q: "k\\s" })).matching).toBe(1);
      expect((await expectSearch({ q: "\\" })).matching).toBe(1);
    });

    it("forgets an erased subscriber's address and a changed one's old address", async () => {
      const now = new Date().toISOString();
      expect((await expectSearch({ q: "quokka" })).matching).toBe(1);
      const [quokka] = await selectedSubscriberIds(ctx, { q: "quokka" });
      await eraseSubscriberRows(db, main.id, [quokka as number], now);
      expect((await expectSearch({ q: "quokka" })).matching).toBe(0);
      expect((await expectSearch({ q: "erased.invalid" })).matching).toBe(0);
      expect((await expectSearch({ q: `erased-${quokka}` })).matching).toBe(0);
      // still the other tenant's
      expect((await listSubscribers({ db, tenant: other }, { q: "quokka" })).total).toBe(1);

      const [mover] = await selectedSubscriberIds(ctx, { q: "old.address" });
      await changeEmail(db, main.id, mover as number, "new.address@moved.test", now);
      expect((await expectSearch({ q: "old.address" })).matching).toBe(0);
      expect((await expectSearch({ q: "new.address" })).matching).toBe(1);
      expect((await expectSearch({ q: "moving.test" })).matching).toBe(0);
    });
  });

  describe("imports as jobs", () => {
    let tenant: TenantConfig;
    let ctx: { db: Db; tenant: TenantConfig };

    /** The tenant's subscribers whose address starts with `prefix`, by address. */
    const storedOf = async (prefix: string): Promise<Map<string, Stored>> => {
      const rows = await db
        .selectFrom("subscribers")
        .select(["id", "email", "name", "status"])
        .where("tenant_id", "=", tenant.id)
        .where("email", "like", `${prefix}%`)
        .execute();
      const keys = await db
        .selectFrom("subscriptions")
        .innerJoin("lists", "lists.id", "subscriptions.list_id")
        .innerJoin("subscribers", "subscribers.id", "subscriptions.subscriber_id")
        .select(["subscribers.email", "lists.key"])
        .where("subscriptions.tenant_id", "=", tenant.id)
        .where("lists.tenant_id", "=", tenant.id)
        .where("subscribers.tenant_id", "=", tenant.id)
        .where("subscribers.email", "like", `${prefix}%`)
        .execute();
      const stored = new Map<string, Stored>();
      for (const row of rows) {
        stored.set(row.email, { name: row.name, status: row.status, lists: [] });
      }
      for (const row of keys) stored.get(row.email)?.lists.push(row.key);
      for (const each of stored.values()) each.lists.sort();
      return stored;
    };

    /** A file of `n` new people: every third on industry-news, every third on two lists, the rest
     * on none (the default list); every 20th unsubscribed. */
    const plainFile = (prefix: string, n: number) => {
      const rows: string[][] = [];
      const expected = new Map<string, Stored>();
      for (let k = 0; k < n; k++) {
        const lists = ["industry-news", "newsletter;product-updates", ""][k % 3] as string;
        const status = k % 20 === 7 ? "unsubscribed" : "";
        rows.push([`${prefix}${k}@import.test`, `Imported ${k}`, lists, status]);
        expected.set(`${prefix}${k}@import.test`, {
          name: `Imported ${k}`,
          status: status === "unsubscribed" ? "unsubscribed" : "active",
          lists: status === "unsubscribed" ? [] : lists ? lists.split(";").sort() : ["newsletter"],
        });
      }
      return { text: csvOf(rows), expected };
    };

    const signedUpEvents = async (prefix: string) => {
      const row = await db
        .selectFrom("subscriber_events")
        .innerJoin("subscribers", "subscribers.id", "subscriber_events.subscriber_id")
        .select((eb) => [
          eb.fn.countAll<number>().as("events"),
          eb.fn.count<number>("subscriber_events.subscriber_id").distinct().as("people"),
        ])
        .where("subscriber_events.tenant_id", "=", tenant.id)
        .where("subscribers.tenant_id", "=", tenant.id)
        .where("subscriber_events.kind", "=", "signed-up")
        .where("subscribers.email", "like", `${prefix}%`)
        .executeTakeFirstOrThrow();
      return { events: Number(row.events), people: Number(row.people) };
    };

    const jobRow = (id: number) =>
      db
        .selectFrom("subscriber_imports")
        .select(["status", "claimed_by", "done_through_line", "done_rows", "csv"])
        .where("tenant_id", "=", tenant.id)
        .where("id", "=", id)
        .executeTakeFirstOrThrow();

    beforeAll(async () => {
      tenant = await tenantConfig("importing", "Importing");
      ctx = { db, tenant };
    });

    it("queues a 5,000-row file with its refused rows, then writes it to the end", async () => {
      const now = new Date().toISOString();
      const existing = await insertSubscribers(
        db,
        tenant.id,
        [
          ["imp0@import.test", "unsubscribed"],
          ["imp1@import.test", "active"],
          ["imp2@import.test", "bounced"],
        ].map(([email, status]) => ({
          email: email as string,
          name: "Known",
          status: status as SubscriberStatus,
          subscribed_at: null,
          unsubscribed_at: null,
        })),
        now,
      );
      const updatesList = (await listTenantLists(db, tenant)).find(
        (list) => list.key === "product-updates",
      ) as MailingList;
      await joinLists(
        db,
        tenant.id,
        [{ subscriberId: existing[1]?.id as number, listId: updatesList.id }],
        now,
      );

      const rows: string[][] = [];
      const expected = new Map<string, Stored>();
      const refusedLines: number[] = [];
      for (let k = 0; k < 5_000; k++) {
        const line = k + 2;
        const email = `imp${k}@import.test`;
        const lists = ["industry-news", "newsletter;product-updates", ""][k % 3] as string;
        const status = k % 20 === 7 ? "unsubscribed" : "";
        if (k % 500 === 499) {
          rows.push([`broken-${k}`, "Broken", "", ""]);
          refusedLines.push(line);
        } else if (k === 1001) {
          rows.push(["imp1000@import.test", "Twice", "", ""]);
          refusedLines.push(line);
        } else if (k === 2222) {
          rows.push([email, "Lost", "no-such-list", ""]);
          refusedLines.push(line);
        } else if (k === 3333) {
          rows.push([email, "Unsure", "", "unconfirmed"]);
          refusedLines.push(line);
        } else {
          rows.push([email, `Imported ${k}`, lists, status]);
          expected.set(email, {
            name: `Imported ${k}`,
            status: status === "unsubscribed" ? "unsubscribed" : "active",
            lists:
              status === "unsubscribed" ? [] : lists ? lists.split(";").sort() : ["newsletter"],
          });
        }
      }
      // The known people: an unsubscribed one stays so (and off the lists), a bounced one keeps
      // its status and joins the default list, an active one's lists are replaced.
      expected.set("imp0@import.test", { name: "Imported 0", status: "unsubscribed", lists: [] });
      expected.set("imp2@import.test", {
        name: "Imported 2",
        status: "bounced",
        lists: ["newsletter"],
      });
      const valid = 5_000 - refusedLines.length;
      expect(expected.size).toBe(valid);

      const jobId = await queueImport(ctx, "editor@example.com", "audience.csv", csvOf(rows));
      const queued = await getImport(ctx, jobId);
      expect(queued).toMatchObject({
        fileName: "audience.csv",
        status: "queued",
        totalRows: valid,
        doneRows: 0,
        created: 0,
        refusedCount: refusedLines.length,
        createdBy: "editor@example.com",
        error: null,
        finishedAt: null,
      });
      expect(queued.refused.map((row) => row.line)).toEqual(refusedLines);
      expect(queued.refused.find((row) => row.line === 1003)?.reason).toMatch(/Duplicate email/);
      expect(queued.refused.find((row) => row.line === 2224)?.reason).toMatch(/Unknown list/);
      expect(await storedOf("imp")).toHaveProperty("size", 3);

      const job = await claimImport(db, "worker-1");
      expect(job).toEqual({ id: jobId, tenantId: tenant.id });
      expect(await claimImport(db, "worker-2")).toBeNull();
      await runImport(db, job as { id: number; tenantId: string }, "worker-1");

      const done = await getImport(ctx, jobId);
      expect(done).toMatchObject({
        status: "done",
        totalRows: valid,
        doneRows: valid,
        created: valid - 3,
        updated: 3,
        keptUnsubscribed: 1,
        refusedCount: refusedLines.length,
        error: null,
      });
      expect(done.finishedAt).not.toBeNull();
      expect(await jobRow(jobId)).toMatchObject({ csv: "", claimed_by: null });
      expect(await storedOf("imp")).toEqual(expected);
      expect(await signedUpEvents("imp")).toEqual({ events: valid - 3, people: valid - 3 });
      const counts = await expectExactCounts(tenant, "after the import");
      expect(counts.all.active).toBe(
        [...expected.values()].filter((e) => e.status === "active").length,
      );
      expect(await claimImport(db, "worker-1")).toBeNull();
      expect((await recentImports(ctx)).map((each) => each.id)).toEqual([jobId]);
    });

    it("stops between chunks when asked and resumes after the last chunk written", async () => {
      const { text, expected } = plainFile("resume", 4_500);
      const jobId = await queueImport(ctx, "editor@example.com", "resume.csv", text);
      const first = await claimImport(db, "worker-1");
      expect(first).toEqual({ id: jobId, tenantId: tenant.id });
      let asked = 0;
      await runImport(db, first as { id: number; tenantId: string }, "worker-1", () => asked++ < 1);

      const paused = await getImport(ctx, jobId);
      expect(paused).toMatchObject({
        status: "queued",
        doneRows: IMPORT_CHUNK_ROWS,
        created: IMPORT_CHUNK_ROWS,
        finishedAt: null,
      });
      expect(await jobRow(jobId)).toMatchObject({
        claimed_by: null,
        done_through_line: IMPORT_CHUNK_ROWS + 1,
      });
      expect((await storedOf("resume")).size).toBe(IMPORT_CHUNK_ROWS);
      await expectExactCounts(tenant, "paused import");

      const second = await claimImport(db, "worker-2");
      expect(second).toEqual({ id: jobId, tenantId: tenant.id });
      await runImport(db, second as { id: number; tenantId: string }, "worker-2");
      expect(await getImport(ctx, jobId)).toMatchObject({
        status: "done",
        totalRows: 4_500,
        doneRows: 4_500,
        created: 4_500,
        updated: 0,
      });
      expect(await storedOf("resume")).toEqual(expected);
      expect(await signedUpEvents("resume")).toEqual({ events: 4_500, people: 4_500 });
      await expectExactCounts(tenant, "resumed import");
    });

    it("lets a worker take over a silent one's job; the silent one then writes nothing", async () => {
      const { text, expected } = plainFile("takeover", 3_000);
      const jobId = await queueImport(ctx, "editor@example.com", "takeover.csv", text);
      const a = await claimImport(db, "worker-a");
      expect(a).toEqual({ id: jobId, tenantId: tenant.id });
      // Not yet stale for anyone.
      expect(await claimImport(db, "worker-b")).toBeNull();
      const later = new Date(Date.now() + IMPORT_STALE_MS + 1_000);
      const b = await claimImport(db, "worker-b", later);
      expect(b).toEqual({ id: jobId, tenantId: tenant.id });
      expect(await claimImport(db, "worker-c", later)).toBeNull();

      await runImport(db, a as { id: number; tenantId: string }, "worker-a");
      expect(await jobRow(jobId)).toMatchObject({
        status: "running",
        claimed_by: "worker-b",
        done_rows: 0,
      });
      expect((await storedOf("takeover")).size).toBe(0);
      await expectExactCounts(tenant, "taken over, before the new worker ran");

      await runImport(db, b as { id: number; tenantId: string }, "worker-b");
      await runImport(db, a as { id: number; tenantId: string }, "worker-a");
      expect(await getImport(ctx, jobId)).toMatchObject({
        status: "done",
        doneRows: 3_000,
        created: 3_000,
        updated: 0,
      });
      expect(await storedOf("takeover")).toEqual(expected);
      expect(await signedUpEvents("takeover")).toEqual({ events: 3_000, people: 3_000 });
      await expectExactCounts(tenant, "taken over");
    });

    it("takes over a job whose worker died after a chunk, from that chunk on", async () => {
      const { text, expected } = plainFile("crashed", 4_100);
      const jobId = await queueImport(ctx, "editor@example.com", "crashed.csv", text);
      const a = (await claimImport(db, "worker-a")) as { id: number; tenantId: string };
      let asked = 0;
      await runImport(db, a, "worker-a", () => asked++ < 1);
      // As if worker-a had died instead of stopping: the job still running under its name.
      const heartbeat = new Date().toISOString();
      await db
        .updateTable("subscriber_imports")
        .set({ status: "running", claimed_by: "worker-a", heartbeat_at: heartbeat })
        .where("tenant_id", "=", tenant.id)
        .where("id", "=", jobId)
        .execute();
      expect(await claimImport(db, "worker-b")).toBeNull();
      const b = await claimImport(db, "worker-b", new Date(Date.now() + IMPORT_STALE_MS + 1_000));
      expect(b).toEqual({ id: jobId, tenantId: tenant.id });
      await runImport(db, b as { id: number; tenantId: string }, "worker-b");
      await runImport(db, a, "worker-a");
      expect(await getImport(ctx, jobId)).toMatchObject({
        status: "done",
        doneRows: 4_100,
        created: 4_100,
        updated: 0,
      });
      expect(await storedOf("crashed")).toEqual(expected);
      expect(await signedUpEvents("crashed")).toEqual({ events: 4_100, people: 4_100 });
      await expectExactCounts(tenant, "crashed worker's job finished");
    });

    it("fails on a database error, keeping the chunks written; the same file again finishes it", async () => {
      const rows = Array.from({ length: 5_000 }, (_, k) => [
        `fail${k}@import.test`,
        `Failing ${k}`,
        k % 2 === 0 ? "industry-news" : "",
        "",
      ]);
      const text = csvOf(rows);
      const jobId = await queueImport(ctx, "editor@example.com", "fail.csv", text);
      // The database refuses the second chunk's memberships (its subscribers and events are
      // written by then, inside the chunk's transaction): the first chunk's progress has been
      // saved once a subscriber_imports update has set done_rows. The runner works on a database
      // bound to the job's tenant (binding the root one would leave this plugin out): it is given
      // one already bound, with the fault.
      let chunksSaved = 0;
      const failing = tenantDb(db, ctx.tenant.id).withPlugin({
        transformQuery({ node }) {
          if (
            UpdateQueryNode.is(node) &&
            (node.updates ?? []).some(
              (update) => ColumnNode.is(update.column) && update.column.column.name === "done_rows",
            )
          ) {
            chunksSaved++;
          }
          if (
            InsertQueryNode.is(node) &&
            node.into?.table.identifier.name === "subscriptions" &&
            chunksSaved === 1
          ) {
            throw new Error("disk full");
          }
          return node;
        },
        transformResult: async ({ result }) => result,
      });
      const job = (await claimImport(db, "worker-1")) as { id: number; tenantId: string };
      expect(job.id).toBe(jobId);
      await expect(runImport(failing, job, "worker-1")).rejects.toThrow("disk full");
      const failed = await getImport(ctx, jobId);
      expect(failed).toMatchObject({
        status: "failed",
        doneRows: IMPORT_CHUNK_ROWS,
        created: IMPORT_CHUNK_ROWS,
      });
      expect(failed.error).toMatch(/database error/);
      expect(failed.finishedAt).not.toBeNull();
      expect(await jobRow(jobId)).toMatchObject({ claimed_by: null, csv: "" });
      const written = await storedOf("fail");
      expect(written.size).toBe(IMPORT_CHUNK_ROWS);
      expect([...written.values()].filter((row) => row.lists.length === 1).length).toBe(
        IMPORT_CHUNK_ROWS,
      );
      expect(await signedUpEvents("fail")).toEqual({
        events: IMPORT_CHUNK_ROWS,
        people: IMPORT_CHUNK_ROWS,
      });
      await expectExactCounts(tenant, "failed import");
      expect(await claimImport(db, "worker-1")).toBeNull();

      const again = await queueImport(ctx, "editor@example.com", "fail.csv", text);
      const retry = (await claimImport(db, "worker-1")) as { id: number; tenantId: string };
      expect(retry.id).toBe(again);
      await runImport(db, retry, "worker-1");
      expect(await getImport(ctx, again)).toMatchObject({
        status: "done",
        created: 5_000 - IMPORT_CHUNK_ROWS,
        updated: IMPORT_CHUNK_ROWS,
      });
      expect((await storedOf("fail")).size).toBe(5_000);
      expect(await signedUpEvents("fail")).toEqual({ events: 5_000, people: 5_000 });
      await expectExactCounts(tenant, "failed import finished by a second one");
    });

    it("counts rows refused at run time (a list deleted since the upload) out of the total", async () => {
      const { id: listId, key } = await createList(db, tenant, {
        name: "Goes away",
        description: "",
        visibility: "public",
      });
      const rows = Array.from(
        { length: 10 },
        (_, i) => `goes-away-${i}@example.com,${i < 3 ? key : ""}`,
      );
      const id = await queueImport(
        ctx,
        "editor@example.com",
        "goes-away.csv",
        `email,lists\n${rows.join("\n")}\n`,
      );
      expect(await getImport(ctx, id)).toMatchObject({ totalRows: 10, refusedCount: 0 });
      await deleteList(db, tenant, listId);
      const job = (await claimImport(db, "worker-1")) as { id: number; tenantId: string };
      await runImport(db, job, "worker-1");
      expect(await getImport(ctx, id)).toMatchObject({
        status: "done",
        totalRows: 7,
        doneRows: 7,
        created: 7,
        refusedCount: 3,
      });
    });

    it("refuses a file without an email column or without rows, queueing nothing", async () => {
      const before = await recentImports(ctx, 100);
      await expect(
        queueImport(ctx, "editor@example.com", "x.csv", "name,lists\nSomeone,newsletter\n"),
      ).rejects.toBeInstanceOf(ImportFileError);
      await expect(queueImport(ctx, "editor@example.com", "x.csv", "email\n")).rejects.toThrow(
        ImportFileError,
      );
      expect(await recentImports(ctx, 100)).toEqual(before);

      // Only refused rows: nothing to write, the job done at once with its report.
      const id = await queueImport(ctx, "editor@example.com", "bad.csv", "email\nnot-an-email\n");
      expect(await getImport(ctx, id)).toMatchObject({
        status: "done",
        totalRows: 0,
        refusedCount: 1,
      });
      expect(await claimImport(db, "worker-1")).toBeNull();
    });

    it("keeps a tenant's jobs from another tenant", async () => {
      const [latest] = await recentImports(ctx);
      const id = latest?.id as number;
      await expect(getImport({ db, tenant: other }, id)).rejects.toBeInstanceOf(ImportNotFound);
      expect(await recentImports({ db, tenant: other })).toEqual([]);
      expect((await getImport(ctx, id)).id).toBe(id);
    });

    it("runs queued jobs in the background worker", async () => {
      const { text, expected } = plainFile("worker", 300);
      const worker = new JobRunner({
        db,
        logger: pino({ level: "silent" }),
        definitions: [audienceImportJob],
      }).start();
      try {
        const jobId = await queueImport(ctx, "editor@example.com", "worker.csv", text);
        worker.poke();
        await vi.waitFor(async () => expect((await getImport(ctx, jobId)).status).toBe("done"), {
          timeout: scaled(20_000),
          interval: 50,
        });
        expect(await getImport(ctx, jobId)).toMatchObject({ created: 300, doneRows: 300 });
      } finally {
        await worker.stop();
      }
      expect(await storedOf("worker")).toEqual(expected);
      await expectExactCounts(tenant, "worker's import");
    });
  });
});
