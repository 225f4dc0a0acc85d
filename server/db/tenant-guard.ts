import {
  BinaryOperationNode,
  ColumnNode,
  type DeleteQueryNode,
  InsertQueryNode,
  JoinNode,
  type Kysely,
  type KyselyPlugin,
  OnConflictNode,
  type OperationNode,
  OperationNodeTransformer,
  OperatorNode,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryId,
  type QueryResult,
  type RawNode,
  ReferenceNode,
  type RootOperationNode,
  type SelectQueryNode,
  TableNode,
  type UnknownRow,
  type UpdateQueryNode,
  ValueNode,
  WhereNode,
} from "kysely";
import { BINDS_TENANT, withoutGuard } from "./guarded-dialect";
import type { Database } from "./schema";
import {
  checkRaw,
  checkTree,
  identifierName,
  type Node,
  sourceOf,
  sourcesOf,
  TENANT_TABLES,
  TenantGuardError,
  tenantColumnTable,
} from "./tenant-conditions";

export { TENANT_TABLES, TenantGuardError };

/**
 * Tenancy by construction (issue 13, point 1): every query Herald builds on a table with a
 * `tenant_id` column must say which tenant — a `tenant_id = …` (or `in`, or `is null` for rows of
 * no tenant) condition on that table in its WHERE (or in the ON of the join that brings the table
 * in), and an insert must set `tenant_id`. A query that forgets it is refused before it reaches the database, in production as
 * in tests, so a missing tenant filter fails a test instead of leaking a tenant's rows.
 *
 * The condition must hold for the whole query: inside an OR it does not count. Subqueries are
 * checked on their own. Raw SQL (`sql\`…\``) that reads or writes a tenant table (`from`, `join`,
 * `into` or `update` it) is refused: its conditions cannot be checked.
 *
 * A request, and every worker acting for one tenant, does not use this guard but a database bound
 * to its tenant (`tenantDb`, issue 34): its plugin adds the tenant condition itself and refuses a
 * query naming another tenant.
 *
 * Code that is cross-tenant on purpose (the sender finding every tenant's due campaigns, the mail
 * retry queue, the lookups of a delivery named by a signed token) says so with `crossTenant(db)`,
 * each use with its reason.
 * The child tables (subscriptions, preference_changes, deliveries, campaign_events) carry their
 * parent's tenant since migration 0011, so they are guarded like any other.
 */

export class TenantGuardPlugin implements KyselyPlugin {
  transformQuery({ node }: PluginTransformQueryArgs): RootOperationNode {
    checkTree(node);
    return node;
  }

  async transformResult({ result }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return result;
  }
}

/**
 * A prepared query's stand-in for a value given at each call (server/db/prepared.ts): its tenant
 * cannot be checked when it is compiled; the guarded executor (server/db/guarded-dialect.ts)
 * compares the value in its place with the bound tenant at each run.
 */
export const PREPARED_VALUE = "\u0000herald-value:";

/** Comparisons that select rows of the tenant(s) they name. */
const NAMING_OPERATORS = new Set(["=", "==", "in", "is"]);

/** The values a tenant_id comparison's other side names, or undefined when it is not a value. */
function namedValues(node: OperationNode): unknown[] | undefined {
  const n = node as Node;
  if (n.kind === "ValueNode") return [n.value];
  if (n.kind === "PrimitiveValueListNode") return n.values as unknown[];
  if (n.kind === "ValueListNode") {
    return (n.values as Node[]).map((value) => (value.kind === "ValueNode" ? value.value : value));
  }
  return undefined;
}

/**
 * The plugin of a database bound to one tenant. It walks the whole query (subqueries included)
 * and gives every tenant table the query reads, updates or deletes its `tenant_id = <tenant>`
 * condition: in the WHERE for the tables of from, using and update, in the ON for a joined table
 * (so a left join keeps its other rows). A condition naming another tenant is refused, not
 * narrowed: it is a bug, and an empty answer would hide it. An insert into a tenant table must set
 * `tenant_id` to this tenant (not filled in: an insert says what it writes).
 */
class TenantBinder extends OperationNodeTransformer {
  readonly #tenantId: string;
  readonly #condition: (name: string) => BinaryOperationNode;

  constructor(tenantId: string) {
    super();
    this.#tenantId = tenantId;
    const equals = OperatorNode.create("=");
    const value = ValueNode.create(tenantId);
    const column = ColumnNode.create("tenant_id");
    this.#condition = (name) =>
      BinaryOperationNode.create(
        ReferenceNode.create(column, TableNode.create(name)),
        equals,
        value,
      );
  }

