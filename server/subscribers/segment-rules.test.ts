import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SegmentRule, segmentRuleSchema } from "../../shared/schemas/segment";
import { createTestDatabase, type TestDatabase, testDialects } from "../../tests/support/database";
import { migrateToLatest } from "../db/migrate";
import type { SubscriberStatus } from "../db/schema";
import { tenantDb } from "../db/tenant-guard";
import { seedTenants } from "../tenants/seed";
import { getTenant } from "../tenants/store";
import { createField, setFieldValues } from "./fields";
import { listTenantLists } from "./lists";
import { countSegment } from "./segment-counts";
import { numberFieldKeys, segmentCondition } from "./segment-sql";
import { checkSegmentRule, SegmentError, segmentRuleProblem } from "./segments";
import { eraseSubscriberRows, insertSubscriber, joinLists } from "./store";

/*
 * Segment rules → queries, on a real database (SQLite, and PostgreSQL with TEST_DATABASE_URL). Each
 * rule is asked two ways: the SQL condition a campaign's queue uses (segmentCondition) and the
 * live count (countSegment, which answers from the kept counts, from one field's values, from a
 * field's values with the rest as conditions, or from the rule's SQL, depending on the rule).
 * Both must give the people the rule names, written out by hand below.
 */

interface Person {
  email: string;
  status: SubscriberStatus;
  lists: string[];
  created: string;
  values: Record<string, string>;
}

// score is a number field, plan a text field, joined a date field.
const PEOPLE: Person[] = [
  {
    email: "a@example.com",
    status: "active",
    lists: ["newsletter"],
    created: "2026-01-10T09:00:00.000Z",
    values: { score: "10", plan: "pro", joined: "2026-01-15" },
  },
  {
    email: "b@example.com",
    status: "active",
    lists: ["newsletter", "industry-news"],
    created: "2026-02-01T00:00:00.000Z",
    values: { score: "9", plan: "free 500", joined: "2026-02-20" },
  },
  {
    email: "c@example.com",
    status: "unsubscribed",
    lists: [],
    created: "2026-02-15T23:59:59.000Z",
    values: { score: "100", plan: "Pro plan" },
  },
  {
    email: "d@example.com",
    status: "active",
    lists: ["industry-news"],
    created: "2026-03-01T12:00:00.000Z",
    values: {},
  },
  {
    email: "e@example.com",
    status: "bounced",
    lists: [],
    created: "2026-03-02T12:00:00.000Z",
    values: { score: "-5", plan: "50% off" },
  },
  {
    email: "f@example.com",
    status: "active",
    lists: ["newsletter"],
    created: "2026-04-01T12:00:00.000Z",
    values: { plan: "pro_plan" },
  },
];
const ACTIVE = new Set(PEOPLE.filter((p) => p.status === "active").map((p) => p.email));

/** A rule with the form's defaults; `fields` as [key, op, value]. */
function rule(
  input: Partial<Omit<SegmentRule, "fields">> & { fields?: [string, string, string][] },
) {
  return segmentRuleSchema.parse({
    ...input,
    fields: (input.fields ?? []).map(([key, op, value]) => ({ key, op, value })),
  });
}

