import { z } from "../zod";
import { emailField } from "./email";
import { storableText } from "./text";

/** SPEC §2's feedback reasons, word for word: the unsubscribe page offers them, the server stores them. */
export const FEEDBACK_REASONS = [
  "Too many emails",
  "Content not relevant",
  "Signed up by mistake",
  "No longer interested",
  "Other",
] as const;
export const FEEDBACK_DETAILS_MAX = 1000;

/** The unsubscribe page's forms (the page and its action share them). */
export const unsubscribeSchema = z.object({
  intent: z.literal("unsubscribe"),
  email: emailField(),
});

/** The one button behind a signed unsubscribe link. */
export const confirmUnsubscribeSchema = z.object({
  intent: z.literal("confirm"),
  token: storableText().min(1).max(1000),
});

export const feedbackSchema = z.object({
  intent: z.literal("feedback"),
  done: storableText().max(1000),
  reason: z.enum(FEEDBACK_REASONS, { error: "Please choose a reason." }),
  details: storableText()
    .trim()
    .max(FEEDBACK_DETAILS_MAX, `Please keep it under ${FEEDBACK_DETAILS_MAX} characters.`)
    .optional(),
});
