import { type Expression, type ExpressionBuilder, type SqlBool, sql } from "kysely";
import { z } from "zod";
import { invalidEmailMessage, isValidEmail } from "../../shared/schemas/email";
import {
  MAX_IMPORT_BYTES,
  MAX_IMPORT_LABEL,
  SUBSCRIBER_STATUSES,
} from "../../shared/schemas/subscribers";
import { isStorableText } from "../../shared/schemas/text";
import { isSuppressed } from "../campaigns/bounces";
import type { Db } from "../db";
import { isPostgres } from "../db/portable";
import type { Database, SubscriberStatus } from "../db/schema";
import { loadPapaParse } from "../lazy";
import type { Scope } from "../scope";
import { audienceCounts, sumOf } from "./counts";
import { type ImportOrigin, recordEvents } from "./events";
import { setFieldValues } from "./fields";
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

/** A search's count stops here: past it the page says "10,000+" rather than count every row. */
export const SEARCH_COUNT_CAP = 10_000;
/** Trigram matches of a column beyond which a search reads subscribers in order instead. */
const SEARCH_CANDIDATES = 5_000;

type SubscriberCondition = (eb: ExpressionBuilder<Database, "subscribers">) => Expression<SqlBool>;

/**
 * The search condition for `q` (part of the email or name). PostgreSQL's planner picks between
 * the trigram indexes and reading newest first. SQLite's does not know how many rows a trigram
 * matches, so this asks the trigram index (subscriber_search) first: few matches become an id
 * list; many mean the term is common, and reading newest first finds a page at once.
 */
async function searchCondition(ctx: AdminScope, q: string): Promise<SubscriberCondition> {
  const pattern = likePattern(q);
  const scan: SubscriberCondition = (eb) =>
    eb.or([
      sql<SqlBool>`lower(subscribers.email) like ${pattern} escape '\\'`,
      sql<SqlBool>`lower(subscribers.name) like ${pattern} escape '\\'`,
    ]);
  // Under three characters there is no trigram; wildcards in the text need the escape above.
  if (isPostgres(ctx.db) || q.length < 3 || /[\\%_]/.test(q)) return scan;
  const ids = new Set<number>();
  for (const column of ["email", "name"] as const) {
    const { rows } = await sql<{ id: number }>`SELECT rowid AS id FROM subscriber_search
      WHERE ${sql.ref(column)} LIKE ${`%${q}%`} LIMIT ${SEARCH_CANDIDATES + 1}`.execute(ctx.db);
    if (rows.length > SEARCH_CANDIDATES) return scan;
    for (const row of rows) ids.add(Number(row.id));
  }
  const matched = [...ids];
  // The candidates are every tenant's: the id list only narrows, the tenant condition still holds.
  return (eb) => (matched.length > 0 ? eb("subscribers.id", "in", matched) : sql<SqlBool>`1 = 0`);
}

/** The list a filter names, as its id; null: no such list in this tenant. */
async function listIdOf(ctx: AdminScope, key: string): Promise<number | null> {
  const lists = await listTenantLists(ctx.db, ctx.tenant);
  return lists.find((list) => list.key === key)?.id ?? null;
}