describe.each(testDialects())("segment rules on %s", (dialect) => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    const db = database.db;
    await migrateToLatest(db);
    await seedTenants(db);
    for (const tenantId of ["main", "keydiscovery"]) {
      await createField(db, tenantId, { label: "Score", type: "number", choices: [] });
      await createField(db, tenantId, { label: "Plan", type: "text", choices: [] });
      await createField(db, tenantId, { label: "Joined", type: "date", choices: [] });
    }
    const add = async (tenantId: string, person: Person) => {
      const tenant = (await getTenant(db, tenantId)).config;
      const lists = await listTenantLists(db, tenant);
      const id = await insertSubscriber(
        db,
        tenantId,
        {
          email: person.email,
          name: "",
          status: person.status,
          subscribed_at: person.status === "active" ? person.created : null,
          unsubscribed_at: null,
          created_at: person.created,
        },
        person.created,
      );
      await joinLists(
        db,
        tenantId,
        lists
          .filter((list) => person.lists.includes(list.key))
          .map((list) => ({ subscriberId: id, listId: list.id })),
        person.created,
      );
      await setFieldValues(db, tenantId, id, person.values);
      return id;
    };
    const ids = new Map<string, number>();
    for (const person of PEOPLE) ids.set(person.email, await add("main", person));
    await activity(db, ids);
    // Never counted: another tenant's subscriber matching everything, and an erased one whose
    // values are still there.
    await add("keydiscovery", { ...PEOPLE[0], email: "other@example.com" } as Person);
    const erased = await add("main", { ...PEOPLE[0], email: "erased@example.com" } as Person);
    await eraseSubscriberRows(db, "main", [erased], new Date().toISOString());
  });

  /**
   * Opens and clicks of one campaign: a opened 5 days ago, b 40 days ago, c's open was a mail
   * scanner's (machine), d clicked 2 days ago. e and f were sent nothing.
   */
  async function activity(db: TestDatabase["db"], ids: Map<string, number>) {
    const now = new Date().toISOString();
    const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();
    await db
      .insertInto("campaigns")
      .values({
        id: "c1",
        tenant_id: "main",
        newsletter_id: null,
        name: "Spring",
        subject: "Spring",
        from_name: "Herald",
        from_email: "news@example.com",
        content: "<p>Hi</p>",
        list_ids: "[]",
        track_opens: 1,
        track_clicks: 1,
        status: "sent",
        scheduled_at: null,
        started_at: now,
        finished_at: now,
        created_by: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    const events: [string, "open" | "click", string, number][] = [
      ["a", "open", daysAgo(5), 0],
      ["b", "open", daysAgo(40), 0],
      ["c", "open", daysAgo(1), 1],
      ["d", "click", daysAgo(2), 0],
    ];
    for (const [name, kind, at, machine] of events) {
      const email = `${name}@example.com`;
      const { id } = await db
        .insertInto("deliveries")
        .values({
          tenant_id: "main",
          campaign_id: "c1",
          subscriber_id: ids.get(email) ?? 0,
          email,
          status: "sent",
          next_attempt_at: at,
          claimed_by: null,
          claimed_at: null,
          message_id: null,
          error: null,
          sent_at: at,
          bounced_at: null,
          complained_at: null,
          feedback: null,
        })
        .returning("id")
        .executeTakeFirstOrThrow();
      await db
        .insertInto("campaign_events")
        .values({
          tenant_id: "main",
          campaign_id: "c1",
          delivery_id: id,
          kind,
          url: kind === "click" ? "https://example.com/" : null,
          created_at: at,
          machine,
        })
        .execute();
    }
  }

  afterAll(async () => {
    await database?.drop();
  });

  /** The addresses the rule's SQL condition selects. */
  async function selected(segment: SegmentRule): Promise<string[]> {
    const numbers = await numberFieldKeys(database.db, "main");
    const rows = await tenantDb(database.db, "main")
      .selectFrom("subscribers")
      .select("email")
      .where("subscribers.erased_at", "is", null)
      .where((eb) => segmentCondition(eb, segment, numbers))
      .orderBy("email")
      .execute();
    return rows.map((row) => row.email);
  }

  const cases: [string, SegmentRule, string[]][] = [
    ["no condition: everyone", rule({}), ["a", "b", "c", "d", "e", "f"]],
    ["one list", rule({ lists: ["newsletter"] }), ["a", "b", "f"]],
    ["two lists: either", rule({ lists: ["newsletter", "industry-news"] }), ["a", "b", "d", "f"]],
    ["a list and a status", rule({ lists: ["industry-news"], statuses: ["active"] }), ["b", "d"]],
    ["statuses", rule({ statuses: ["unsubscribed", "bounced"] }), ["c", "e"]],
    ["a number, compared as a number", rule({ fields: [["score", "greater", "9.5"]] }), ["a", "c"]],
    ["less than a number", rule({ fields: [["score", "less", "10"]] }), ["b", "e"]],
    ["text equal (case counts)", rule({ fields: [["plan", "is", "pro"]] }), ["a"]],
    [
      "not equal: those without a value too",
      rule({ fields: [["plan", "is-not", "pro"]] }),
      ["b", "c", "d", "e", "f"],
    ],
    ["contains, any case", rule({ fields: [["plan", "contains", "PRO"]] }), ["a", "c", "f"]],
    ["contains: _ is a character", rule({ fields: [["plan", "contains", "o_p"]] }), ["f"]],
    ["contains: % is a character", rule({ fields: [["plan", "contains", "50%"]] }), ["e"]],
    ["has a value", rule({ fields: [["plan", "set", ""]] }), ["a", "b", "c", "e", "f"]],
    ["has no value", rule({ fields: [["score", "unset", ""]] }), ["d", "f"]],
    ["a date field", rule({ fields: [["joined", "greater", "2026-01-31"]] }), ["b"]],
    ["signed up on or after", rule({ signedUpAfter: "2026-02-01" }), ["b", "c", "d", "e", "f"]],
    [
      "signed up before, its own day included",
      rule({ signedUpBefore: "2026-02-15" }),
      ["a", "b", "c"],
    ],
    [
      "a field and a list",
      rule({ lists: ["industry-news"], fields: [["score", "less", "50"]] }),
      ["b"],
    ],
    [
      "two fields",
      rule({
        fields: [
          ["plan", "contains", "pro"],
          ["score", "greater", "5"],
        ],
      }),
      ["a", "c"],
    ],
    [
      "two fields and a status",
      rule({
        statuses: ["active"],
        fields: [
          ["plan", "contains", "pro"],
          ["score", "greater", "5"],
        ],
      }),
      ["a"],
    ],
    [
      "a negated field beside another",
      rule({
        fields: [
          ["plan", "is-not", "pro"],
          ["score", "greater", "0"],
        ],
      }),
      ["b", "c"],
    ],
    [
      "a field and a sign-up date",
      rule({ signedUpAfter: "2026-02-10", fields: [["score", "greater", "0"]] }),
      ["c"],
    ],
    [
      "a number rule saved before numbers were checked",
      rule({ fields: [["score", "greater", "abc"]] }),
      [],
    ],
    ["a list of no such key", rule({ lists: ["nope"] }), []],
    [
      "opened lately (a mail scanner's open is no one's)",
      rule({ activity: { kind: "opened", days: 30 } }),
      ["a"],
    ],
    ["opened within a longer time", rule({ activity: { kind: "opened", days: 60 } }), ["a", "b"]],
    ["never opened", rule({ activity: { kind: "never-opened" } }), ["c", "d", "e", "f"]],
    ["clicked lately", rule({ activity: { kind: "clicked", days: 30 } }), ["d"]],
    [
      "never clicked, on a list",
      rule({ lists: ["newsletter"], activity: { kind: "never-clicked" } }),
      ["a", "b", "f"],
    ],
  ];

  it.each(cases)("%s: the SQL and the count agree with the rule", async (_, segment, expected) => {
    const emails = expected.map((name) => `${name}@example.com`);
    expect(await selected(segment)).toEqual(emails);
    expect(await countSegment(database.db, "main", segment)).toEqual({
      matching: emails.length,
      active: emails.filter((email) => ACTIVE.has(email)).length,
    });
  });

  it("refuses rules about unknown fields, and comparisons a field's type cannot make", async () => {
    const check = (segment: SegmentRule) => checkSegmentRule(database.db, "main", segment);
    await expect(check(rule({ fields: [["gone", "is", "x"]] }))).rejects.toThrow(
      "Choose fields from the list",
    );
    await expect(check(rule({ fields: [["score", "greater", "abc"]] }))).rejects.toThrow(
      "Compare Score with a number",
    );
    await expect(check(rule({ fields: [["joined", "less", "2026-02-30"]] }))).rejects.toThrow(
      "Compare Joined with a date (YYYY-MM-DD)",
    );
    await expect(check(rule({ fields: [["score", "greater", "abc"]] }))).rejects.toBeInstanceOf(
      SegmentError,
    );
    // Numbers are kept as a number field stores them; text comparisons stay as typed.
    const checked = await check(
      rule({
        fields: [
          ["score", "greater", "1,000"],
          ["plan", "greater", "abc"],
        ],
      }),
    );
    expect(checked.fields.map((field) => field.value)).toEqual(["1000", "abc"]);
    expect(
      await segmentRuleProblem(database.db, "main", rule({ fields: [["gone", "set", ""]] })),
    ).toBe("Choose fields from the list");
    expect(
      await segmentRuleProblem(database.db, "main", rule({ lists: ["newsletter"] })),
    ).toBeNull();
  });
});
