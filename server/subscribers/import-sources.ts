import { invalidEmailMessage, isValidEmail } from "../../shared/schemas/email";
import {
  IMPORT_SOURCE_LABELS,
  MAX_IMPORT_BYTES,
  MAX_IMPORT_LABEL,
} from "../../shared/schemas/subscribers";
import { UnzipError, unzipBounded } from "../cpu/unzip";
import type { Db } from "../db";
import type { ImportSource } from "../db/schema";
import { decodeEntities } from "../html-entities";
import { loadPapaParse } from "../lazy";
import type { TenantConfig } from "../tenants/config";
import { IMPORT_ORIGINS } from "./events";
import {
  decodeCsvUpload,
  ImportFileError,
  type ImportRow,
  NAME_MAX_LENGTH,
  type RefusedRow,
} from "./import-rows";
import { createList, ListError, listTenantLists, type MailingList } from "./lists";
import { normaliseSubscriberEmail } from "./subscribers";

/*
 * Audiences from other platforms (issue 33, target 3): a Ghost members CSV and Substack's email
 * list (the CSV, or the export zip holding it) read into the rows the CSV import writes. Each
 * platform's columns are its published export's; the oddities of real exports are handled here:
 * addresses differing only in case, HTML entities in names, members Ghost deleted, labels
 * joined by commas. Lists are named, not keyed: a label becomes the list of that name, created
 * when the import runs (never when the file is only checked).
 */

/** A row before its list names are lists. */
export interface SourceRow extends Omit<ImportRow, "lists"> {
  /** list names (Ghost labels) besides the default list; empty: the default list only */
  listNames: string[];
}

export interface SourceRows {
  rows: SourceRow[];
  refused: RefusedRow[];
}

/** The three file sources staff choose between on the imports page. */
export const FILE_SOURCES = ["herald", "ghost", "substack"] as const satisfies ImportSource[];
export type FileSource = (typeof FILE_SOURCES)[number];

export { decodeEntities };

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]+/g;

/** A name or note as kept: entities decoded, control characters gone, at most `max` characters. */
function cleanText(raw: string, max: number): string {
  return decodeEntities(raw)
    .replace(CONTROL_CHARACTERS, " ")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, max);
}

/** An export's date as ISO, if it is one and not in the future; else null. */
function dateOf(raw: string, now: Date): string | null {
  const text = raw.trim();
  if (!text) return null;
  const date = new Date(text);
  if (Number.isNaN(date.getTime()) || date.getTime() > now.getTime()) return null;
  return date.toISOString();
}

const TRUE = new Set(["true", "yes", "1", "t"]);

interface Columns {
  header: string[];
  records: string[][];
  broken: Set<number>;
  at: (name: string) => number;
}

async function readCsv(text: string): Promise<Columns> {
  const Papa = await loadPapaParse();
  const parsed = Papa.parse<string[]>(text.replace(/^\uFEFF/, ""), {
    delimiter: ",",
    skipEmptyLines: false,
  });
  const [header = [], ...records] = parsed.data;
  const columns = header.map((cell) => cell.trim().toLowerCase());
  return {
    header: columns,
    records,
    broken: new Set(parsed.errors.map((error) => error.row).filter((row) => row !== undefined)),
    at: (name) => columns.indexOf(name),
  };
}

/**
 * The rows of a platform's CSV: each record checked for its address (missing, malformed, a
 * second time in another case), the rest left to `read`.
 */
