import { z } from "../zod";

/*
 * Text PostgreSQL cannot store (issue 32, finding 5): NUL, which no text column takes, and lone
 * surrogates, which have no UTF-8 form. One definition for every place a string enters: the root
 * middleware (path parameters, the query, form fields), the JSON APIs (server/api/errors.ts
 * readJson) and the schemas (storableText).
 */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export const UNSTORABLE_TEXT_MESSAGE =
  "Text may not contain NUL characters or unpaired surrogates (not valid UTF-8)";

export function isStorableText(value: string): boolean {
  return !value.includes("\u0000") && !LONE_SURROGATE.test(value);
}

/** A string the databases can store: z.string() with the check above. */
export const storableText = (params?: Parameters<typeof z.string>[0]) =>
  z.string(params).refine(isStorableText, UNSTORABLE_TEXT_MESSAGE);
