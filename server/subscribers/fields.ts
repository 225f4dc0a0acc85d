import slugify from "slugify";
import {
  type FieldType,
  MAX_FIELD_VALUE_LENGTH,
  type NewField,
} from "../../shared/schemas/subscriber-fields";
import type { Db } from "../db";
import { tenantDb } from "../db/tenant-guard";
import { chunks, type SubscriberChunkWrite } from "./store";

/*
 * A tenant's custom subscriber fields (issue 16, point 2): text, number, date or choice. Values are
 * kept as text, one row per subscriber and field: numbers in their plain decimal form, dates as
 * YYYY-MM-DD (so they sort as text), choices as one of the field's choices.
 */

export interface SubscriberField {
  key: string;
  label: string;
  type: FieldType;
  choices: string[];
}

export class FieldError extends Error {
  constructor(
    message: string,
    readonly status: 400 | 404 | 409 = 400,
  ) {
    super(message);
  }
}

export async function listFields(root: Db, tenantId: string): Promise<SubscriberField[]> {
  const db = tenantDb(root, tenantId);
  const rows = await db
    .selectFrom("subscriber_fields")
    .select(["key", "label", "type", "choices"])
    .orderBy("position")
    .execute();
  return rows.map((row) => ({ ...row, choices: JSON.parse(row.choices) as string[] }));
}

/** Names, emails and statuses are built in: a custom field may not take their keys. */
const BUILT_IN = new Set(["email", "name", "status", "lists", "subscribed_at", "created_at"]);

export async function createField(
  db: Db,
  tenantId: string,
  input: NewField,
): Promise<SubscriberField> {
  const fields = await listFields(db, tenantId);
  if (fields.length >= 50) throw new FieldError("A tenant may have at most 50 custom fields");
  if (fields.some((field) => field.label.toLowerCase() === input.label.toLowerCase())) {
    throw new FieldError("A field with this name already exists", 409);
  }
  const base =
    slugify(input.label.replace(/[^\p{L}\p{N}\s_-]/gu, " "), {
      lower: true,
      strict: true,
      replacement: "_",
    }).slice(0, 40) || "field";
  let key = /^\d/.test(base) || BUILT_IN.has(base) ? `field_${base}` : base;
  for (let n = 2; fields.some((field) => field.key === key); n++) key = `${base}_${n}`;
  const field = {
    key,
    label: input.label,
    type: input.type,
    choices: input.type === "choice" ? input.choices : [],
  };
  await db
    .insertInto("subscriber_fields")
    .values({
      tenant_id: tenantId,
      ...field,
      choices: JSON.stringify(field.choices),
      position: fields.length,
      created_at: new Date().toISOString(),
    })
    .execute();
  return field;
}

/** Deletes a field and every subscriber's value of it (the foreign key cascades). */
export async function deleteField(root: Db, tenantId: string, key: string): Promise<void> {
  const db = tenantDb(root, tenantId);
  const result = await db.deleteFrom("subscriber_fields").where("key", "=", key).executeTakeFirst();
  if (Number(result.numDeletedRows) !== 1) throw new FieldError("Field not found", 404);
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * A value as typed, checked against its field: the stored text, null for blank, or the message
 * to show. Numbers lose their grouping and trailing zeros; dates must exist.
 */
export function readFieldValue(
  field: SubscriberField,
  raw: string | undefined,
): { value: string | null } | { error: string } {
  const text = (raw ?? "").trim();
  if (text === "") return { value: null };
  if (text.length > MAX_FIELD_VALUE_LENGTH) {
    return { error: `${field.label} must be at most ${MAX_FIELD_VALUE_LENGTH} characters` };
  }
  switch (field.type) {
    case "text":
      return { value: text };
    case "number": {
      const number = Number(text.replaceAll(",", ""));
      if (!Number.isFinite(number)) return { error: `${field.label} must be a number` };
      return { value: String(number) };
    }
    case "date": {
      const match = DATE.exec(text);
      const date = match ? new Date(`${text}T00:00:00Z`) : null;
      if (!date || Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== text) {
        return { error: `${field.label} must be a date (YYYY-MM-DD)` };
      }
      return { value: text };
    }
    case "choice":
      return field.choices.includes(text)
        ? { value: text }
        : { error: `${field.label} must be one of: ${field.choices.join(", ")}` };
  }
}

/** All of a form's field values checked at once: the values by key, or the messages by key. */
export function readFieldValues(
  fields: readonly SubscriberField[],
  raw: Record<string, string | undefined>,
): { values: Record<string, string | null>; errors: Record<string, string[]> } {
  const values: Record<string, string | null> = {};
  const errors: Record<string, string[]> = {};
  for (const field of fields) {
    const read = readFieldValue(field, raw[field.key]);
    if ("error" in read) errors[`field.${field.key}`] = [read.error];
    else values[field.key] = read.value;
  }
  return { values, errors };
}

/** Sets a subscriber's values (null clears one); keys that are not fields are ignored. */
export async function setFieldValues(
  root: Db,
  tenantId: string,
  subscriberId: number,
  values: Record<string, string | null>,
): Promise<void> {
  const db = tenantDb(root, tenantId);
  const keys = Object.keys(values);
  if (keys.length === 0) return;
  await db
    .deleteFrom("subscriber_values")
    .where("subscriber_id", "=", subscriberId)
    .where("field_key", "in", keys)
    .execute();
  const rows = Object.entries(values)
    .filter((entry): entry is [string, string] => entry[1] !== null)
    .map(([field_key, value]) => ({
      tenant_id: tenantId,
      subscriber_id: subscriberId,
      field_key,
      value,
    }));
  if (rows.length > 0) await db.insertInto("subscriber_values").values(rows).execute();
}

/** subscriber id → their values by field key. */
export async function fieldValuesOf(
  root: Db,
  tenantId: string,
  subscriberIds: readonly number[],
): Promise<Map<number, Record<string, string>>> {
  const db = tenantDb(root, tenantId);
  const found = new Map<number, Record<string, string>>();
  for (const part of chunks(subscriberIds)) {
    const rows = await db
      .selectFrom("subscriber_values")
      .select(["subscriber_id", "field_key", "value"])
      .where("subscriber_id", "in", part)
      .execute();
    for (const row of rows) {
      const id = Number(row.subscriber_id);
      found.set(id, { ...found.get(id), [row.field_key]: row.value });
    }
  }
  return found;
}

/** Drops every value of these subscribers (erasure). */
export const clearFieldValues: SubscriberChunkWrite = (db, ids) =>
  db.deleteFrom("subscriber_values").where("subscriber_id", "in", ids).execute();
