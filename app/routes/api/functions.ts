import { z } from "zod";
import { apiCaller } from "../../../server/api/auth";
import { apiErrorResponse, jsonResponse, readJson } from "../../../server/api/errors";
import { callFunction, functionScopeFrom } from "../../../server/api/functions";
import { requestContext } from "../../../server/http/context";
import type { Route } from "./+types/functions";

const envelope = z.object({ data: z.unknown().optional() });

/**
 * POST /api/functions/{name} with `{ "data": … }` (SPEC §7 callable functions): answers
 * `{ "result": … }`, or `{ "error": { "status", "message", "fields"? } }` with SPEC §8's HTTP status.
 * Callers are anonymous, or staff by session cookie or x-auth-token (server/api/auth.ts).
 */
export async function action({ request, context, params }: Route.ActionArgs) {
  if (request.method !== "POST") return methodNotAllowed();
  const { logger } = context.get(requestContext);
  try {
    const caller = await apiCaller(context, request);
    const { data } = await readJson(request, envelope);
    const result = await callFunction(
      functionScopeFrom(context),
      params.name,
      data,
      caller?.user ?? null,
    );
    return jsonResponse({ result });
  } catch (error) {
    return apiErrorResponse(error, logger);
  }
}

export function loader() {
  return methodNotAllowed();
}

function methodNotAllowed(): Response {
  return Response.json(
    { error: { status: "INVALID_ARGUMENT", message: "Call a function with POST" } },
    { status: 405, headers: { allow: "POST", "cache-control": "no-store" } },
  );
}