async function filteredSubscribers(ctx: AdminScope, filter: SubscriberFilter) {
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
  if (q) query = query.where(await searchCondition(ctx, q));
  if (filter.list) {
    const listId = await listIdOf(ctx, filter.list);
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom("subscriptions")
          .select(sql`1`.as("one"))
          .whereRef("subscriptions.subscriber_id", "=", "subscribers.id")
          .where("subscriptions.tenant_id", "=", ctx.tenant.id)
          .where("subscriptions.list_id", "=", listId ?? -1),
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
  const rows = await (await filteredSubscribers(ctx, filter)).select("subscribers.id").execute();
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

/**
 * How many subscribers match: from the kept counts when the filter is a list and a status, else
 * counted — up to SEARCH_COUNT_CAP + 1, so `capped` says "at least".
 */
async function countMatching(
  ctx: AdminScope,
  filter: SubscriberFilter,
): Promise<{ total: number; capped: boolean }> {
  if (!filter.q?.trim() && !filter.ids) {
    const counts = await audienceCounts(ctx.db, ctx.tenant.id);
    const listId = filter.list ? await listIdOf(ctx, filter.list) : 0;
    const statuses = filter.status && filter.status !== "all" ? [filter.status] : [];
    if (listId === null) return { total: 0, capped: false };
    const of = listId === 0 ? counts.all : counts.lists.get(listId);
    return { total: of ? sumOf(of, statuses) : 0, capped: false };
  }
  const matching = (await filteredSubscribers(ctx, filter))
    .select("subscribers.id")
    .limit(SEARCH_COUNT_CAP + 1);
  const { count } = await ctx.db
    .selectFrom(matching.as("matching"))
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .executeTakeFirstOrThrow();
  const total = Number(count);
  return total > SEARCH_COUNT_CAP
    ? { total: SEARCH_COUNT_CAP, capped: true }
    : { total, capped: false };
}

/** One page of the tenant's subscribers matching `filter`, newest first. */
export async function listSubscribers(
  ctx: AdminScope,
  filter: SubscriberFilter,
  page = 1,
  pageSize = SUBSCRIBERS_PAGE_SIZE,
): Promise<{
  items: SubscriberView[];
  total: number;
  /** more than `total` match: a search counts up to SEARCH_COUNT_CAP */
  capped: boolean;
  page: number;
  pageCount: number;
}> {
  const { total, capped } = await countMatching(ctx, filter);
  const pageCount = Math.max(1, Math.ceil(total / pageSize));
  const rows = await (await filteredSubscribers(ctx, filter))
    .select(SUBSCRIBER_COLUMNS)
    // Ids grow with each new subscriber: newest first, read straight from an index.
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
    capped,
    page,
    pageCount,
  };
}

/** The tenant's lists with the number of active subscribers on each. */
export async function countByList(
  ctx: AdminScope,
): Promise<{ key: string; name: string; active: number }[]> {
  const [lists, counts] = await Promise.all([
    listTenantLists(ctx.db, ctx.tenant),
    audienceCounts(ctx.db, ctx.tenant.id),
  ]);
  return lists.map((list) => ({
    key: list.key,
    name: list.name,
    active: counts.lists.get(list.id)?.active ?? 0,
  }));
}

/** How many of the tenant's subscribers are in each status, and in all. */
export async function countByStatus(
  ctx: AdminScope,
): Promise<Record<SubscriberStatus, number> & { total: number }> {
  const { all } = await audienceCounts(ctx.db, ctx.tenant.id);
  return { ...all, total: sumOf(all) };
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
  const rows = await (await filteredSubscribers(ctx, filter))
    .select(SUBSCRIBER_COLUMNS)
    .orderBy("subscribers.id")
    .execute();
  const lists = await listKeysOf(
    ctx,
    rows.map((row) => row.id),
  );
  const Papa = await loadPapaParse();
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
    throw new ImportFileError(
      `The file is larger than ${MAX_IMPORT_LABEL}. Split it into smaller files.`,
    );
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new ImportFileError('The file is not UTF-8 text. Save it as "CSV UTF-8" and try again.');
  }
  // NUL is valid UTF-8 but no text column takes it (issue 32, finding 5).
  if (!isStorableText(text)) {
    throw new ImportFileError(
      'The file contains NUL characters. Save it as "CSV UTF-8" and try again.',
    );
  }
  return text;
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

export interface ImportRow {
  line: number;
  email: string;
  name: string;
  /**
   * null: the row does not say. A Herald CSV says active or unsubscribed; another platform's
   * audience any status (a MailerLite bounce stays bounced).
   */
  status: SubscriberStatus | null;
  /** null: the row names no lists */
  lists: MailingList[] | null;
  /** when they joined the other platform (ISO): a new subscriber's created and subscribed date */
  since?: string | null;
  /** the other platform's note about them, kept with the consent record */
  note?: string;
  /** custom field values by field key */
  values?: Record<string, string>;
}

/** How a chunk is written: from a Herald CSV (no origin) or another platform's audience. */
export interface ImportWriteOptions {
  /**
   * The platform the audience comes from. Its "subscribed" never subscribes again someone who
   * left here (only staff's own CSV saying "active" does), and new people's consent record names it.
   */
  origin?: ImportOrigin;
}

/** Statuses that keep a subscriber on lists: the others are on none. */
const LISTED: ReadonlySet<SubscriberStatus> = new Set(["active", "unconfirmed"]);

/** Undoes the export's formula guard: "'=x" was written for "=x". */
const unguard = (cell: string) => (/^'[=+\-@\t\r]/.test(cell) ? cell.slice(1) : cell);

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]+/g;

/** Reads and checks the rows; valid rows come back in file order, the others with a reason. */
async function readImportRows(
  text: string,
  lists: MailingList[],
): Promise<{ rows: ImportRow[]; refused: RefusedRow[] }> {
  const Papa = await loadPapaParse();
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

/** A file's rows checked against the tenant's lists, ready to write (ImportFileError if unusable). */
export interface PreparedImport {
  rows: ImportRow[];
  refused: RefusedRow[];
  defaultList: MailingList | undefined;
}

export async function prepareImport(ctx: AdminScope, text: string): Promise<PreparedImport> {
  const lists = await listTenantLists(ctx.db, ctx.tenant);
  const defaultList = lists.find((list) => list.key === ctx.tenant.emailGroups.default) ?? lists[0];
  return { ...(await readImportRows(text, lists)), defaultList };
}

export type ImportCounts = Pick<ImportReport, "created" | "updated" | "keptUnsubscribed">;

/**
 * Writes checked rows (a whole small file, or one chunk of a large one) inside the caller's
 * transaction. Imports are existing audiences: no mail is sent.
 *
 * A known address is updated: its name when the row gives one; its lists when the row names some
 * (they replace the old ones). Someone who unsubscribed, bounced or complained keeps that status
 * unless the row says 'active' in so many words. A row saying 'unsubscribed' takes the person off
 * every list. A row naming no lists puts a new subscriber on the default list.
 */
export async function writeImportRows(
  trx: Db,
  tenantId: string,
  rows: readonly ImportRow[],
  defaultList: MailingList | undefined,
  now: string,
  options: ImportWriteOptions = {},
): Promise<ImportCounts> {
  const { origin } = options;
  const counts: ImportCounts = { created: 0, updated: 0, keptUnsubscribed: 0 };
  if (rows.length === 0) return counts;
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
              .where("subscriptions.tenant_id", "=", tenantId)
              .whereRef("subscriptions.subscriber_id", "=", "subscribers.id"),
          )
          .as("has_lists"),
      )
      .where("tenant_id", "=", tenantId)
      .where("email", "in", part)
      .execute();
    for (const row of found) {
      existing.set(row.email, { ...row, id: Number(row.id), hasLists: Boolean(row.has_lists) });
    }
  }

  /** subscriber id → the lists they are on after the import (absent: unchanged) */
  const listsAfter = new Map<number, MailingList[]>();
  const fresh = rows.filter((row) => !existing.has(row.email));
  const freshByEmail = new Map(fresh.map((row) => [row.email, row]));
  const inserted = await insertSubscribers(
    trx,
    tenantId,
    fresh.map((row) => {
      const status = row.status ?? "active";
      return {
        email: row.email,
        name: row.name,
        status,
        subscribed_at: status === "active" ? (row.since ?? now) : null,
        unsubscribed_at: status === "unsubscribed" ? now : null,
        ...(row.since ? { created_at: row.since } : {}),
      };
    }),
    now,
  );
  /** subscriber id → the row that wrote them (for their field values) */
  const rowOf = new Map<number, ImportRow>();
  for (const { id, email } of inserted) {
    const row = freshByEmail.get(email) as ImportRow;
    rowOf.set(id, row);
    const listed = LISTED.has(row.status ?? "active");
    listsAfter.set(id, listed ? (row.lists ?? (defaultList ? [defaultList] : [])) : []);
  }
  counts.created = fresh.length;
  await recordEvents(
    trx,
    tenantId,
    inserted.map(({ id, email }) => ({
      subscriberId: id,
      kind: "signed-up" as const,
      detail: {
        source: "import" as const,
        lists: (listsAfter.get(id) ?? []).map((list) => list.key),
        active: (freshByEmail.get(email)?.status ?? "active") === "active",
        ...(origin ? { origin } : {}),
        ...(freshByEmail.get(email)?.note ? { note: freshByEmail.get(email)?.note } : {}),
      },
    })),
    now,
  );

  for (const row of rows) {
    const known = existing.get(row.email);
    if (!known) continue;
    rowOf.set(known.id, row);
    // Unsubscribed, bounced and complained addresses keep their status unless the row says
    // 'active' in so many words (staff confirming the address again). Another platform's list
    // never does: only its own leavers and bounces are taken over.
    const left = known.status === "unsubscribed" || isSuppressed(known.status);
    const keptAway = left && (row.status === null || (origin && LISTED.has(row.status)));
    const status: SubscriberStatus = keptAway
      ? known.status
      : origin && row.status === "unconfirmed" && known.status === "active"
        ? "active"
        : (row.status ?? "active");
    if (keptAway && (origin || known.status === "unsubscribed")) counts.keptUnsubscribed++;
    const name = row.name || known.name;
    if (status !== known.status || name !== known.name) {
      await updateSubscriber(
        trx,
        tenantId,
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
    if (status === "unsubscribed" || (origin && !LISTED.has(status))) {
      if (known.hasLists) listsAfter.set(known.id, []);
    } else if (row.lists) {
      listsAfter.set(known.id, row.lists);
    } else if (!known.hasLists && defaultList) {
      listsAfter.set(known.id, [defaultList]);
    }
    counts.updated++;
  }

  const changed = [...listsAfter.keys()];
  await leaveAllLists(trx, tenantId, changed);
  const leaving = rows
    .filter((row) => row.status !== null && !LISTED.has(row.status))
    .map((row) => existing.get(row.email)?.id)
    .filter((id): id is number => id !== undefined);
  await dropPendingChanges(trx, tenantId, leaving);
  const memberships = [...listsAfter].flatMap(([subscriberId, chosen]) =>
    chosen.map((list) => ({ subscriberId, listId: list.id })),
  );
  await joinLists(trx, tenantId, memberships, now);
  for (const [subscriberId, row] of rowOf) {
    if (row.values && Object.keys(row.values).length > 0) {
      await setFieldValues(trx, tenantId, subscriberId, row.values);
    }
  }
  return counts;
}

/**
 * Imports a CSV at once, in one transaction (a failed write imports nothing): columns email
 * (required), name, lists (keys separated by ";" or "|"; none: the default list) and status
 * (active or unsubscribed; none: active). Each row is checked on its own; refused rows are
 * reported. Staff's uploads go through server/subscribers/imports.ts, in the background.
 */
export async function importSubscribersCsv(ctx: AdminScope, text: string): Promise<ImportReport> {
  const { rows, refused, defaultList } = await prepareImport(ctx, text);
  const now = new Date().toISOString();
  const counts = await ctx.db
    .transaction()
    .execute((trx) => writeImportRows(trx, ctx.tenant.id, rows, defaultList, now));
  return { ...counts, imported: counts.created + counts.updated, refused };
}
