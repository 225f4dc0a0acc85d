import { invalidEmailMessage, isValidEmail } from "../../shared/schemas/email";
import { MAX_IMPORT_BYTES, MAX_IMPORT_LABEL } from "../../shared/schemas/subscribers";
import { isStorableText } from "../../shared/schemas/text";
import type { Db } from "../db";
import type { SubscriberStatus } from "../db/schema";
import { loadPapaParse } from "../lazy";
import type { TenantConfig } from "../tenants/config";
import { listTenantLists, type MailingList } from "./lists";
import { normaliseSubscriberEmail } from "./subscribers";

/*
 * A CSV import's file read and checked before anything is written: the text (UTF-8, size, no NUL),
 * the header, and each row on its own (address, duplicates within the file, name, status, known
 * lists). import-write.ts writes the rows that pass; the others are reported with their reason.
 */

export const NAME_MAX_LENGTH = 100;

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

/** Undoes the export's formula guard: "'=x" was written for "=x". */
const unguard = (cell: string) => (/^'[=+\-@\t\r]/.test(cell) ? cell.slice(1) : cell);

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]+/g;

/** Reads and checks the rows; valid rows come back in file order, the others with a reason. */
export async function readImportRows(
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

export async function prepareImport(
  ctx: { db: Db; tenant: TenantConfig },
  text: string,
): Promise<PreparedImport> {
  const lists = await listTenantLists(ctx.db, ctx.tenant);
  const defaultList = lists.find((list) => list.key === ctx.tenant.emailGroups.default) ?? lists[0];
  return { ...(await readImportRows(text, lists)), defaultList };
}
