import { z } from "../zod";

/** Whom a connection posts as, in the words of the connect form. */
export const AUTHOR_KINDS = ["member", "organization"] as const;
export const AUTHOR_KIND_LABELS: Record<(typeof AUTHOR_KINDS)[number], string> = {
  member: "My LinkedIn profile",
  organization: "An organization page I administer",
};

/** When a post goes, in the words of the post form. */
export const POST_TIMES = ["now", "at"] as const;
export const POST_TIME_LABELS: Record<(typeof POST_TIMES)[number], string> = {
  now: "Now",
  at: "At the time below",
};

/** The forms of /admin/linkedin, told apart by their `intent`. */
export const linkedInFormSchema = z.discriminatedUnion(
  "intent",
  [
    z.object({
      intent: z.literal("connect"),
      kind: z.enum(AUTHOR_KINDS, { error: "Choose whom to post as." }),
      organizationId: z.string().trim().optional(),
      /** the newsletter staff arrived with, carried through LinkedIn (checked on return) */
      newsletterId: z.string().trim().optional(),
    }),
    z.object({ intent: z.literal("disconnect"), confirmed: z.literal("yes").optional() }),
    z.object({
      intent: z.literal("post"),
      newsletterId: z
        .string({ error: "Choose a newsletter." })
        .trim()
        .min(1, "Choose a newsletter."),
      when: z.enum(POST_TIMES, { error: "Choose when to post it." }),
      at: z.string().trim().optional(),
    }),
    z.object({
      intent: z.literal("cancel"),
      postId: z.coerce
        .number({ error: "Choose a post to withdraw." })
        .int("Choose a post to withdraw.")
        .positive("Choose a post to withdraw."),
    }),
    // Without its own words, a forged intent reads "Invalid discriminator value…".
  ],
  { error: "Unknown action." },
);

export type LinkedInForm = z.infer<typeof linkedInFormSchema>;
