import { type SqlBool, sql } from "kysely";
import Papa from "papaparse";
import { z } from "zod";
import { invalidEmailMessage, isValidEmail } from "../../shared/schemas/email";
import { MAX_IMPORT_BYTES, SUBSCRIBER_STATUSES } from "../../shared/schemas/subscribers";
import { isSuppressed } from "../campaigns/bounces";
import type { SubscriberStatus } from "../db/schema";
import type { Scope } from "../scope";
import { recordEvents } from "./events";
import { listTenantLists, type MailingList } from "./lists";
import {
  chunks,
  dropPendingChanges,
  insertSubscribers,
  joinLists,
  leaveAllLists,
  updateSubscriber,
} from "./store";
import { FEEDBACK_REASONS, normaliseSubscriberEmail, type SubscriberView } from "./subscribers";

/**
 * Staff's view of a tenant's audience (/admin/subscribers): search, counts, CSV import and export,
 * and the unsubscribe feedback. Every query names the tenant in its WHERE clause.
 */
type AdminScope = Pick<Scope, "db" | "tenant">;

export type StatusFilter = SubscriberStatus | "all";

export interface SubscriberFilter {
  /** part of the email or the name, case-insensitive */
  q?: string;
  status?: StatusFilter;
  /** a list key: only subscribers on that list */
  list?: string;
  /** only these subscribers (the rows ticked for a bulk action) */
  ids?: readonly number[];
}

const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (value === "" ? undefined : value), schema.optional()).catch(undefined);

const filterSchema = z.object({
  q: optional(z.string().trim().max(200)),
  status: optional(z.enum(["all", ...SUBSCRIBER_STATUSES])),
  list: optional(z.string().trim().max(100)),
  page: optional(z.coerce.number().int().min(1).max(1_000_000)),
  /** ticked rows of a bulk export: ids separated by commas */
  ids: optional(
    z
      .string()
      .max(10_000)
      .regex(/^\d+(,\d+)*$/)
      .transform((text) => text.split(",").slice(0, 500).map(Number)),
  ),
});

/** The search form's query (q, status, list, page); anything malformed is ignored. */
export function subscriberFilterFrom(params: URLSearchParams): SubscriberFilter & { page: number } {
  const filter = filterSchema.parse(Object.fromEntries(params));
  return {
    q: filter.q,
    status: filter.status ?? "all",
    list: filter.list,
    page: filter.page ?? 1,
    ...(filter.ids ? { ids: filter.ids } : {}),
  };
}

export const SUBSCRIBERS_PAGE_SIZE = 50;
export const NAME_MAX_LENGTH = 100;

const likePattern = (text: string) => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

function filteredSubscribers(ctx: AdminScope, filter: SubscriberFilter) {
  let query = ctx.db
    .selectFrom("subscribers")
    .where("subscribers.tenant_id", "=", ctx.tenant.id)
    .where("subscribers.erased_at", "is", null);
  if (filter.ids)
    query = query.where("subscribers.id", "in", filter.ids.length ? filter.ids : [-1]);
  if (filter.status && filter.status !== "all") {
    query = query.where("subscribers.status", "=", filter.status);
  }
  const q = filter.q?.trim();
  if (q) {
    const pattern = likePattern(q);
    query = query.where((eb) =>
      eb.or([
        sql<SqlBool>`lower(subscribers.email) like ${pattern} escape '\\'`,
        sql<SqlBool>`lower(subscribers.name) like ${pattern} escape '\\'`,
      ]),
    );
  }
  if (filter.list) {
    const key = filter.list;
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom("subscriptions")
          .innerJoin("lists", "lists.id", "subscriptions.list_id")
          .select(sql`1`.as("one"))
          .whereRef("subscriptions.subscriber_id", "=", "subscribers.id")
          .where("subscriptions.tenant_id", "=", ctx.tenant.id)
          .where("lists.tenant_id", "=", ctx.tenant.id)
          .where("lists.key", "=", key),
      ),
    );
  }
  return query;
}

/** The ids a bulk action works on: every subscriber matching the filter (issue 16, point 2). */
export async function selectedSubscriberIds(
  ctx: AdminScope,
  filter: SubscriberFilter,
): Promise<number[]> {
  const rows = await filteredSubscribers(ctx, filter).select("subscribers.id").execute();
  return rows.map((row) => Number(row.id));
}

