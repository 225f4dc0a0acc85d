import { sql } from "kysely";
import { scopeOf } from "../../../server/http/context";
import type { Route } from "./+types/healthz";

/** Liveness and database reachability, for load balancers and the test harness. */
export async function loader({ context }: Route.LoaderArgs) {
  const { db } = scopeOf(context);
  await sql`select 1`.execute(db);
  return Response.json({ status: "ok" }, { headers: { "Cache-Control": "no-store" } });
}
