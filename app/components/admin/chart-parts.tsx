import type { ReactNode } from "react";
import { type Column, DataTable } from "../ui/data-table";

/*
 * What the staff pages' visx charts (activity-chart.tsx, growth-chart.tsx) share around their SVG:
 * the key to the colours and the numbers drawn, in a table for screen readers and for copying.
 */

/**
 * The key under a chart: a swatch and a word a series (`swatch`: the swatch's size and colour
 * classes), then `children`. The figure's caption when the chart has none above it.
 */
export function ChartKey({
  items,
  asCaption = false,
  children,
}: {
  items: readonly { swatch: string; label: string }[];
  asCaption?: boolean;
  children?: ReactNode;
}) {
  const Tag = asCaption ? "figcaption" : "p";
  return (
    <Tag className="mt-1 flex flex-wrap gap-4 text-sm">
      {items.map((item) => (
        <span key={item.label}>
          <span aria-hidden="true" className={`mr-1 inline-block ${item.swatch}`} />
          {item.label}
        </span>
      ))}
      {children}
    </Tag>
  );
}

/** The numbers a chart draws, in a table folded under it. */
export function ChartNumbers<T>({
  summary,
  columns,
  rows,
  rowKey,
}: {
  summary: string;
  columns: Column<T>[];
  rows: T[];
  rowKey: (row: T) => string;
}) {
  return (
    <details className="mt-3">
      <summary className="cursor-pointer font-medium">{summary}</summary>
      <DataTable className="mt-2" columns={columns} rows={rows} rowKey={rowKey} />
    </details>
  );
}
