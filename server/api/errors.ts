import { ZodError, type z } from "zod";
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from "../../shared/schemas/text";
import { CampaignError } from "../campaigns/errors";
import type { Logger } from "../logger";
import { ProviderError } from "../providers/types";
import { SubscriptionError } from "../subscribers/errors";

/** SPEC §8's status mapping, shared by the tenant API and the functions API. */
export const API_STATUS = {
  INVALID_ARGUMENT: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  ABORTED: 409,
  RESOURCE_EXHAUSTED: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
  DEADLINE_EXCEEDED: 504,
} as const;

export type ApiStatus = keyof typeof API_STATUS;

/** An error whose message the caller may read as it is. */
export class ApiError extends Error {
  constructor(
    readonly status: ApiStatus,
    message: string,
    /** field path → messages, for INVALID_ARGUMENT */
    readonly fields?: Record<string, string[]>,
  ) {
    super(message);
  }
}

export const API_MESSAGES = {
  unauthenticated: "Sign in or send a valid x-auth-token header",
  superAdminOnly: "Only super admins may do this",
  twoFactorRequired:
    "Two-factor sign-in is required for all staff: set it up at /admin/account first",
  notJson: "The request body must be JSON",
  internal: "An error occurred while processing your request.",
} as const;

export function statusForHttp(code: number): ApiStatus {
  const match = Object.entries(API_STATUS).find(([, http]) => http === code);
  if (match) return match[0] as ApiStatus;
  return code >= 500 ? "INTERNAL" : "INVALID_ARGUMENT";
}

/** Field path → messages of a zod error, for forms and API callers alike. */
export function zodFields(error: ZodError): Record<string, string[]> {
  const fields: Record<string, string[]> = {};
  for (const issue of error.issues) {
    const key = issue.path.join(".") || "_";
    fields[key] = [...(fields[key] ?? []), issue.message];
  }
  return fields;
}

/** Any error as an ApiError: known errors keep their message, anything else is INTERNAL. */
export function toApiError(error: unknown, logger?: Logger): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof ZodError) {
    const fields = zodFields(error);
    const [first] = error.issues;
    const where = first?.path.length ? `${first.path.join(".")}: ` : "";
    return new ApiError("INVALID_ARGUMENT", `${where}${first?.message ?? "Invalid input"}`, fields);
  }
  if (error instanceof ProviderError) {
    const fields = Object.keys(error.fields).length > 0 ? error.fields : undefined;
    return new ApiError(error.status, error.message, fields);
  }
  if (error instanceof CampaignError || error instanceof SubscriptionError) {
    return new ApiError(statusForHttp(error.status), error.message);
  }
  logger?.error({ err: error }, "API call failed");
  return new ApiError("INTERNAL", API_MESSAGES.internal);
}

/** `{ "error": { "status", "message", "fields"? } }` with the HTTP status of SPEC §8. */
export function apiErrorResponse(error: unknown, logger?: Logger): Response {
  const apiError = toApiError(error, logger);
  const headers: Record<string, string> = { "cache-control": "no-store" };
  if (apiError.status === "UNAUTHENTICATED") headers["www-authenticate"] = "x-auth-token";
  return Response.json(
    {
      error: {
        status: apiError.status,
        message: apiError.message,
        ...(apiError.fields ? { fields: apiError.fields } : {}),
      },
    },
    { status: API_STATUS[apiError.status], headers },
  );
}

/** The JSON body parsed with `schema`; a body that is not JSON is INVALID_ARGUMENT. */
export async function readJson<T extends z.ZodType>(
  request: Request,
  schema: T,
): Promise<z.output<T>> {
  let body: unknown;
  try {
    const text = await request.text();
    body = text.trim() === "" ? {} : JSON.parse(text);
  } catch {
    throw new ApiError("INVALID_ARGUMENT", API_MESSAGES.notJson);
  }
  if (!storableJson(body)) throw new ApiError("INVALID_ARGUMENT", UNSTORABLE_TEXT_MESSAGE);
  return schema.parse(body);
}

/** Every string of a JSON value, keys included, one the databases can store (no NUL…). */
function storableJson(value: unknown): boolean {
  if (typeof value === "string") return isStorableText(value);
  if (Array.isArray(value)) return value.every(storableJson);
  if (value && typeof value === "object") {
    return Object.entries(value).every(([key, item]) => isStorableText(key) && storableJson(item));
  }
  return true;
}

export function jsonResponse(body: unknown, status = 200): Response {
  return Response.json(body, { status, headers: { "cache-control": "no-store" } });
}