/** subscriber id → keys of the lists they are on, in list order. */
async function listKeysOf(ctx: AdminScope, ids: readonly number[]): Promise<Map<number, string[]>> {
  const keys = new Map<number, string[]>();
  for (const part of chunks(ids)) {
    const rows = await ctx.db
      .selectFrom("subscriptions")
      .innerJoin("lists", "lists.id", "subscriptions.list_id")
      .select(["subscriptions.subscriber_id", "lists.key"])
      .where("subscriptions.tenant_id", "=", ctx.tenant.id)
      .where("lists.tenant_id", "=", ctx.tenant.id)
      .where("subscriptions.subscriber_id", "in", part)
      .orderBy("lists.id")
      .execute();
    for (const row of rows) {
      const id = Number(row.subscriber_id);
      keys.set(id, [...(keys.get(id) ?? []), row.key]);
    }
  }
  return keys;
}

const SUBSCRIBER_COLUMNS = [
  "subscribers.id",
  "subscribers.email",
  "subscribers.name",
  "subscribers.status",
  "subscribers.subscribed_at",
] as const;

/** One page of the tenant's subscribers matching `filter`, newest first. */
export async function listSubscribers(
  ctx: AdminScope,
  filter: SubscriberFilter,
  page = 1,
  pageSize = SUBSCRIBERS_PAGE_SIZE,
): Promise<{ items: SubscriberView[]; total: number; page: number; pageCount: number }> {
  const [{ count }] = await filteredSubscribers(ctx, filter)
    .select((eb) => eb.fn.countAll().as("count"))
    .execute();
  const total = Number(count);
  const pageCount = Math.max(1, Math.ceil(total / pageSize));
  const rows = await filteredSubscribers(ctx, filter)
    .select(SUBSCRIBER_COLUMNS)
    .orderBy("subscribers.created_at", "desc")
    .orderBy("subscribers.id", "desc")
    .limit(pageSize)
    .offset((page - 1) * pageSize)
    .execute();
  const lists = await listKeysOf(
    ctx,
    rows.map((row) => row.id),
  );
  return {
    items: rows.map((row) => ({
      id: row.id,
      email: row.email,
      name: row.name,
      status: row.status,
      subscribedAt: row.subscribed_at,
      lists: lists.get(row.id) ?? [],
    })),
    total,
    page,
    pageCount,
  };
}

/** The tenant's lists with the number of active subscribers on each. */
export async function countByList(
  ctx: AdminScope,
): Promise<{ key: string; name: string; active: number }[]> {
  const lists = await listTenantLists(ctx.db, ctx.tenant);
  const counts = await ctx.db
    .selectFrom("subscriptions")
    .innerJoin("lists", "lists.id", "subscriptions.list_id")
    .innerJoin("subscribers", "subscribers.id", "subscriptions.subscriber_id")
    .select(["lists.id", (eb) => eb.fn.countAll().as("count")])
    .where("subscriptions.tenant_id", "=", ctx.tenant.id)
    .where("lists.tenant_id", "=", ctx.tenant.id)
    .where("subscribers.tenant_id", "=", ctx.tenant.id)
    .where("subscribers.status", "=", "active")
    .groupBy("lists.id")
    .execute();
  return lists.map((list) => ({
    key: list.key,
    name: list.name,
    active: Number(counts.find((row) => Number(row.id) === list.id)?.count ?? 0),
  }));
}

/** How many of the tenant's subscribers are in each status, and in all. */
export async function countByStatus(
  ctx: AdminScope,
): Promise<Record<SubscriberStatus, number> & { total: number }> {
  const rows = await ctx.db
    .selectFrom("subscribers")
    .select(["status", (eb) => eb.fn.countAll().as("count")])
    .where("tenant_id", "=", ctx.tenant.id)
    .where("erased_at", "is", null)
    .groupBy("status")
    .execute();
  const of = (status: SubscriberStatus) =>
    Number(rows.find((row) => row.status === status)?.count ?? 0);
  const counts = {
    active: of("active"),
    unsubscribed: of("unsubscribed"),
    unconfirmed: of("unconfirmed"),
    bounced: of("bounced"),
    complained: of("complained"),
  };
  return { ...counts, total: Object.values(counts).reduce((sum, count) => sum + count, 0) };
}

