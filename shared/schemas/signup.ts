import { z } from "../zod";
import { emailField } from "./email";
import { storableText } from "./text";

export const SIGNUP_LIMITS = { name: 100, lists: 20 } as const;

/** The one answer to every accepted sign-up: known or new address, double opt-in or not. */
export const SIGNUP_THANKS =
  "Thanks! Please check your inbox — we've sent you an email about your subscription.";
export const SIGNUP_RATE_LIMITED =
  "Too many sign-up attempts. Please wait a few minutes and try again.";
export const SIGNUP_MAIL_FAILED = "We could not send the email. Please try again.";
export const CHOOSE_A_LIST = "Please choose at least one newsletter.";

/**
 * The newsletter sign-up form (SPEC §7 completeNewsletterSignup), shared by the browser and the
 * action. `lists` are list keys; none means the tenant's default list. `chooseLists` is sent by the
 * full form, whose visitor ticks the lists: there, ticking none is a mistake to point out rather
 * than a request for the default. `website` is the honeypot.
 */
export const signupSchema = z
  .object({
    email: emailField(),
    name: storableText()
      .trim()
      .max(SIGNUP_LIMITS.name, `Name must be at most ${SIGNUP_LIMITS.name} characters.`)
      .optional(),
    lists: z
      .array(storableText().trim().max(100))
      .max(SIGNUP_LIMITS.lists, "Too many lists.")
      .optional(),
    chooseLists: z.literal("1").optional(),
    website: storableText().optional(),
    /** the page whose form was used (consent evidence); anything else is dropped */
    page: storableText()
      .max(300)
      .optional()
      .transform((page) => (page?.startsWith("/") ? page : undefined))
      .catch(undefined),
  })
  .superRefine((value, issues) => {
    if (value.chooseLists && !value.lists?.length) {
      issues.addIssue({ code: "custom", path: ["lists"], message: CHOOSE_A_LIST });
    }
  });

export type SignupInput = z.infer<typeof signupSchema>;
