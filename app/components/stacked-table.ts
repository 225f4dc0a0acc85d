/**
 * Class names for staff tables that stack on phones: below `sm` each row becomes a small card and
 * each cell shows its column's name (its data-label) in front of the value; from `sm` up they are
 * ordinary table rows.
 */
export const stackedHead = "hidden bg-black/[0.04] sm:table-header-group";
export const stackedRow =
  "block border-t border-black/10 py-2 align-top first:border-t-0 sm:table-row sm:py-0 sm:first:border-t";
export const stackedCell =
  "flex min-w-0 gap-3 px-3 py-0.5 before:w-24 before:shrink-0 before:text-xs before:font-semibold before:uppercase before:tracking-wide before:opacity-75 before:content-[attr(data-label)] sm:table-cell sm:py-2 sm:before:content-none";
