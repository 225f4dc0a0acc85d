import type { ReactNode } from "react";
import { stackedCell, stackedHead, stackedRow } from "../stacked-table";

export interface Column<Row> {
  /** the column's heading; on phones, each cell shows it in front of the value */
  header: string;
  /** the name a cell shows on phones, when shorter than the heading */
  label?: string;
  cell(row: Row): ReactNode;
  /** extra classes of the column's cells (e.g. `sm:whitespace-nowrap`, `break-all`) */
  className?: string;
  /** numbers line up on the right (heading included) where the table is a table */
  align?: "right";
}

/**
 * A staff table: a heading per column, one row per item. Below `sm` each row becomes a small card
 * whose cells carry their column's name (app/components/stacked-table.ts); from `sm` up it is an
 * ordinary table, scrolling sideways inside its border when it is wider than the page.
 */
export function DataTable<Row>({
  columns,
  rows,
  rowKey,
  caption,
  className = "",
  empty,
}: {
  columns: readonly Column<Row>[];
  rows: readonly Row[];
  rowKey(row: Row): string | number;
  /** the table's title, shown above its headings */
  caption?: string;
  className?: string;
  /** what stands instead of the table when there are no rows ("No segments yet.") */
  empty?: string;
}) {
  if (empty && rows.length === 0) return <p>{empty}</p>;
  return (
    <div className={`overflow-x-auto rounded-brand border border-black/10 ${className}`}>
      <table className="w-full text-left text-sm">
        {caption ? (
          <caption className="px-3 pt-3 pb-1 text-left font-semibold">{caption}</caption>
        ) : null}
        <thead className={stackedHead}>
          <tr>
            {columns.map((column) => (
              <th
                key={column.header}
                scope="col"
                className={column.align === "right" ? "px-3 py-2 text-right" : "px-3 py-2"}
              >
                {column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="block sm:table-row-group">
          {rows.map((row) => (
            <tr key={rowKey(row)} className={stackedRow}>
              {columns.map((column) => (
                <td
                  key={column.header}
                  data-label={column.label ?? column.header}
                  className={[
                    stackedCell,
                    column.align === "right" ? "sm:text-right" : "",
                    column.className ?? "",
                  ].join(" ")}
                >
                  {column.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
