import { loadPapaParse } from "../lazy";
import type { Scope } from "../scope";
import { filteredSubscribers, SUBSCRIBER_COLUMNS, type SubscriberFilter } from "./search";
import { listKeysBySubscriber } from "./subscribers";

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
  ctx: Pick<Scope, "db" | "tenant">,
  filter: SubscriberFilter,
): Promise<string> {
  const rows = await (await filteredSubscribers(ctx, filter))
    .select(SUBSCRIBER_COLUMNS)
    .orderBy("subscribers.id")
    .execute();
  const lists = await listKeysBySubscriber(
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
