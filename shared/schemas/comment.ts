import { z } from "../zod";
import { storableText } from "./text";

/** DESIGN.md §7.8: anonymous comments are bounded. */
export const COMMENT_MAX_LENGTH = 2000;
export const COMMENT_TOO_LONG = `Comments must be at most ${COMMENT_MAX_LENGTH} characters.`;

/**
 * A comment's text (SPEC §5): line breaks normalised to \n (browsers send \r\n, which would count
 * twice against the limit the textarea enforces), then trimmed. Blank text is valid here: the
 * comment is silently ignored, not refused.
 */
export const commentTextSchema = storableText()
  .optional()
  .transform((text = "") => text.replace(/\r\n?/g, "\n").trim())
  .refine((text) => text.length <= COMMENT_MAX_LENGTH, COMMENT_TOO_LONG);

/**
 * The public comment form. `website` is the honeypot; `enhanced` is sent only by the hydrated page,
 * which wants the updated list back instead of a redirect.
 */
export const commentFormSchema = z.object({
  text: commentTextSchema,
  website: storableText().optional(),
  enhanced: z.literal("1").optional(),
});

export type CommentFormInput = z.infer<typeof commentFormSchema>;
