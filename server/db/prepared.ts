import { type Compilable, type CompiledQuery, createQueryId } from "kysely";
import type { Db } from "./index";
import { boundTenantOf, PREPARED_VALUE, TenantGuardError } from "./tenant-guard";

const STAND_IN = PREPARED_VALUE;

/**
 * A query built, checked by the tenant guard and compiled once per database, then run with each
 * call's values: for the few queries every page runs, whose building and compiling cost about as
 * much CPU as SQLite takes to answer them. `build` gets a stand-in for each named value (typed
 * `never`, so it fits any column); a stand-in must end up as one of the query's parameters (a
 * value compared, a limit), never in its text.
 */
export function preparedQuery<Name extends string, Row>(
  build: (db: Db, value: (name: Name) => never) => Compilable<Row>,
): (db: Db, values: Readonly<Record<Name, unknown>>) => Promise<Row[]> {
  const compiled = new WeakMap<Db, { query: CompiledQuery<Row>; names: (Name | null)[] }>();
  return async (db, values) => {
    // A query still naming its tenant as a value (`tenant`) on a bound database: the same tenant.
    // (Any value in a tenant position is checked again by the guarded executor at each run.)
    const bound = boundTenantOf(db);
    if (bound !== undefined && "tenant" in values && values.tenant !== bound) {
      throw new TenantGuardError(
        `a prepared query for tenant ${String(values.tenant)} on a database bound to tenant ${bound}`,
      );
    }
    let prepared = compiled.get(db);
    if (!prepared) {
      const query = build(db, (name) => `${STAND_IN}${name}` as never).compile();
      if (query.sql.includes(STAND_IN)) {
        throw new Error(`a prepared query's values must be parameters: ${query.sql}`);
      }
      const names = query.parameters.map((parameter) =>
        typeof parameter === "string" && parameter.startsWith(STAND_IN)
          ? (parameter.slice(STAND_IN.length) as Name)
          : null,
      );
      prepared = { query, names };
      compiled.set(db, prepared);
    }
    const { query, names } = prepared;
    const parameters = query.parameters.map((parameter, index) => {
      const name = names[index];
      return name === null || name === undefined ? parameter : values[name];
    });
    const { rows } = await db.executeQuery<Row>({
      ...query,
      parameters,
      queryId: createQueryId(),
    });
    return rows;
  };
}
