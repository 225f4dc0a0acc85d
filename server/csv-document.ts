import { loadPapaParse } from "./lazy";

/** Cells a spreadsheet would run as a formula (OWASP "CSV injection"). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * Rows as a CSV download (RFC 4180, CRLF), with a BOM so spreadsheets read UTF-8. A cell that a
 * spreadsheet would run as a formula gets a leading apostrophe (the subscriber import takes it off
 * again, so an export re-imports unchanged). The subscriber and campaign recipient exports.
 */
export async function csvDocument(
  fields: readonly string[],
  rows: readonly (readonly (string | number)[])[],
): Promise<string> {
  const Papa = await loadPapaParse();
  const csv = Papa.unparse(
    { fields: [...fields], data: rows.map((row) => [...row]) },
    // Papa's own escapeFormulae pattern ends in `.*$`, which misses cells holding a line break.
    { escapeFormulae: FORMULA_START, newline: "\r\n" },
  );
  return `\uFEFF${csv}\r\n`;
}
