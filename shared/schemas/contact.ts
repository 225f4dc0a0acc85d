import { z } from "../zod";
import { emailField } from "./email";
import { storableText } from "./text";

export const CONTACT_LIMITS = { name: 200, company: 200, message: 5000 } as const;

/**
 * The contact form (SPEC §2 /contact): one schema gives the browser its constraints and the server
 * its validation. `website` is a honeypot: people never see it, form-filling bots do.
 */
export const contactSchema = z.object({
  name: storableText({ error: "Please enter your full name." })
    .trim()
    .min(1, "Please enter your full name.")
    .max(CONTACT_LIMITS.name, `Full name must be at most ${CONTACT_LIMITS.name} characters.`),
  email: emailField(),
  company: storableText()
    .trim()
    .max(CONTACT_LIMITS.company, `Company must be at most ${CONTACT_LIMITS.company} characters.`)
    .optional(),
  message: storableText({ error: "Please enter a message." })
    .trim()
    .min(1, "Please enter a message.")
    .max(CONTACT_LIMITS.message, `Message must be at most ${CONTACT_LIMITS.message} characters.`),
  website: storableText().optional(),
});

export type ContactInput = z.infer<typeof contactSchema>;
