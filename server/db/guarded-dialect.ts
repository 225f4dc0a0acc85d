import {
  type CompiledQuery,
  type DatabaseConnection,
  DefaultConnectionProvider,
  DefaultQueryExecutor,
  type Dialect,
  type DialectAdapter,
  type Driver,
  Kysely,
  type KyselyPlugin,
  type QueryCompiler,
  type QueryExecutor,
  type QueryId,
  type QueryResult,
  type RootOperationNode,
  type TransactionSettings,
} from "kysely";
import { type MemoryCache, MiB, memoryCache, stringBytes } from "../memory-cache";
import type { Database } from "./schema";
import {
  type GuardMode,
  type TenantPositions,
  tenantPositionsOf,
  tenantTableInSql,
} from "./statement-check";
import { TenantGuardError } from "./tenant-conditions";

/**
 * The guard by construction (issue 44, target 5). Every statement runs through the executor of the
 * database it was built on, and that executor, not a plugin, decides: before a compiled query
 * reaches the driver it is proven (server/db/statement-check.ts) to name only the tenant(s) the
 * database may — its text is the text its operation-node tree compiles to, its tenant tables each
 * have their tenant's condition, and on a database bound to a tenant every value in a tenant
 * position (compared, inserted, set, a prepared query's stand-in too) is that tenant at this run.
 * Raw SQL, `sql.id`/`sql.table`/`sql.raw`, `db.executeQuery(CompiledQuery…)` and prepared queries
 * pass the same door. Dropping plugins (`withoutPlugins`) keeps the guard; only crossTenant lifts
 * it. A connection runs a statement no guarded executor saw (begin, commit, a savepoint) only when
 * its text names no tenant table.
 *
 * The proof is cached per SQL text (the text fixes the tree, so the proof holds for any run of it);
 * a run then costs a look-up and a comparison per tenant position.
 */

/** Marks a plugin that binds a database to a tenant (TenantBoundPlugin). */
export const BINDS_TENANT = Symbol("herald.binds-tenant");

const ROOT: GuardMode = { kind: "root" };
const CROSS: GuardMode = { kind: "cross" };
const MARK = Object.freeze({ tenantPosition: true });

interface Proof {
  positions: number[];
  inlined: unknown[];
}

/** One database's proofs and the statements its executors let through. */
interface GuardState {
  /** by mode and SQL text (the text itself the key: a prepared query's hashes once) */
  proofs: { root: MemoryCache<string, Proof>; tenant: MemoryCache<string, Proof> };
  approved: WeakSet<object>;
}

const proofCache = () =>
  memoryCache<string, Proof>({
    maxBytes: 4 * MiB,
    bytesOf: (proof, key) => stringBytes(key) + 64 + 8 * proof.positions.length,
  });

function newState(): GuardState {
  return {
    proofs: { root: proofCache(), tenant: proofCache() },
    approved: new WeakSet(),
  };
}

function refuse(message: string): never {
  throw new TenantGuardError(`${message} (server/db/guarded-dialect.ts)`);
}

/** The tree with each tenant-position value replaced by MARK: compiled, MARK shows where they are. */
function marked(node: unknown, positions: TenantPositions["values"]): unknown {
  if (Array.isArray(node)) {
    let changed = false;
    const items = node.map((item) => {
      const next = marked(item, positions);
      if (next !== item) changed = true;
      return next;
    });
    return changed ? items : node;
  }
  if (typeof node !== "object" || node === null) return node;
  const at = positions.get(node);
  const n = node as Record<string, unknown>;
  if (at !== undefined) {
    if (n.kind === "ValueNode") return { ...n, value: MARK };
    const values = n.values as unknown[];
    return {
      ...n,
      values: values.map((value, i) => (at === "all" || at.includes(i) ? MARK : value)),
    };
  }
  if (n.kind === "ValueNode" || n.kind === "PrimitiveValueListNode") return node;
  let copy: Record<string, unknown> | undefined;
  for (const key in n) {
    const value = n[key];
    if (typeof value !== "object" || value === null) continue;
    const next = marked(value, positions);
    if (next !== value) {
      copy ??= { ...n };
      copy[key] = next;
    }
  }
  return copy ?? node;
}

