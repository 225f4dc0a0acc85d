import { z } from "zod";
import { zonedLocalToUtc } from "../../shared/time-zone";
import { findImagesByUrl } from "../files/stored-images";
import type { TenantScope } from "../scope";
import { CoverImageNotFoundError, SCHEDULE_MESSAGES } from "./errors";
import { sanitizeNewsletterHtml } from "./sanitize";
import { isServableSlug, MAX_SLUG_LENGTH, TOP_LEVEL_SEGMENTS, topLevelSlugMessage } from "./slugs";
import { tagsFieldSchema } from "./tags";

/** The newsletter form (SPEC §2, §5): all four fields required, read time at least 1 minute. */
export const newsletterInputSchema = z
  .object({
    title: z
      .string({ error: "Title is required" })
      .trim()
      .min(1, "Title is required")
      .max(200, "Title must be at most 200 characters"),
    excerpt: z
      .string({ error: "Excerpt is required" })
      .trim()
      .min(1, "Excerpt is required")
      .max(500, "Excerpt must be at most 500 characters"),
    content: z
      .string({ error: "Content is required" })
      .max(500_000, "Content is too long")
      .refine(
        (html) =>
          sanitizeNewsletterHtml(html)
            .replace(/<[^>]*>/g, "")
            .trim().length > 0 || /<img\s/i.test(html),
        {
          message: "Content is required",
        },
      ),
    // Blank: made from the title (new), or kept (existing). Issue 15, part 1.
    slug: z
      .string()
      .trim()
      .toLowerCase()
      .max(MAX_SLUG_LENGTH, `The URL must be at most ${MAX_SLUG_LENGTH} characters`)
      .refine((slug) => slug === "" || isServableSlug(slug), {
        message: "The URL may use lower-case letters, digits and single hyphens only",
      })
      .superRefine((slug, issues) => {
        if (TOP_LEVEL_SEGMENTS.has(slug)) {
          issues.addIssue({ code: "custom", message: topLevelSlugMessage(slug) });
        }
      })
      .optional(),
    // Blank: counted from the text (issue 15); a number overrides the count.
    readTime: z.coerce
      .number({ error: "Read time must be a number of minutes" })
      .int("Read time must be a whole number of minutes")
      .min(1, "Read time must be at least 1 minute")
      .max(600, "Read time must be at most 600 minutes")
      .optional(),
    // Comma-separated names (issue 15, part 2); absent: the tags stay as they are.
    tags: tagsFieldSchema.optional(),
    // An image uploaded to this tenant (/uploads/…), checked on save; blank: no cover. Part 4.
    coverImage: z
      .string()
      .trim()
      .max(300, "Choose the cover image again")
      .refine((url) => url === "" || COVER_URL.test(url), {
        message: "Choose the cover image again",
      })
      .optional(),
    coverAlt: z
      .string()
      .trim()
      .max(300, "The cover's description must be at most 300 characters")
      .optional(),
  })
  .refine((input) => !input.coverImage || Boolean(input.coverAlt), {
    path: ["coverAlt"],
    message: "Describe the cover image for readers who cannot see it",
  });

const COVER_URL = /^\/uploads\/[a-z0-9-]+\/[a-f0-9]{32}\.(?:png|jpe?g|gif|webp)$/;

/** Words a minute a reader gets through: the usual estimate for reading on screen. */
export const WORDS_PER_MINUTE = 230;

/** Minutes to read sanitised newsletter HTML: its words ÷ 230, at least 1. */
export function estimateReadTime(html: string): number {
  const text = html.replace(/<[^>]*>/g, " ").replace(/&[a-z#0-9]+;/gi, " ");
  const words = text.split(/\s+/).filter((word) => /[\p{L}\p{N}]/u.test(word)).length;
  return Math.max(1, Math.round(words / WORDS_PER_MINUTE));
}

export type NewsletterInput = z.infer<typeof newsletterInputSchema>;

/** The cover must be one of the tenant's own uploads (checked, not trusted from the form). */
export async function checkCover(ctx: TenantScope, input: NewsletterInput): Promise<void> {
  if (!input.coverImage) return;
  const found = await findImagesByUrl(ctx.db, ctx.tenantId, [input.coverImage]);
  if (!found.has(input.coverImage)) throw new CoverImageNotFoundError();
}

/** The editor's schedule panel: a wall-clock time in the tenant's time zone, and whether to send too. */
const scheduleFormSchema = z.object({
  publishAt: z
    .string({ error: "Choose when to publish it" })
    .trim()
    .min(1, "Choose when to publish it"),
  sendEmail: z.literal("on").optional(),
});

/** The schedule a form asks for, checked before anything is saved: a refused one changes nothing. */
export function readScheduleForm(
  form: FormData,
  timeZone: string,
  status: string,
): { at: string; send: boolean } | { error: string } {
  const parsed = scheduleFormSchema.safeParse(Object.fromEntries(form));
  const at = parsed.success ? zonedLocalToUtc(parsed.data.publishAt, timeZone) : null;
  if (!parsed.success || !at) return { error: "Choose a date and a time to publish it" };
  if (Date.parse(at) <= Date.now()) return { error: SCHEDULE_MESSAGES.past };
  if (status === "published") return { error: SCHEDULE_MESSAGES.notDraft };
  return { at, send: parsed.data.sendEmail === "on" };
}