  #refuse(what: string): never {
    throw new TenantGuardError(
      `${what} on a database bound to tenant ${this.#tenantId} (server/db/tenant-guard.ts)`,
    );
  }

  #isOwnTenant(value: unknown): boolean {
    return (
      value === this.#tenantId || (typeof value === "string" && value.startsWith(PREPARED_VALUE))
    );
  }

  /** Adds the tenant condition for each tenant table the query itself reads or writes. */
  #bind<T extends SelectQueryNode | UpdateQueryNode | DeleteQueryNode>(query: T): T {
    let bound = query;
    const joins = query.joins;
    let newJoins: JoinNode[] | undefined;
    for (const source of sourcesOf(query as unknown as Node)) {
      if (!TENANT_TABLES.has(source.table) || source.on !== undefined) continue;
      bound = { ...bound, where: whereAnd(bound.where, this.#condition(source.name)) };
    }
    if (joins) {
      for (const [index, join] of joins.entries()) {
        const source = sourceOf(join.table);
        if (!source || !TENANT_TABLES.has(source.table)) continue;
        newJoins ??= [...joins];
        const condition = this.#condition(source.name);
        newJoins[index] = join.on
          ? JoinNode.cloneWithOn(join, condition)
          : JoinNode.createWithOn(join.joinType, join.table, condition);
      }
    }
    return newJoins ? ({ ...bound, joins: newJoins } as T) : bound;
  }

  protected override transformSelectQuery(node: SelectQueryNode, queryId?: QueryId) {
    return this.#bind(super.transformSelectQuery(node, queryId));
  }

  protected override transformUpdateQuery(node: UpdateQueryNode, queryId?: QueryId) {
    const table = sourceOf(node.table)?.table;
    if (table && TENANT_TABLES.has(table)) {
      for (const update of node.updates ?? []) {
        if (identifierName((update.column as Node).column) !== "tenant_id") continue;
        const values = namedValues(update.value);
        if (!values?.every((value) => this.#isOwnTenant(value))) {
          this.#refuse(`moving ${table} rows to another tenant`);
        }
      }
    }
    return this.#bind(super.transformUpdateQuery(node, queryId));
  }

  protected override transformDeleteQuery(node: DeleteQueryNode, queryId?: QueryId) {
    return this.#bind(super.transformDeleteQuery(node, queryId));
  }

  protected override transformInsertQuery(node: InsertQueryNode, queryId?: QueryId) {
    const table = identifierName(node.into);
    if (!table || !TENANT_TABLES.has(table)) return super.transformInsertQuery(node, queryId);
    this.#checkInsert(table, node);
    const insert = super.transformInsertQuery(node, queryId);
    const conflict = insert.onConflict;
    if (!conflict?.updates?.length) return insert;
    // An upsert updates the row it conflicts with: only a row of this tenant (the conflict
    // target may be a key another tenant's row holds, like an id).
    for (const update of conflict.updates) {
      if (identifierName((update.column as Node).column) !== "tenant_id") continue;
      const values = namedValues(update.value);
      if (!values?.every((value) => this.#isOwnTenant(value))) {
        this.#refuse(`moving ${table} rows to another tenant`);
      }
    }
    return InsertQueryNode.cloneWith(insert, {
      onConflict: OnConflictNode.cloneWithUpdateWhere(conflict, this.#condition(table)),
    });
  }

  #checkInsert(table: string, node: InsertQueryNode): void {
    const index = (node.columns ?? []).findIndex(
      (column) => identifierName(column.column) === "tenant_id",
    );
    if (index < 0) this.#refuse(`insert into ${table} without tenant_id`);
    const values = node.values as Node | undefined;
    if (values?.kind === "ValuesNode") {
      for (const row of values.values as Node[]) {
        const value =
          row.kind === "PrimitiveValueListNode"
            ? (row.values as unknown[])[index]
            : (row.values as Node[])[index]?.value;
        if (!this.#isOwnTenant(value)) this.#refuse(`insert into ${table} for another tenant`);
      }
      return;
    }
    if (values?.kind === "SelectQueryNode") {
      // insert … select: the tenant_id selected is a bound table's (a reference), or this tenant.
      let selected = ((values.selections as Node[] | undefined) ?? [])[index]?.selection as
        | Node
        | undefined;
      if (selected?.kind === "AliasNode") selected = selected.node as Node;
      if (selected && tenantColumnTable(selected) !== undefined) return;
      if (selected?.kind === "ValueNode" && this.#isOwnTenant(selected.value)) return;
    }
    this.#refuse(`insert into ${table} whose tenant_id is not this tenant`);
  }

  protected override transformBinaryOperation(node: BinaryOperationNode, queryId?: QueryId) {
    const operator = (node.operator as Node).operator as string;
    if (NAMING_OPERATORS.has(operator)) {
      for (const [column, other] of [
        [node.leftOperand, node.rightOperand],
        [node.rightOperand, node.leftOperand],
      ] as const) {
        if (tenantColumnTable(column) === undefined) continue;
        const values = namedValues(other);
        if (values && !values.every((value) => this.#isOwnTenant(value))) {
          this.#refuse(`a tenant_id condition naming ${values.map(String).join(", ")}`);
        }
      }
    }
    return super.transformBinaryOperation(node, queryId);
  }

  protected override transformRaw(node: RawNode, queryId?: QueryId) {
    checkRaw(node);
    return super.transformRaw(node, queryId);
  }

  // Values are immutable and hold no query: no copies (an import's insert holds thousands).
  protected override transformValue(node: ValueNode): ValueNode {
    return node;
  }
}

function whereAnd(where: WhereNode | undefined, condition: OperationNode): WhereNode {
  return where
    ? WhereNode.cloneWithOperation(where, "And", condition)
    : WhereNode.create(condition);
}

/** Whether a query touches a tenant table or names a tenant_id at all (most do; lookups of users, sessions, settings do not). */
function touchesTenant(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(touchesTenant);
  if (typeof node !== "object" || node === null) return false;
  const n = node as Node;
  if (n.kind === "ValueNode" || n.kind === "PrimitiveValueListNode") return false;
  if (n.kind === "IdentifierNode") {
    const name = n.name as string;
    return name === "tenant_id" || TENANT_TABLES.has(name);
  }
  if (n.kind === "RawNode") return true;
  for (const key in n) {
    const value = n[key];
    if (typeof value === "object" && value !== null && touchesTenant(value)) return true;
  }
  return false;
}

/** The plugin of a database bound to one tenant (see TenantBinder). */
export class TenantBoundPlugin implements KyselyPlugin {
  readonly tenantId: string;
  /** the guarded executor takes this database's mode from it (server/db/guarded-dialect.ts) */
  readonly [BINDS_TENANT]: string;
  readonly #binder: TenantBinder;

  constructor(tenantId: string) {
    this.tenantId = tenantId;
    this[BINDS_TENANT] = tenantId;
    this.#binder = new TenantBinder(tenantId);
  }

  transformQuery({ node, queryId }: PluginTransformQueryArgs): RootOperationNode {
    // Most queries of a page are on tenant tables; the rest (sessions, users, settings) cost a walk, not a copy.
    if (!touchesTenant(node)) return node;
    return this.#binder.transformNode(node, queryId);
  }

  async transformResult({ result }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return result;
  }
}

/** The tenant a database is bound to (tenantDb), or undefined for the root database. */
export function boundTenantOf(db: Kysely<Database>): string | undefined {
  for (const plugin of db.getExecutor().plugins) {
    if (plugin instanceof TenantBoundPlugin) return plugin.tenantId;
  }
  return undefined;
}

const boundDbs = new WeakMap<Kysely<Database>, Map<string, Kysely<Database>>>();

/**
 * The database bound to one tenant: every query on it reads and writes that tenant's rows only
 * (TenantBoundPlugin). Memoised per database and tenant, so a request builds none and a prepared
 * query (server/db/prepared.ts) is compiled once per tenant. A database already bound to the
 * tenant is returned as it is; binding it to another tenant is refused (say crossTenant first, with
 * the reason, for code that acts on another tenant on purpose).
 */
export function tenantDb<T extends Kysely<Database>>(db: T, tenantId: string): T {
  const bound = boundTenantOf(db);
  if (bound === tenantId) return db;
  if (bound !== undefined) {
    throw new TenantGuardError(
      `a database bound to tenant ${bound} rebound to ${tenantId} (server/db/tenant-guard.ts)`,
    );
  }
  let byTenant = boundDbs.get(db);
  if (!byTenant) {
    byTenant = new Map();
    boundDbs.set(db, byTenant);
  }
  let tenant = byTenant.get(tenantId);
  if (!tenant) {
    tenant = db.withoutPlugins().withPlugin(new TenantBoundPlugin(tenantId));
    byTenant.set(tenantId, tenant);
  }
  return tenant as T;
}

/**
 * The database without the tenant guard, for code that works across tenants on purpose. Say why
 * at each use; only the modules of CROSS_TENANT_MODULES may (server/db/tenant-guard-reach.test.ts).
 * The guarded executor's check is lifted too: `withoutPlugins()` alone keeps it.
 */
export function crossTenant<T extends Kysely<Database>>(db: T): T {
  // A transaction stays the same transaction (same connection), only unguarded.
  return withoutGuard(db);
}
