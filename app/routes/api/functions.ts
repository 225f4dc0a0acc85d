import { apiCaller } from "../../../server/api/auth";
import { readJson } from "../../../server/api/errors";
import { callFunction } from "../../../server/api/functions";
import { answerApi, methodNotAllowed } from "../../../server/api/route";
import { scopeOf } from "../../../server/http/context";
import { z } from "../../../shared/zod";
import type { Route } from "./+types/functions";

const envelope = z.object({ data: z.unknown().optional() });

/**
 * POST /api/functions/{name} with `{ "data": … }` (SPEC §7 callable functions): answers
 * `{ "result": … }`, or `{ "error": { "status", "message", "fields"? } }` with SPEC §8's HTTP status.
 * Callers are anonymous, or staff by session cookie or x-auth-token (server/api/auth.ts).
 */
export async function action({ request, context, params }: Route.ActionArgs) {
  if (request.method !== "POST") return methodNotAllowed(["POST"]);
  return answerApi(context, async () => {
    const caller = await apiCaller(context, request);
    const { data } = await readJson(request, envelope);
    const result = await callFunction(scopeOf(context), params.name, data, caller?.user ?? null);
    return { result };
  });
}

export function loader() {
  return methodNotAllowed(["POST"]);
}
