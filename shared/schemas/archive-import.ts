import { z } from "../zod";

/** Client-safe constants and the form of the newsletter import page (/admin/newsletter/import). */
export const ARCHIVE_SOURCES = ["ghost", "substack"] as const;

/**
 * The largest archive accepted: 50 MB (a Ghost export of 500 long posts, html, Lexical and plain text, is about 10 MB), inside
 * the import route's body limit (server/http/security.ts).
 */
export const MAX_ARCHIVE_UPLOAD_BYTES = 50_000_000;
export const MAX_ARCHIVE_UPLOAD_LABEL = "50 MB";

/** The form's fields besides the file. */
export const archiveImportFormSchema = z.object({
  source: z.enum(ARCHIVE_SOURCES, { error: "Choose Ghost or Substack" }),
  siteUrl: z
    .string()
    .trim()
    .max(300, "The address must be at most 300 characters")
    .refine((value) => value === "" || /^https?:\/\/[^\s/]+/i.test(value), {
      message: "Give the address as https://… (or leave it blank)",
    })
    .optional(),
});
