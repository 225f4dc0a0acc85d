import { Link } from "../lib/page-scripts";

/** Previous / next links under a paged admin list; nothing when there is one page. */
export function Pagination({
  page,
  pageCount,
  href,
  labels = ["← Previous", "Next →"],
}: {
  page: number;
  pageCount: number;
  href: (page: number) => string;
  labels?: [previous: string, next: string];
}) {
  if (pageCount <= 1) return null;
  return (
    <nav
      aria-label="Pagination"
      className="mt-4 flex items-center justify-between text-sm font-semibold"
    >
      {page > 1 ? (
        <Link to={href(page - 1)} rel="prev">
          {labels[0]}
        </Link>
      ) : (
        <span />
      )}
      <span>
        Page {page} of {pageCount}
      </span>
      {page < pageCount ? (
        <Link to={href(page + 1)} rel="next">
          {labels[1]}
        </Link>
      ) : (
        <span />
      )}
    </nav>
  );
}
