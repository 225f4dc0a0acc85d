import type { OperationNode } from "kysely";
import {
  checkTree,
  conjuncts,
  identifierName,
  type Node,
  QUERY_KINDS,
  type Source,
  sourceOf,
  sourcesOf,
  TENANT_TABLES,
  TenantGuardError,
  tenantColumnTable,
} from "./tenant-conditions";

/**
 * What the guarded executor (server/db/guarded-dialect.ts) reads in a statement about to run: it
 * proves, from the statement's operation-node tree, that the statement names only the tenant(s)
 * it may. A statement it cannot prove this of is refused.
 *
 * - root (the unbound database): every tenant table the statement reads or writes has a tenant
 *   condition; raw SQL names no tenant table.
 * - tenant (a database bound to one tenant): the same, and every value in a tenant position (a
 *   `tenant_id` compared, inserted, set) is a parameter or literal the executor compares with the
 *   bound tenant at each run — a prepared query's stand-in included.
 */
export type GuardMode =
  | { readonly kind: "root" }
  | { readonly kind: "tenant"; readonly tenantId: string }
  | { readonly kind: "cross" };

/** The tenant positions of a statement: the value nodes to find among its parameters, and literals. */
export interface TenantPositions {
  /** value nodes (or primitive lists, with the indexes of their tenant values) in tenant positions */
  values: Map<object, number[] | "all">;
  /** tenant values written into the text (sql.lit, immediate values) */
  inlined: unknown[];
}

const NAMING_OPERATORS = new Set(["=", "==", "in", "is"]);

function refuse(message: string): never {
  throw new TenantGuardError(`${message} (server/db/guarded-dialect.ts)`);
}

/** Records the value side of a tenant position; anything else there is refused. */
function addValue(positions: TenantPositions, node: Node | undefined, what: string): void {
  if (node?.kind === "ValueNode") {
    if (node.immediate) positions.inlined.push(node.value);
    else positions.values.set(node, "all");
    return;
  }
  if (node?.kind === "PrimitiveValueListNode") {
    positions.values.set(node, "all");
    return;
  }
  if (node?.kind === "ValueListNode") {
    for (const value of node.values as Node[]) addValue(positions, value, what);
    return;
  }
  refuse(`${what} whose tenant is not a value`);
}

/** A tenant condition on `source` whose other side is a value (recorded). */
function boundCondition(conditions: Node[], source: Source, positions: TenantPositions): boolean {
  let found = false;
  for (const condition of conditions) {
    if (condition.kind !== "BinaryOperationNode") continue;
    const operator = (condition.operator as Node).operator as string;
    if (!NAMING_OPERATORS.has(operator)) continue;
    for (const [column, other] of [
      [condition.leftOperand, condition.rightOperand],
      [condition.rightOperand, condition.leftOperand],
    ] as [Node, Node][]) {
      const table = tenantColumnTable(column);
      if (table === undefined || (table !== "" && table !== source.name)) continue;
      const kind = other.kind;
      if (kind === "ValueNode" || kind === "PrimitiveValueListNode" || kind === "ValueListNode") {
        addValue(positions, other, "a condition");
        found = true;
      }
    }
  }
  return found;
}

/** Every tenant_id comparison anywhere names values in tenant positions (an OR's included). */
function recordComparisons(node: Node, positions: TenantPositions): void {
  const operator = (node.operator as Node).operator as string;
  if (!NAMING_OPERATORS.has(operator)) return;
  for (const [column, other] of [
    [node.leftOperand, node.rightOperand],
    [node.rightOperand, node.leftOperand],
  ] as [Node, Node][]) {
    if (tenantColumnTable(column) === undefined) continue;
    const kind = other.kind;
    if (kind === "ValueNode" || kind === "PrimitiveValueListNode" || kind === "ValueListNode") {
      addValue(positions, other, "a condition");
    }
  }
}

