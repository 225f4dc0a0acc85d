import { z } from "../zod";

/** The forms of /admin/linkedin, told apart by their `intent`. */
export const linkedInFormSchema = z.discriminatedUnion("intent", [
  z.object({
    intent: z.literal("connect"),
    kind: z.enum(["member", "organization"], { error: "Choose whom to post as." }),
    organizationId: z.string().trim().optional(),
  }),
  z.object({ intent: z.literal("disconnect"), confirmed: z.literal("yes").optional() }),
  z.object({
    intent: z.literal("post"),
    newsletterId: z.string({ error: "Choose a newsletter." }).trim().min(1, "Choose a newsletter."),
    when: z.enum(["now", "at"], { error: "Choose when to post it." }),
    at: z.string().trim().optional(),
  }),
  z.object({ intent: z.literal("cancel"), postId: z.coerce.number().int().positive() }),
]);

export type LinkedInForm = z.infer<typeof linkedInFormSchema>;