function readRows(
  csv: Columns,
  read: (cell: (name: string) => string) => Omit<SourceRow, "line" | "email"> | string,
): SourceRows {
  const emailAt = csv.at("email");
  const firstLineOf = new Map<string, number>();
  const rows: SourceRow[] = [];
  const refused: RefusedRow[] = [];
  for (const [index, record] of csv.records.entries()) {
    const line = index + 2;
    if (record.every((cell) => cell.trim() === "")) continue;
    const given = record[emailAt] ?? "";
    const refuse = (reason: string) => refused.push({ line, email: given, reason });
    if (csv.broken.has(index + 1)) {
      refuse("The row could not be read (check its quotes).");
      continue;
    }
    const email = given.trim();
    if (!email) {
      refuse("Missing email");
      continue;
    }
    if (!isValidEmail(email)) {
      refuse(invalidEmailMessage(email));
      continue;
    }
    const normalised = normaliseSubscriberEmail(email);
    const first = firstLineOf.get(normalised);
    if (first !== undefined) {
      refuse(`Duplicate email (also on row ${first})`);
      continue;
    }
    const read_ = read((name) => {
      const at = csv.at(name);
      return at < 0 ? "" : (record[at] ?? "");
    });
    if (typeof read_ === "string") {
      refuse(read_);
      continue;
    }
    firstLineOf.set(normalised, line);
    rows.push({ line, email: normalised, ...read_ });
  }
  return { rows, refused };
}

function requireColumns(csv: Columns, platform: string, names: readonly string[]): void {
  const missing = names.filter((name) => csv.at(name) < 0);
  if (missing.length === 0) return;
  throw new ImportFileError(
    `This is not ${platform}: it has no ${missing.map((name) => `"${name}"`).join(", ")} column. Choose the file's source again, or export the file again.`,
  );
}

const NOTE_MAX_LENGTH = 2_000;

/**
 * Ghost's members CSV (Ghost Admin → Members → Export): id, email, name, note,
 * subscribed_to_emails, complimentary_plan, stripe_customer_id, created_at, deleted_at, labels,
 * tiers. Subscribed members join the default list and a list per label; the others are kept as
 * unsubscribed. A member Ghost deleted is not imported. Paid plans, tiers and Stripe ids have no
 * Herald counterpart and are left out.
 */
export async function readGhostMembers(text: string, now = new Date()): Promise<SourceRows> {
  const csv = await readCsv(text);
  requireColumns(csv, "a Ghost members export", ["email", "subscribed_to_emails"]);
  return readRows(csv, (cell) => {
    if (cell("deleted_at").trim()) return "Deleted in Ghost: not imported";
    const subscribed = TRUE.has(cell("subscribed_to_emails").trim().toLowerCase());
    // Ghost joins a member's labels with commas (a label holding a comma arrives as two).
    const labels = [
      ...new Set(
        cell("labels")
          .split(",")
          .map((label) => cleanText(label, 100))
          .filter(Boolean),
      ),
    ];
    return {
      name: cleanText(cell("name"), NAME_MAX_LENGTH),
      status: subscribed ? "active" : "unsubscribed",
      since: dateOf(cell("created_at"), now),
      note: cleanText(cell("note"), NOTE_MAX_LENGTH) || undefined,
      listNames: subscribed ? labels : [],
    };
  });
}

/**
 * Substack's email list (email_list.<publication>.csv in its export: email, active_subscription,
 * expiry, plan, email_disabled, created_at, first_payment_at, …). Everyone joins the default list;
 * an address whose emails are disabled is kept as unsubscribed. The plan (free, paid, comp) is
 * kept in the consent record.
 */
export async function readSubstackList(text: string, now = new Date()): Promise<SourceRows> {
  const csv = await readCsv(text);
  requireColumns(csv, "a Substack email list", ["email", "email_disabled"]);
  return readRows(csv, (cell) => {
    const disabled = TRUE.has(cell("email_disabled").trim().toLowerCase());
    const plan = cleanText(cell("plan"), 40);
    return {
      name: cleanText(cell("name"), NAME_MAX_LENGTH),
      status: disabled ? "unsubscribed" : "active",
      since: dateOf(cell("created_at"), now),
      note: plan ? `Substack plan: ${plan}` : undefined,
      listNames: [],
    };
  });
}

const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04];