function prove(
  compiled: CompiledQuery,
  mode: GuardMode,
  compile: (node: RootOperationNode) => CompiledQuery,
): Proof {
  const found = tenantPositionsOf(compiled.query, mode);
  const recompiled = compile(marked(compiled.query, found.values) as RootOperationNode);
  if (recompiled.sql !== compiled.sql) refuse("a statement whose text is not its query's");
  const positions: number[] = [];
  for (const [index, parameter] of recompiled.parameters.entries()) {
    if (parameter === MARK) positions.push(index);
  }
  return { positions, inlined: found.inlined };
}

/** The executor of every database createDb opens: the guard in `mode`, then Kysely's own. */
export class GuardedExecutor implements QueryExecutor {
  readonly #inner: QueryExecutor;
  readonly mode: GuardMode;
  readonly #state: GuardState;

  constructor(inner: QueryExecutor, mode: GuardMode, state: GuardState) {
    this.#inner = inner;
    this.mode = mode;
    this.#state = state;
  }

  get adapter(): DialectAdapter {
    return this.#inner.adapter;
  }

  get plugins(): ReadonlyArray<KyselyPlugin> {
    return this.#inner.plugins;
  }

  transformQuery<T extends RootOperationNode>(node: T, queryId: QueryId): T {
    return this.#inner.transformQuery(node, queryId);
  }

  compileQuery<R = unknown>(node: RootOperationNode, queryId: QueryId): CompiledQuery<R> {
    return this.#inner.compileQuery(node, queryId);
  }

  /** Refuses a statement this database may not run; lets the driver know it was checked. */
  check(compiled: CompiledQuery): void {
    const mode = this.mode;
    if (mode.kind !== "cross") {
      const proofs = this.#state.proofs[mode.kind];
      let proof = proofs.get(compiled.sql);
      if (!proof) {
        proof = prove(compiled, mode, (node) => this.#inner.compileQuery(node, compiled.queryId));
        proofs.set(compiled.sql, proof);
      }
      if (mode.kind === "tenant") {
        for (const index of proof.positions) {
          const value = compiled.parameters[index];
          if (value !== mode.tenantId) {
            refuse(
              `a tenant_id value ${String(value)} on a database bound to tenant ${mode.tenantId}`,
            );
          }
        }
        for (const value of proof.inlined) {
          if (value !== mode.tenantId) {
            refuse(
              `a tenant_id value ${String(value)} on a database bound to tenant ${mode.tenantId}`,
            );
          }
        }
      }
    }
    this.#state.approved.add(compiled);
  }

  executeQuery<R>(compiled: CompiledQuery<R>): Promise<QueryResult<R>> {
    try {
      this.check(compiled);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#inner.executeQuery(compiled);
  }

  stream<R>(compiled: CompiledQuery<R>, chunkSize: number): AsyncIterableIterator<QueryResult<R>> {
    this.check(compiled);
    return this.#inner.stream(compiled, chunkSize);
  }

  provideConnection<T>(consumer: (connection: DatabaseConnection) => Promise<T>): Promise<T> {
    return this.#inner.provideConnection(consumer);
  }

  #with(inner: QueryExecutor, mode = this.mode): GuardedExecutor {
    return new GuardedExecutor(inner, mode, this.#state);
  }

  #modeWith(plugins: readonly KyselyPlugin[]): GuardMode {
    let mode = this.mode;
    for (const plugin of plugins) {
      const tenantId = (plugin as { [BINDS_TENANT]?: string })[BINDS_TENANT];
      if (tenantId === undefined) continue;
      if (mode.kind === "tenant" && mode.tenantId !== tenantId) {
        refuse(`a database bound to tenant ${mode.tenantId} rebound to ${tenantId}`);
      }
      mode = { kind: "tenant", tenantId };
    }
    return mode;
  }

  withPlugin(plugin: KyselyPlugin): GuardedExecutor {
    return this.#with(this.#inner.withPlugin(plugin), this.#modeWith([plugin]));
  }

  withPlugins(plugins: ReadonlyArray<KyselyPlugin>): GuardedExecutor {
    return this.#with(this.#inner.withPlugins(plugins), this.#modeWith(plugins));
  }

  withPluginAtFront(plugin: KyselyPlugin): GuardedExecutor {
    return this.#with(this.#inner.withPluginAtFront(plugin), this.#modeWith([plugin]));
  }

  withConnectionProvider(
    connectionProvider: Parameters<QueryExecutor["withConnectionProvider"]>[0],
  ): GuardedExecutor {
    return this.#with(this.#inner.withConnectionProvider(connectionProvider));
  }

  /** Plugins go; the guard stays — unless crossTenant is lifting it (withoutGuard). */
  withoutPlugins(): GuardedExecutor {
    return this.#with(this.#inner.withoutPlugins(), lifting ? CROSS : this.mode);
  }
}

let lifting = false;

/** The same database (a transaction stays the same transaction) with the guard lifted: crossTenant. */
export function withoutGuard<T extends Kysely<Database>>(db: T): T {
  lifting = true;
  try {
    return db.withoutPlugins() as T;
  } finally {
    lifting = false;
  }
}

/** The guard mode of a database: undefined for one not opened by guardedKysely. */
export function guardModeOf(db: Kysely<Database>): GuardMode | undefined {
  const executor = db.getExecutor();
  return executor instanceof GuardedExecutor ? executor.mode : undefined;
}

/**
 * The dialect's driver, initialised on first use (as Kysely's own runtime driver does), whose
 * connections run a statement no guarded executor checked only when its text names no tenant table.
 */
class GuardedDriver implements Driver {
  readonly #driver: Driver;
  readonly #state: GuardState;
  #init: Promise<void> | undefined;
  #destroy: Promise<void> | undefined;
  #destroyed = false;
  readonly #connections = new WeakMap<DatabaseConnection, DatabaseConnection>();

