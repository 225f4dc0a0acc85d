import {
  type LimitNode,
  type QueryCompiler,
  SqliteDialect,
  SqliteQueryCompiler,
  ValueNode,
} from "kysely";

/**
 * SQLite as Kysely speaks it, but with a LIMIT written into the statement's text (`limit 1`), not
 * bound (`limit ?`).
 *
 * SQLite's planner reads a bound LIMIT's value, so binding one marks the statement to be prepared
 * again: every run of a kept statement with `limit ?` parses and plans it anew (`perf` shows
 * `sqlite3Reprepare` under `sqlite3_step`). Measured on the home page's newest-issue query
 * (SQLite 3.53, better-sqlite3 12), in a loop: 18–30 µs a run with `limit ?`, 4–6 µs with
 * `limit 1`; in a server, between renders, several times more. A bound OFFSET costs no prepare
 * and stays bound (a page number from a URL would otherwise make a statement text per page).
 * Only whole numbers are written in — what `.limit(n)` gets from code; a prepared query's
 * stand-in (server/db/prepared.ts) or an expression stays a parameter.
 *
 * In the dialect, not a plugin: `tenantDb` swaps a database's plugins for its tenant's.
 */
export class SqliteInlineLimitsDialect extends SqliteDialect {
  override createQueryCompiler(): QueryCompiler {
    return new SqliteInlineLimitsCompiler();
  }
}

class SqliteInlineLimitsCompiler extends SqliteQueryCompiler {
  protected override visitLimit(node: LimitNode): void {
    const limit = node.limit;
    if (ValueNode.is(limit) && Number.isSafeInteger(limit.value)) {
      this.append("limit ");
      this.appendImmediateValue(limit.value);
      return;
    }
    super.visitLimit(node);
  }
}