/** Why people left (SPEC §2 feedback form): a count per reason and the latest 'Other' texts. */
export async function feedbackSummary(
  ctx: AdminScope,
  latestOthers = 20,
): Promise<{
  reasons: { reason: (typeof FEEDBACK_REASONS)[number]; count: number }[];
  others: { text: string; createdAt: string }[];
}> {
  const counts = await ctx.db
    .selectFrom("unsubscribe_feedback")
    .select(["reason", (eb) => eb.fn.countAll().as("count")])
    .where("tenant_id", "=", ctx.tenant.id)
    .groupBy("reason")
    .execute();
  const others = await ctx.db
    .selectFrom("unsubscribe_feedback")
    .select(["details", "created_at"])
    .where("tenant_id", "=", ctx.tenant.id)
    .where("reason", "=", "Other")
    .where("details", "is not", null)
    .where("details", "!=", "")
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(latestOthers)
    .execute();
  return {
    reasons: FEEDBACK_REASONS.map((reason) => ({
      reason,
      count: Number(counts.find((row) => row.reason === reason)?.count ?? 0),
    })),
    others: others.map((row) => ({ text: row.details ?? "", createdAt: row.created_at })),
  };
}

// ---------------------------------------------------------------------------------------------
// CSV

export const EXPORT_COLUMNS = ["email", "name", "status", "lists", "subscribed_at"] as const;
/** Separates list keys inside the lists cell; the import also accepts "|". */
const LIST_SEPARATOR = ";";
/** Cells a spreadsheet would run as a formula (OWASP "CSV injection"). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * The tenant's subscribers matching `filter` as CSV (RFC 4180, CRLF), oldest first, with a BOM so
 * spreadsheets read UTF-8. A cell that a spreadsheet would run as a formula gets a leading
 * apostrophe; the import takes that apostrophe off again, so an export re-imports unchanged.
 */
export async function exportSubscribersCsv(
  ctx: AdminScope,
  filter: SubscriberFilter,
): Promise<string> {
  const rows = await filteredSubscribers(ctx, filter)
    .select(SUBSCRIBER_COLUMNS)
    .orderBy("subscribers.id")
    .execute();
  const lists = await listKeysOf(
    ctx,
    rows.map((row) => row.id),
  );
  const csv = Papa.unparse(
    {
      fields: [...EXPORT_COLUMNS],
      data: rows.map((row) => [
        row.email,
        row.name,
        row.status,
        (lists.get(row.id) ?? []).join(LIST_SEPARATOR),
        row.subscribed_at ?? "",
      ]),
    },
    // Papa's own escapeFormulae pattern ends in `.*$`, which misses cells holding a line break.
    { escapeFormulae: FORMULA_START, newline: "\r\n" },
  );
  return `\uFEFF${csv}\r\n`;
}

/** A problem with the file as a whole (no email column, not text): nothing is imported. */
export class ImportFileError extends Error {}

/** An uploaded file's bytes as text: UTF-8 (with or without BOM) and at most MAX_IMPORT_BYTES. */
export function decodeCsvUpload(bytes: Uint8Array): string {
  if (bytes.byteLength === 0) throw new ImportFileError("The file is empty.");
  if (bytes.byteLength > MAX_IMPORT_BYTES) {
    throw new ImportFileError("The file is larger than 1 MB. Split it into smaller files.");
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new ImportFileError('The file is not UTF-8 text. Save it as "CSV UTF-8" and try again.');
  }
}

export interface RefusedRow {
  /** the row's number as a spreadsheet shows it: the header is row 1 */
  line: number;
  /** the email cell as given */
  email: string;
  reason: string;
}

export interface ImportReport {
  /** rows written (new or updated subscribers) */
  imported: number;
  created: number;
  updated: number;
  /** rows of people who had unsubscribed and stay so, because the row did not say 'active' */
  keptUnsubscribed: number;
  refused: RefusedRow[];
}

interface ImportRow {
  line: number;
  email: string;
  name: string;
  /** null: the row does not say */
  status: "active" | "unsubscribed" | null;
  /** null: the row names no lists */
  lists: MailingList[] | null;
}

/** Undoes the export's formula guard: "'=x" was written for "=x". */
const unguard = (cell: string) => (/^'[=+\-@\t\r]/.test(cell) ? cell.slice(1) : cell);

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]+/g;

