import { z } from "../zod";

/*
 * The social pack's form (issue 36): intent=save with `linkedIn` and `short`, or intent=reset.
 * Another form (or a draft written for it) may fill the two fields and post intent=save.
 */

export const LINKEDIN_MAX = 3000;
export const SHORT_MAX = 280;

/** Characters as LinkedIn and X count them: code points, not UTF-16 units. */
export const charCount = (text: string) => Array.from(text).length;

export const SOCIAL_MESSAGES = {
  saved: "Social posts saved.",
  reset: "Social posts made again from the newsletter.",
  linkedInEmpty: "Write the LinkedIn post.",
  linkedInLong: `The LinkedIn post can be at most ${LINKEDIN_MAX.toLocaleString("en-US")} characters.`,
  shortEmpty: "Write the short post.",
  shortLong: `The short post can be at most ${SHORT_MAX} characters.`,
} as const;

/** A textarea's text: line ends as \n (browsers send \r\n), trailing blanks dropped. */
const postText = (empty: string, max: number, tooLong: string) =>
  z
    .string({ error: empty })
    .transform((text) => text.replace(/\r\n?/g, "\n").trim())
    // Conform reads an empty string as no value, in the piped schema too: blanks alone, trimmed
    // to "", must be refused with the same words as an empty field.
    .pipe(
      z
        .string({ error: empty })
        .min(1, empty)
        .refine((text) => charCount(text) <= max, tooLong),
    );

export const socialTextsSchema = z.object({
  linkedIn: postText(SOCIAL_MESSAGES.linkedInEmpty, LINKEDIN_MAX, SOCIAL_MESSAGES.linkedInLong),
  short: postText(SOCIAL_MESSAGES.shortEmpty, SHORT_MAX, SOCIAL_MESSAGES.shortLong),
});

export const socialIntentSchema = z.enum(["save", "reset"]);