function checkBoundQuery(query: Node, positions: TenantPositions, sources: Set<object>): void {
  const verb = query.kind.replace("QueryNode", "").toLowerCase();
  if (query.kind === "MergeQueryNode") {
    const table = sourceOf(query.into)?.table;
    if (table && TENANT_TABLES.has(table)) refuse(`merge into ${table}`);
    return;
  }
  if (query.kind === "InsertQueryNode") {
    const table = identifierName(query.into);
    sources.add(query.into as object);
    if (!table || !TENANT_TABLES.has(table)) return;
    const columns = (query.columns as Node[] | undefined) ?? [];
    const index = columns.findIndex((column) => identifierName(column.column) === "tenant_id");
    if (index < 0) refuse(`insert into ${table} without tenant_id`);
    const values = query.values as Node | undefined;
    if (values?.kind === "ValuesNode") {
      for (const row of values.values as Node[]) {
        if (row.kind === "PrimitiveValueListNode") {
          const known = positions.values.get(row);
          positions.values.set(row, [...(known === "all" ? [] : (known ?? [])), index]);
        } else addValue(positions, (row.values as Node[])[index], `insert into ${table}`);
      }
    } else if (values?.kind === "SelectQueryNode") {
      let selected = ((values.selections as Node[] | undefined) ?? [])[index]?.selection as
        | Node
        | undefined;
      if (selected?.kind === "AliasNode") selected = selected.node as Node;
      if (!selected || tenantColumnTable(selected) === undefined) {
        addValue(positions, selected, `insert into ${table}`);
      }
    } else refuse(`insert into ${table} whose rows cannot be read`);
    const conflict = query.onConflict as Node | undefined;
    const updates = (conflict?.updates as Node[] | undefined) ?? [];
    if (updates.length > 0) {
      for (const update of updates) {
        if (identifierName((update.column as Node).column) === "tenant_id") {
          addValue(positions, update.value as Node, `an upsert of ${table}`);
        }
      }
      const where = conjuncts((conflict?.updateWhere as Node | undefined)?.where);
      if (!boundCondition(where, { table, name: table }, positions)) {
        refuse(`an upsert of ${table} that may update another tenant's row`);
      }
    }
    return;
  }
  if (query.kind === "UpdateQueryNode") {
    const table = sourceOf(query.table)?.table;
    for (const update of (query.updates as Node[] | undefined) ?? []) {
      if (table && TENANT_TABLES.has(table)) {
        if (identifierName((update.column as Node).column) === "tenant_id") {
          addValue(positions, update.value as Node, `an update of ${table}`);
        }
      }
    }
  }
  const where = conjuncts((query.where as Node | undefined)?.where);
  for (const source of sourcesOf(query)) {
    if (!TENANT_TABLES.has(source.table)) continue;
    const conditions = [...where, ...conjuncts(source.on)];
    if (!boundCondition(conditions, source, positions)) {
      refuse(`${verb} on ${source.table} without its tenant's condition`);
    }
  }
  for (const item of ((query.from as Node | undefined)?.froms as Node[] | undefined) ?? []) {
    sources.add(item.kind === "AliasNode" ? (item.node as object) : item);
  }
  for (const item of ((query.using as Node | undefined)?.tables as Node[] | undefined) ?? []) {
    sources.add(item.kind === "AliasNode" ? (item.node as object) : item);
  }
  for (const join of (query.joins as Node[] | undefined) ?? []) {
    const table = join.table as Node;
    sources.add(table.kind === "AliasNode" ? (table.node as object) : table);
  }
  if (query.table) {
    const table = query.table as Node;
    sources.add(table.kind === "AliasNode" ? (table.node as object) : table);
  }
}

/**
 * Walks the whole statement: checks each query in it, records the tenant positions, refuses raw
 * SQL naming a tenant table and a tenant table named anywhere but as a checked query's source.
 */
export function tenantPositionsOf(root: OperationNode, mode: GuardMode): TenantPositions {
  const positions: TenantPositions = { values: new Map(), inlined: [] };
  if (mode.kind === "cross") return positions;
  if (mode.kind === "root") checkTree(root);
  const sources = new Set<object>();
  const tables: Node[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) walk(item);
      return;
    }
    if (typeof node !== "object" || node === null) return;
    const n = node as Node;
    if (n.kind === "ValueNode" || n.kind === "PrimitiveValueListNode") return;
    if (typeof n.kind === "string" && (QUERY_KINDS.has(n.kind) || n.kind === "MergeQueryNode")) {
      if (mode.kind === "tenant") checkBoundQuery(n, positions, sources);
    }
    if (n.kind === "BinaryOperationNode" && mode.kind === "tenant") recordComparisons(n, positions);
    if (n.kind === "RawNode") {
      const table = rawTenantTable(n);
      if (table) refuseRawTable(table);
    }
    if (n.kind === "TableNode") tables.push(n);
    for (const key in n) {
      // A column's table qualifier (`tags.name`) reads nothing: its source is checked.
      if (n.kind === "ReferenceNode" && key === "table") continue;
      if (n.kind === "SelectAllNode" || key === "kind") continue;
      const value = n[key];
      if (typeof value === "object" && value !== null) walk(value);
    }
  };
  walk(root);
  if (mode.kind === "tenant") {
    for (const table of tables) {
      const name = identifierName(table);
      if (name && TENANT_TABLES.has(name) && !sources.has(table)) {
        refuse(`a statement naming ${name} outside a query's sources`);
      }
    }
  }
  return positions;
}