/** Substack's export zip: its email list CSV, as text. */
function emailListFromZip(bytes: Uint8Array): string {
  let files: Record<string, Uint8Array>;
  try {
    // Only the email list is inflated (the posts beside it may be large), within the CSV's limit.
    files = unzipBounded(
      bytes,
      { maxEntries: 100_000, maxEntryBytes: MAX_IMPORT_BYTES, maxTotalBytes: MAX_IMPORT_BYTES * 4 },
      (name) => /(^|\/)email_list[^/]*\.csv$/i.test(name),
    );
  } catch (error) {
    if (error instanceof UnzipError && error.kind === "limit") {
      throw new ImportFileError(
        `${error.message} Upload the email list CSV from it (at most ${MAX_IMPORT_LABEL}).`,
      );
    }
    throw new ImportFileError("The zip file could not be read. Download Substack's export again.");
  }
  const names = Object.keys(files).sort();
  const name = names[0];
  if (!name) {
    throw new ImportFileError(
      "The zip file has no email list (email_list….csv). Upload Substack's whole export, or the email list CSV from it.",
    );
  }
  return decodeCsvUpload(files[name] as Uint8Array);
}

/** An upload's bytes as the CSV text of `source`: Substack's may come as its export zip. */
export function decodeSourceUpload(source: FileSource, bytes: Uint8Array): string {
  const zipped = ZIP_MAGIC.every((byte, index) => bytes[index] === byte);
  if (!zipped) return decodeCsvUpload(bytes);
  if (source !== "substack") {
    throw new ImportFileError(
      `This is a zip file. Upload the ${IMPORT_SOURCE_LABELS[source]} itself (a .csv file).`,
    );
  }
  if (bytes.byteLength > MAX_IMPORT_BYTES * 20) {
    throw new ImportFileError(
      `The zip file is too large. Upload the email list CSV from it (at most ${MAX_IMPORT_LABEL}).`,
    );
  }
  return emailListFromZip(bytes);
}

export function readSourceRows(source: "ghost" | "substack", text: string): Promise<SourceRows> {
  return source === "ghost" ? readGhostMembers(text) : readSubstackList(text);
}

/**
 * The lists the rows name, by name (case does not matter), created as private lists when missing
 * — or, with `create` false (the upload is only checked), left out. Rows get the default list
 * first, then their named ones.
 */
export async function withLists(
  db: Db,
  tenant: TenantConfig,
  source: ImportSource,
  rows: readonly SourceRow[],
  defaultList: MailingList | undefined,
  create: boolean,
): Promise<ImportRow[]> {
  const byName = new Map(
    (await listTenantLists(db, tenant)).map((list) => [list.name.toLowerCase(), list]),
  );
  if (create) {
    const wanted = new Map<string, string>();
    for (const row of rows) {
      for (const name of row.listNames) {
        if (!byName.has(name.toLowerCase())) wanted.set(name.toLowerCase(), name);
      }
    }
    for (const name of wanted.values()) {
      try {
        const list = await createList(db, tenant, {
          name,
          description: `Imported from ${source === "herald" ? "a CSV file" : IMPORT_ORIGINS[source]}.`,
          visibility: "private",
        });
        byName.set(name.toLowerCase(), list);
      } catch (error) {
        // Another import made it meanwhile: use theirs.
        if (!(error instanceof ListError)) throw error;
        const again = (await listTenantLists(db, tenant)).find(
          (list) => list.name.toLowerCase() === name.toLowerCase(),
        );
        if (!again) throw error;
        byName.set(name.toLowerCase(), again);
      }
    }
  }
  return rows.map(({ listNames, ...row }) => {
    const named = listNames.flatMap((name) => byName.get(name.toLowerCase()) ?? []);
    const lists = [...(defaultList ? [defaultList] : []), ...named].filter(
      (list, index, all) => all.findIndex((other) => other.id === list.id) === index,
    );
    return { ...row, lists: lists.length ? lists : null };
  });
}

/** The origin a source's consent records name (a Herald CSV names none). */
export function originOf(source: ImportSource): keyof typeof IMPORT_ORIGINS | undefined {
  return source === "herald" ? undefined : source;
}
