import { type SegmentRule, segmentRuleSchema } from "../../shared/schemas/segment";
import type { Db } from "../db";
import { tenantDb } from "../db/tenant-guard";
import { listFields } from "./fields";
import { numberFieldKeys } from "./segment-sql";

/*
 * Segments (issue 16, point 4): saved filters of a tenant's audience, counted live
 * (segment-counts.ts) and usable as a campaign's audience beside lists (segment-sql.ts turns a
 * rule into SQL). The one writer of `segments`.
 */

export interface Segment {
  id: number;
  name: string;
  rule: SegmentRule;
}

export class SegmentError extends Error {
  constructor(
    message: string,
    readonly status: 400 | 404 | 409 = 400,
  ) {
    super(message);
  }
}

const toSegment = (row: { id: number; name: string; rule: string }): Segment => ({
  id: row.id,
  name: row.name,
  rule: segmentRuleSchema.parse(JSON.parse(row.rule)),
});

export async function listSegments(root: Db, tenantId: string): Promise<Segment[]> {
  const rows = await tenantDb(root, tenantId)
    .selectFrom("segments")
    .select(["id", "name", "rule"])
    .orderBy("name")
    .execute();
  return rows.map(toSegment);
}

export async function getSegment(root: Db, tenantId: string, id: number): Promise<Segment> {
  const row = await tenantDb(root, tenantId)
    .selectFrom("segments")
    .select(["id", "name", "rule"])
    .where("id", "=", id)
    .executeTakeFirst();
  if (!row) throw new SegmentError("Segment not found", 404);
  return toSegment(row);
}

/** A number as the value of a number field is stored (plain decimal), or null. */
function numberText(text: string): string | null {
  if (!/^[-+]?(\d[\d,]*\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(text.trim())) return null;
  const number = Number(text.trim().replaceAll(",", ""));
  return Number.isFinite(number) ? String(number) : null;
}

function isDayText(text: string): boolean {
  const date = /^\d{4}-\d{2}-\d{2}$/.test(text) ? new Date(`${text}T00:00:00Z`) : null;
  return date !== null && !Number.isNaN(date.getTime()) && date.toISOString().startsWith(text);
}

/**
 * Fields a rule names must exist (a rule about a deleted field would match nobody silently), and a
 * comparison with a number or date field needs a number or a date (issue 32, finding 6: "greater
 * than abc" was saved, and PostgreSQL's CAST then failed every page that counted the segment).
 * Numbers come back as they are stored ("1,000" → "1000").
 */
export async function checkSegmentRule(
  db: Db,
  tenantId: string,
  rule: SegmentRule,
): Promise<SegmentRule> {
  const fields = new Map((await listFields(db, tenantId)).map((field) => [field.key, field]));
  const conditions = rule.fields.map((condition) => {
    const field = fields.get(condition.key);
    if (!field) throw new SegmentError("Choose fields from the list");
    if (condition.op !== "greater" && condition.op !== "less") return condition;
    if (field.type === "number") {
      const value = numberText(condition.value);
      if (value === null) throw new SegmentError(`Compare ${field.label} with a number`);
      return { ...condition, value };
    }
    if (field.type === "date" && !isDayText(condition.value)) {
      throw new SegmentError(`Compare ${field.label} with a date (YYYY-MM-DD)`);
    }
    return condition;
  });
  return { ...rule, fields: conditions };
}

/** Why a saved rule can no longer be used (a field gone, a comparison saved before the checks), or null. */
export async function segmentRuleProblem(
  db: Db,
  tenantId: string,
  rule: SegmentRule,
): Promise<string | null> {
  try {
    await checkSegmentRule(db, tenantId, rule);
    return null;
  } catch (error) {
    if (error instanceof SegmentError) return error.message;
    throw error;
  }
}

export async function saveSegment(
  root: Db,
  tenantId: string,
  input: { id?: number; name: string; rule: SegmentRule },
): Promise<number> {
  const db = tenantDb(root, tenantId);
  const rule = JSON.stringify(await checkSegmentRule(db, tenantId, input.rule));
  const now = new Date().toISOString();
  if (input.id === undefined) {
    const { id } = await db
      .insertInto("segments")
      .values({ tenant_id: tenantId, name: input.name, rule, created_at: now, updated_at: now })
      .returning("id")
      .executeTakeFirstOrThrow();
    return id;
  }
  const result = await db
    .updateTable("segments")
    .set({ name: input.name, rule, updated_at: now })
    .where("id", "=", input.id)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) throw new SegmentError("Segment not found", 404);
  return input.id;
}

/** Deletes a segment, unless a campaign not yet sent goes to it. */
export async function deleteSegment(root: Db, tenantId: string, id: number): Promise<void> {
  await tenantDb(root, tenantId)
    .transaction()
    .execute(async (trx) => {
      const waiting = await trx
        .selectFrom("campaigns")
        .select("segment_ids")
        .where("status", "in", ["draft", "scheduled", "sending", "paused"])
        .execute();
      if (waiting.some((row) => (JSON.parse(row.segment_ids) as number[]).includes(id))) {
        throw new SegmentError(
          "A campaign not yet sent goes to this segment; send, cancel or change that campaign first.",
          409,
        );
      }
      const result = await trx.deleteFrom("segments").where("id", "=", id).executeTakeFirst();
      if (Number(result.numDeletedRows) !== 1) throw new SegmentError("Segment not found", 404);
    });
}

/** A campaign's audience from its list and segment ids, with the segments' rules as they are now. */
export async function campaignAudience(
  db: Db,
  tenantId: string,
  ids: { listIds: readonly number[]; segmentIds: readonly number[] },
): Promise<{ listIds: readonly number[]; segments: SegmentRule[]; numberFields: Set<string> }> {
  const segments =
    ids.segmentIds.length > 0
      ? (await listSegments(db, tenantId)).filter((segment) => ids.segmentIds.includes(segment.id))
      : [];
  return {
    listIds: ids.listIds,
    segments: segments.map((segment) => segment.rule),
    numberFields: segments.length > 0 ? await numberFieldKeys(db, tenantId) : new Set(),
  };
}