export function refuseRawTable(table: string): never {
  throw new TenantGuardError(
    `raw SQL on ${table}: build the query, or say crossTenant (server/db/guarded-dialect.ts)`,
  );
}

/** A raw fragment as text: its parameters as the names they carry, values and queries as `?`. */
function rawText(node: Node): string {
  const fragments = node.sqlFragments as string[];
  const parameters = node.parameters as Node[];
  let text = fragments[0] ?? "";
  for (const [index, parameter] of parameters.entries()) {
    text += ` ${parameterText(parameter)} ${fragments[index + 1] ?? ""}`;
  }
  return text;
}

function parameterText(node: Node): string {
  switch (node.kind) {
    case "IdentifierNode":
      return `"${node.name as string}"`;
    case "SchemableIdentifierNode":
    case "TableNode":
      return `"${identifierName(node) ?? ""}"`;
    case "ColumnNode":
      return parameterText(node.column as Node);
    case "ReferenceNode":
      return node.table
        ? `${parameterText(node.table as Node)}.${parameterText(node.column as Node)}`
        : parameterText(node.column as Node);
    case "SelectAllNode":
      return "*";
    case "AliasNode":
      return `${parameterText(node.node as Node)} as ${parameterText(node.alias as Node)}`;
    case "RawNode":
      return rawText(node);
    default:
      return "(?)";
  }
}

export function rawTenantTable(node: Node): string | undefined {
  return tenantTableInSql(rawText(node));
}

const TOKEN =
  /'(?:[^']|'')*'|"((?:[^"]|"")*)"|`([^`]*)`|([A-Za-z_][A-Za-z0-9_$]*)|--[^\n]*|\/\*[\s\S]*?\*\/|\s+|([(),.;])|[^\sA-Za-z_'"`(),.;]+/g;
/** Keywords after which a name is a table the statement reads or writes. */
const TABLE_BEFORE = new Set([
  "from",
  "join",
  "into",
  "update",
  "using",
  "table",
  "truncate",
  "copy",
]);
/** Keywords that end a FROM list (after them a comma no longer joins a table). */
const FROM_ENDS = new Set([
  "where",
  "group",
  "order",
  "limit",
  "having",
  "window",
  "union",
  "except",
  "intersect",
  "set",
  "values",
  "returning",
  "select",
  "offset",
  "fetch",
  "for",
  "do",
]);

/**
 * The first tenant table a SQL text reads or writes: a name (bare or quoted, schema-qualified or
 * not) after from, join, into, update, using, table, or after a comma in a FROM list. A name
 * qualifying a column (`subscribers.email`) and a name in a string are not a table read.
 */
export function tenantTableInSql(text: string): string | undefined {
  const tokens: { word?: string; name?: string; punct?: string }[] = [];
  for (const match of text.matchAll(TOKEN)) {
    const [, quoted, backticked, bare, punct] = match;
    if (quoted !== undefined) tokens.push({ name: quoted.replaceAll('""', '"') });
    else if (backticked !== undefined) tokens.push({ name: backticked });
    else if (bare !== undefined)
      tokens.push({ word: bare.toLowerCase(), name: bare.toLowerCase() });
    else if (punct !== undefined) tokens.push({ punct });
    else if (match[0].trim() && !match[0].startsWith("--") && !match[0].startsWith("/*")) {
      tokens.push({ punct: match[0] });
    }
  }
  const inFrom: boolean[] = [false];
  for (const [index, token] of tokens.entries()) {
    if (token.punct === "(") inFrom.push(false);
    else if (token.punct === ")") inFrom.length > 1 && inFrom.pop();
    else if (token.word === "from" || token.word === "using") inFrom[inFrom.length - 1] = true;
    else if (token.word && FROM_ENDS.has(token.word)) inFrom[inFrom.length - 1] = false;
    if (token.name === undefined || !TENANT_TABLES.has(token.name)) continue;
    if (tokens[index + 1]?.punct === ".") continue;
    // The token before the name, past a schema qualifier (`public.subscribers`).
    let before = index - 1;
    if (tokens[before]?.punct === "." && tokens[before - 1]?.name !== undefined) before -= 2;
    const previous = tokens[before];
    if (previous?.word && TABLE_BEFORE.has(previous.word)) return token.name;
    if (previous?.punct === "," && inFrom[inFrom.length - 1]) return token.name;
  }
  return undefined;
}
