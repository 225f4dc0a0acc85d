import type { RouterContextProvider } from "react-router";
import { requestContext } from "../http/context";
import { apiErrorResponse, jsonResponse } from "./errors";

type Context = Readonly<RouterContextProvider>;

/**
 * Runs an API route's work and answers JSON: its value with 200 (or the Response it built), or
 * the SPEC §8 error envelope for whatever it threw.
 */
export async function answerApi(
  context: Context,
  work: () => Promise<unknown>,
  status = 200,
): Promise<Response> {
  try {
    const value = await work();
    return value instanceof Response ? value : jsonResponse(value, status);
  } catch (error) {
    if (error instanceof Response) return error;
    return apiErrorResponse(error, context.get(requestContext).logger);
  }
}

export function methodNotAllowed(allowed: string[]): Response {
  return Response.json(
    { error: { status: "INVALID_ARGUMENT", message: `Use ${allowed.join(" or ")}` } },
    { status: 405, headers: { allow: allowed.join(", "), "cache-control": "no-store" } },
  );
}
