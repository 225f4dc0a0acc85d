import type { OperationNode, RawNode } from "kysely";

/**
 * What both tenant guards (server/db/tenant-guard.ts) read in a query: the tenant tables, the
 * sources a query reads or writes, the tenant conditions it holds, the raw SQL it carries.
 */

/** Tables with a tenant_id column: server/db/schema.ts (a test keeps this list in step with it). */
export const TENANT_TABLES: ReadonlySet<string> = new Set([
  "contact_messages",
  "newsletters",
  "comments",
  "lists",
  "subscribers",
  "unsubscribe_feedback",
  "stored_files",
  "newsletter_slugs",
  "tags",
  "newsletter_tags",
  "newsletter_search",
  "newsletter_social",
  "mail_log",
  "campaigns",
  "tenant_changes",
  "images",
  "dkim_keys",
  "subscriptions",
  "subscriber_fields",
  "subscriber_values",
  "subscriber_events",
  "segments",
  "audience_counts",
  "subscriber_imports",
  "archive_imports",
  "preference_changes",
  "deliveries",
  "campaign_events",
  "webhook_secrets",
  "webhook_events",
  "domain_checks",
  "linkedin_connections",
  "linkedin_posts",
  "newsletter_view_sources",
  "tenant_voice_notes",
  "tenant_limits",
  "jobs",
]);

export class TenantGuardError extends Error {}

export type Node = OperationNode & Record<string, unknown>;

export const QUERY_KINDS = new Set([
  "SelectQueryNode",
  "UpdateQueryNode",
  "DeleteQueryNode",
  "InsertQueryNode",
]);

export function identifierName(node: unknown): string | undefined {
  const n = node as Node | undefined;
  if (!n) return undefined;
  if (n.kind === "IdentifierNode") return n.name as string;
  if (n.kind === "SchemableIdentifierNode") return identifierName(n.identifier);
  if (n.kind === "TableNode") return identifierName(n.table);
  return undefined;
}

export interface Source {
  table: string;
  /** the name the query uses for it: its alias, else the table */
  name: string;
  /** the ON condition of the join that brought it in */
  on?: unknown;
}

export function sourceOf(node: unknown, on?: unknown): Source | undefined {
  const n = node as Node | undefined;
  if (n?.kind === "TableNode") {
    const table = identifierName(n) ?? "";
    return { table, name: table, on };
  }
  if (n?.kind === "AliasNode" && (n.node as Node).kind === "TableNode") {
    const table = identifierName(n.node) ?? "";
    return { table, name: identifierName(n.alias) ?? table, on };
  }
  return undefined;
}

export function sourcesOf(query: Node): Source[] {
  const sources: Source[] = [];
  const from = query.from as Node | undefined;
  for (const item of (from?.froms as unknown[] | undefined) ?? []) {
    const source = sourceOf(item);
    if (source) sources.push(source);
  }
  if (query.kind === "UpdateQueryNode") {
    const source = sourceOf(query.table);
    if (source) sources.push(source);
  }
  const using = query.using as Node | undefined;
  for (const item of (using?.tables as unknown[] | undefined) ?? []) {
    const source = sourceOf(item);
    if (source) sources.push(source);
  }
  for (const join of (query.joins as Node[] | undefined) ?? []) {
    const source = sourceOf(join.table, (join.on as Node | undefined)?.on);
    if (source) sources.push(source);
  }
  return sources;
}

/** The conditions that must all hold: the AND chain at the top of an expression. */
export function conjuncts(node: unknown): Node[] {
  const n = node as Node | undefined;
  if (!n) return [];
  if (n.kind === "AndNode") return [...conjuncts(n.left), ...conjuncts(n.right)];
  if (n.kind === "ParensNode") return conjuncts(n.node);
  return [n];
}

/** The table a `tenant_id` reference names ("" when unqualified), or undefined for anything else. */
export function tenantColumnTable(node: unknown): string | undefined {
  const n = node as Node | undefined;
  if (n?.kind === "ColumnNode") return identifierName(n.column) === "tenant_id" ? "" : undefined;
  if (n?.kind !== "ReferenceNode") return undefined;
  const column = n.column as Node;
  if (column.kind !== "ColumnNode" || identifierName(column.column) !== "tenant_id")
    return undefined;
  return n.table ? (identifierName(n.table) ?? "") : "";
}

export function isTenantCondition(node: Node, source: Source): boolean {
  if (node.kind !== "BinaryOperationNode") return false;
  const operator = (node.operator as Node).operator;
  // `is` for rows of no tenant (mail_log's staff mail): `tenant_id is null`.
  if (operator !== "=" && operator !== "in" && operator !== "is") return false;
  return [node.leftOperand, node.rightOperand].some((operand) => {
    const table = tenantColumnTable(operand);
    return table !== undefined && (table === "" || table === source.name);
  });
}

export function checkQuery(query: Node): void {
  if (query.kind === "InsertQueryNode") {
    const table = identifierName(query.into);
    if (!table || !TENANT_TABLES.has(table)) return;
    const columns = (query.columns as Node[] | undefined) ?? [];
    if (!columns.some((column) => identifierName(column.column) === "tenant_id")) {
      throw new TenantGuardError(
        `insert into ${table} without tenant_id (server/db/tenant-guard.ts)`,
      );
    }
    return;
  }
  const where = conjuncts((query.where as Node | undefined)?.where);
  for (const source of sourcesOf(query)) {
    if (!TENANT_TABLES.has(source.table)) continue;
    const conditions = [...where, ...conjuncts(source.on)];
    if (!conditions.some((condition) => isTenantCondition(condition, source))) {
      const verb = query.kind.replace("QueryNode", "").toLowerCase();
      throw new TenantGuardError(
        `${verb} on ${source.table} without a tenant_id condition (server/db/tenant-guard.ts)`,
      );
    }
  }
}

/** `from x`, `join x`, `into x`, `update x` in a raw fragment: the table a raw query reads or writes. */
export const RAW_TABLE = /\b(?:from|join|into|update)\s+"?([a-z_][a-z0-9_]*)/gi;

/** Refuses raw SQL that reads or writes a tenant table: neither guard can see its conditions. */
export function checkRaw(node: RawNode): void {
  for (const fragment of node.sqlFragments) {
    for (const [, table] of fragment.matchAll(RAW_TABLE)) {
      if (table && TENANT_TABLES.has(table.toLowerCase())) refuseRaw(table);
    }
  }
  for (const parameter of node.parameters) {
    const table = parameter.kind === "TableNode" ? identifierName(parameter) : undefined;
    if (table && TENANT_TABLES.has(table)) refuseRaw(table);
  }
}

export function refuseRaw(table: string): never {
  throw new TenantGuardError(
    `raw SQL on ${table}: build the query, or say crossTenant (server/db/tenant-guard.ts)`,
  );
}

/** Checks the query and every query inside it. */
export function checkTree(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) checkTree(item);
    return;
  }
  if (typeof node !== "object" || node === null) return;
  const n = node as Node;
  // Values hold no query (and walking a large one would cost).
  if (n.kind === "ValueNode" || n.kind === "PrimitiveValueListNode") return;
  if (typeof n.kind === "string" && QUERY_KINDS.has(n.kind)) checkQuery(n);
  if (n.kind === "RawNode") checkRaw(n as unknown as RawNode);
  for (const key in n) {
    const value = n[key];
    if (typeof value === "object" && value !== null) checkTree(value);
  }
}
