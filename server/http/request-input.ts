import { data } from "react-router";
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from "../../shared/schemas/text";
import { ApiError, apiErrorResponse } from "../api/errors";

/*
 * Issue 32, target 2: no input gives a 5xx. The one place that refuses what a route could not
 * read — a body that is not a form sent to a page's action (415), a form that does not parse (400)
 * — and text PostgreSQL cannot store (NUL, lone surrogates) in a path parameter, the query or a
 * form field (400). The root middleware calls it before any loader or action runs; a refused page
 * keeps the tenant's layout, a refused API call gets SPEC §8's envelope.
 */

const READ_ONLY = new Set(["GET", "HEAD", "OPTIONS"]);
const FORM_TYPES = ["application/x-www-form-urlencoded", "multipart/form-data"];

/**
 * Routes that read their own body: the JSON APIs and the MailerLite webhook (server/api/errors.ts
 * readJson answers a body that is not JSON); the RFC 8058 one-click unsubscribe, which reads no
 * body (a mail provider's POST may come with any content type); and signing out, which never
 * fails (it reads an optional form, and a bare POST signs out too); and the not-found page, which
 * takes no write at all (React Router answers 405 before any body is read).
 */
const OWN_BODY = new Set(["/subscription/one-click/:token", "/admin/logout", "/*"]);
function readsOwnBody(pattern: string): boolean {
  return pattern.startsWith("/api/") || OWN_BODY.has(pattern);
}

export const INPUT_MESSAGES = {
  notForm: "This address takes a form (application/x-www-form-urlencoded or multipart/form-data).",
  brokenForm: "The form could not be read.",
  unstorable: UNSTORABLE_TEXT_MESSAGE,
} as const;

export async function refuseUnreadableInput(
  request: Request,
  url: URL,
  routePattern: string,
  params: Record<string, string | undefined>,
  /** the layout's data, which a refused page still needs */
  layoutData: () => unknown,
): Promise<void> {
  // React Router joins route paths without the leading slash ("api/tenants/:id").
  const pattern = routePattern.startsWith("/") ? routePattern : `/${routePattern}`;
  const refuse = (status: 400 | 415, message: string): never => {
    if (pattern.startsWith("/api/")) {
      throw apiErrorResponse(new ApiError("INVALID_ARGUMENT", message));
    }
    throw data({ message, root: layoutData() }, { status });
  };
  if (!Object.values(params).every((value) => value === undefined || isStorableText(value))) {
    refuse(400, INPUT_MESSAGES.unstorable);
  }
  for (const [name, value] of url.searchParams) {
    if (!isStorableText(name) || !isStorableText(value)) refuse(400, INPUT_MESSAGES.unstorable);
  }
  if (READ_ONLY.has(request.method) || readsOwnBody(pattern)) return;
  const type = (request.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
  if (!FORM_TYPES.includes(type ?? "")) refuse(415, INPUT_MESSAGES.notForm);
  // A copy is read here, so the action reads the form as it always has.
  let form: FormData;
  try {
    form = await request.clone().formData();
  } catch {
    return refuse(400, INPUT_MESSAGES.brokenForm);
  }
  for (const [name, value] of form) {
    const text = typeof value === "string" ? value : value.name;
    if (!isStorableText(name) || !isStorableText(text)) refuse(400, INPUT_MESSAGES.unstorable);
  }
}