/** Reads and checks the rows; valid rows come back in file order, the others with a reason. */
function readImportRows(
  text: string,
  lists: MailingList[],
): { rows: ImportRow[]; refused: RefusedRow[] } {
  const parsed = Papa.parse<string[]>(text.replace(/^\uFEFF/, ""), {
    delimitersToGuess: [",", ";", "\t"],
    skipEmptyLines: false,
  });
  const [header, ...records] = parsed.data;
  const columns = (header ?? []).map((cell) => cell.trim().toLowerCase());
  const column = (name: string) => columns.indexOf(name);
  const at = {
    email: column("email"),
    name: column("name"),
    lists: column("lists"),
    status: column("status"),
  };
  if (at.email < 0) {
    throw new ImportFileError(
      'The file has no "email" column. The first row must name the columns: email, and optionally name, lists, status.',
    );
  }
  const brokenRows = new Set(
    parsed.errors.map((error) => error.row).filter((row) => row !== undefined),
  );
  const firstLineOf = new Map<string, number>();
  const rows: ImportRow[] = [];
  const refused: RefusedRow[] = [];

  /** The row as an ImportRow, or why it is refused. */
  const check = (record: string[], index: number, line: number): ImportRow | string => {
    const cell = (position: number) =>
      position < 0 ? "" : unguard((record[position] ?? "").trim());
    if (brokenRows.has(index + 1)) return "The row could not be read (check its quotes).";
    const email = cell(at.email);
    if (!email) return "Missing email";
    if (!isValidEmail(email)) return invalidEmailMessage(email);
    const normalised = normaliseSubscriberEmail(email);
    const first = firstLineOf.get(normalised);
    if (first !== undefined) return `Duplicate email (also on row ${first})`;
    firstLineOf.set(normalised, line);

    const name = cell(at.name).replace(CONTROL_CHARACTERS, " ").trim();
    if (name.length > NAME_MAX_LENGTH) return `Name must be at most ${NAME_MAX_LENGTH} characters.`;
    const statusText = cell(at.status).toLowerCase();
    if (statusText === "unconfirmed") {
      return "Status unconfirmed cannot be imported: use active or unsubscribed.";
    }
    if (statusText && statusText !== "active" && statusText !== "unsubscribed") {
      return `Unknown status: ${cell(at.status)} (use active or unsubscribed)`;
    }
    const keys = cell(at.lists)
      .split(/[;|]/)
      .map((key) => key.trim().toLowerCase())
      .filter(Boolean);
    const unknown = keys.filter((key) => !lists.some((list) => list.key === key));
    if (unknown.length > 0) return `Unknown list: ${unknown.join(", ")}`;
    return {
      line,
      email: normalised,
      name,
      status: statusText === "" ? null : (statusText as "active" | "unsubscribed"),
      lists: keys.length ? lists.filter((list) => keys.includes(list.key)) : null,
    };
  };

  for (const [index, record] of records.entries()) {
    const line = index + 2;
    if (record.every((cell) => cell.trim() === "")) continue;
    const checked = check(record, index, line);
    if (typeof checked === "string") {
      refused.push({ line, email: record[at.email] ?? "", reason: checked });
    } else {
      rows.push(checked);
    }
  }
  return { rows, refused };
}

/**
 * Imports subscribers from CSV: columns email (required), name, lists (keys separated by ";" or
 * "|"; none: the default list) and status (active or unsubscribed; none: active). Each row is
 * checked on its own and refused rows are reported; the valid rows are written in one transaction,
 * so a failed write imports nothing. Imports are existing audiences: no mail is sent.
 *
 * A known address is updated: its name when the row gives one; its lists when the row names some
 * (they replace the old ones). Someone who unsubscribed, bounced or complained keeps that status unless the row says
 * 'active' in so many words. A row saying 'unsubscribed' takes the person off every list.
 */