  constructor(driver: Driver, state: GuardState) {
    this.#driver = driver;
    this.#state = state;
  }

  init(): Promise<void> {
    if (this.#destroyed) return Promise.reject(new Error("the database is closed"));
    this.#init ??= this.#driver.init().catch((error) => {
      this.#init = undefined;
      throw error;
    });
    return this.#init;
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    await this.init();
    const connection = await this.#driver.acquireConnection();
    let guarded = this.#connections.get(connection);
    if (!guarded) {
      guarded = this.#guard(connection);
      this.#connections.set(connection, guarded);
    }
    return guarded;
  }

  #guard(connection: DatabaseConnection): DatabaseConnection {
    const unchecked = (compiled: CompiledQuery) => {
      if (this.#state.approved.has(compiled)) return;
      const table = tenantTableInSql(compiled.sql);
      if (table) refuse(`a statement on ${table} that no guarded executor checked`);
    };
    const guarded: DatabaseConnection & { inner: DatabaseConnection } = {
      inner: connection,
      executeQuery(compiled) {
        unchecked(compiled);
        return connection.executeQuery(compiled);
      },
      streamQuery(compiled, chunkSize) {
        unchecked(compiled);
        return connection.streamQuery(compiled, chunkSize);
      },
    };
    return guarded;
  }

  #inner(connection: DatabaseConnection): DatabaseConnection {
    return (connection as { inner?: DatabaseConnection }).inner ?? connection;
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.#driver.releaseConnection(this.#inner(connection));
  }

  // Transactions begin and end on the guarded connection: their statements pass its check.
  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.#driver.beginTransaction(connection, settings);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.#driver.commitTransaction(connection);
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.#driver.rollbackTransaction(connection);
  }

  savepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler["compileQuery"],
  ): Promise<void> {
    if (!this.#driver.savepoint) throw new Error("savepoints are not supported by this driver");
    return this.#driver.savepoint(connection, name, compile);
  }

  rollbackToSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler["compileQuery"],
  ): Promise<void> {
    if (!this.#driver.rollbackToSavepoint) {
      throw new Error("savepoints are not supported by this driver");
    }
    return this.#driver.rollbackToSavepoint(connection, name, compile);
  }

  releaseSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler["compileQuery"],
  ): Promise<void> {
    if (!this.#driver.releaseSavepoint)
      throw new Error("savepoints are not supported by this driver");
    return this.#driver.releaseSavepoint(connection, name, compile);
  }

  async destroy(): Promise<void> {
    if (!this.#init) return;
    await this.#init.catch(() => undefined);
    this.#destroyed = true;
    this.#destroy ??= this.#driver.destroy();
    await this.#destroy;
  }
}

/** A Kysely on `dialect` whose every statement passes the guard (root mode until bound). */
export function guardedKysely(dialect: Dialect, plugins: KyselyPlugin[]): Kysely<Database> {
  const state = newState();
  const driver = new GuardedDriver(dialect.createDriver(), state);
  const executor = new GuardedExecutor(
    new DefaultQueryExecutor(
      dialect.createQueryCompiler(),
      dialect.createAdapter(),
      new DefaultConnectionProvider(driver),
      plugins,
    ),
    ROOT,
    state,
  );
  return new Kysely<Database>({ config: { dialect, plugins }, dialect, driver, executor });
}