export async function importSubscribersCsv(ctx: AdminScope, text: string): Promise<ImportReport> {
  const lists = await listTenantLists(ctx.db, ctx.tenant);
  const defaultList = lists.find((list) => list.key === ctx.tenant.emailGroups.default) ?? lists[0];
  const { rows, refused } = readImportRows(text, lists);
  const report: ImportReport = {
    imported: 0,
    created: 0,
    updated: 0,
    keptUnsubscribed: 0,
    refused,
  };
  if (rows.length === 0) return report;
  const now = new Date().toISOString();

  await ctx.db.transaction().execute(async (trx) => {
    const existing = new Map<
      string,
      {
        id: number;
        status: SubscriberStatus;
        name: string;
        subscribed_at: string | null;
        hasLists: boolean;
      }
    >();
    for (const part of chunks(rows.map((row) => row.email))) {
      const found = await trx
        .selectFrom("subscribers")
        .select(["id", "email", "status", "name", "subscribed_at"])
        .select((eb) =>
          eb
            .exists(
              eb
                .selectFrom("subscriptions")
                .select(sql`1`.as("one"))
                .where("subscriptions.tenant_id", "=", ctx.tenant.id)
                .whereRef("subscriptions.subscriber_id", "=", "subscribers.id"),
            )
            .as("has_lists"),
        )
        .where("tenant_id", "=", ctx.tenant.id)
        .where("email", "in", part)
        .execute();
      for (const row of found) {
        existing.set(row.email, { ...row, id: Number(row.id), hasLists: Boolean(row.has_lists) });
      }
    }

    /** subscriber id → the lists they are on after the import (null: unchanged) */
    const listsAfter = new Map<number, MailingList[]>();
    const fresh = rows.filter((row) => !existing.has(row.email));
    const freshByEmail = new Map(fresh.map((row) => [row.email, row]));
    const inserted = await insertSubscribers(
      trx,
      ctx.tenant.id,
      fresh.map((row) => {
        const status = row.status ?? "active";
        return {
          email: row.email,
          name: row.name,
          status,
          subscribed_at: status === "active" ? now : null,
          unsubscribed_at: status === "unsubscribed" ? now : null,
        };
      }),
      now,
    );
    for (const { id, email } of inserted) {
      const row = freshByEmail.get(email) as ImportRow;
      const active = (row.status ?? "active") === "active";
      listsAfter.set(id, active ? (row.lists ?? (defaultList ? [defaultList] : [])) : []);
    }
    report.created = fresh.length;
    await recordEvents(
      trx,
      ctx.tenant.id,
      inserted.map(({ id, email }) => ({
        subscriberId: id,
        kind: "signed-up" as const,
        detail: {
          source: "import" as const,
          lists: (listsAfter.get(id) ?? []).map((list) => list.key),
          active: (freshByEmail.get(email)?.status ?? "active") === "active",
        },
      })),
      now,
    );

    for (const row of rows) {
      const known = existing.get(row.email);
      if (!known) continue;
      // Unsubscribed, bounced and complained addresses keep their status unless the row says
      // 'active' in so many words (staff confirming the address again).
      const status: SubscriberStatus =
        row.status ??
        (known.status === "unsubscribed" || isSuppressed(known.status) ? known.status : "active");
      if (row.status === null && known.status === "unsubscribed") report.keptUnsubscribed++;
      const name = row.name || known.name;
      if (status !== known.status || name !== known.name) {
        await updateSubscriber(
          trx,
          ctx.tenant.id,
          known.id,
          {
            status,
            name,
            subscribed_at:
              status === "active" && known.status !== "active" ? now : known.subscribed_at,
            ...(status === "unsubscribed" && known.status !== "unsubscribed"
              ? { unsubscribed_at: now }
              : status === "active"
                ? { unsubscribed_at: null }
                : {}),
          },
          now,
        );
      }
      if (status === "unsubscribed") {
        if (known.hasLists) listsAfter.set(known.id, []);
      } else if (row.lists) {
        listsAfter.set(known.id, row.lists);
      } else if (!known.hasLists && defaultList) {
        listsAfter.set(known.id, [defaultList]);
      }
      report.updated++;
    }

    const changed = [...listsAfter.keys()];
    await leaveAllLists(trx, ctx.tenant.id, changed);
    const leaving = rows
      .filter((row) => row.status === "unsubscribed")
      .map((row) => existing.get(row.email)?.id)
      .filter((id): id is number => id !== undefined);
    await dropPendingChanges(trx, ctx.tenant.id, leaving);
    const memberships = [...listsAfter].flatMap(([subscriberId, chosen]) =>
      chosen.map((list) => ({ subscriberId, listId: list.id })),
    );
    await joinLists(trx, ctx.tenant.id, memberships, now);
  });
  report.imported = report.created + report.updated;
  return report;
}
