import { z } from "../zod";
import { storableText } from "./text";

/** SPEC §5 texts for a campaign. */
export const CAMPAIGN_TEXT = {
  required: "Subject and content are required",
  noGroups: "No valid groups specified",
  badSender: "Invalid sender email format",
} as const;

/** Campaign states (SPEC §4 and the admin filter), in the order the filter shows them. */
export const CAMPAIGN_STATUSES = [
  "draft",
  "scheduled",
  "sending",
  "sent",
  "paused",
  "failed",
  "cancelled",
] as const;

const checkbox = storableText()
  .optional()
  .transform((value) => value === "on" || value === "true" || value === "1");

/** What a campaign says and to whom: the fields the send form and the edit form share. */
const campaignFields = z.object({
  subject: storableText({ error: CAMPAIGN_TEXT.required })
    .trim()
    .min(1, CAMPAIGN_TEXT.required)
    .max(300, "Subject must be at most 300 characters"),
  senderName: storableText()
    .trim()
    .max(200, "Sender name must be at most 200 characters")
    .optional(),
  senderEmail: storableText()
    .trim()
    .max(254, CAMPAIGN_TEXT.badSender)
    .regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, CAMPAIGN_TEXT.badSender)
    .optional(),
  replyTo: storableText()
    .trim()
    .max(254, "Invalid reply-to email format")
    .regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, "Invalid reply-to email format")
    .optional(),
  lists: z.array(storableText().trim().max(100)).max(50, "Too many lists").default([]),
  /** segment ids (issue 16, point 4): lists and segments together make the audience */
  segments: z.array(z.coerce.number().int().positive()).max(50, "Too many segments").default([]),
  trackOpens: checkbox,
  trackClicks: checkbox,
  /** a datetime-local value, read in the tenant's time zone */
  scheduledAt: storableText().trim().max(40).optional(),
});

function needsSendTime(
  value: { mode: string; scheduledAt?: string; lists: string[]; segments: number[] },
  issues: z.RefinementCtx,
) {
  if (value.lists.length === 0 && value.segments.length === 0) {
    issues.addIssue({ code: "custom", path: ["lists"], message: CAMPAIGN_TEXT.noGroups });
  }
  if (value.mode === "schedule" && !value.scheduledAt) {
    issues.addIssue({ code: "custom", path: ["scheduledAt"], message: "Choose when to send it" });
  }
}

/**
 * The 'Send as email' form. The sender fields may be left blank (the tenant's email settings, then
 * the fixed default, fill them); the server applies SPEC's rules and messages to what is sent.
 */
export const campaignFormSchema = campaignFields
  .extend({
    intent: z.enum(["preview", "test", "review", "create"]).default("create"),
    /** the recipient count the review showed: "Send to N recipients" sends only while it holds */
    confirmedRecipients: z.coerce.number().int().min(0).optional(),
    /** the lists that review showed, as reviewCampaign names them (`audience`) */
    confirmedAudience: storableText().max(2_000).optional(),
    mode: z.enum(["now", "schedule", "draft"], { error: "Choose when to send it" }),
  })
  .superRefine(needsSendTime);

/** Editing a draft or scheduled campaign until it starts (issue 16, point 7). */
export const campaignEditSchema = campaignFields
  .extend({
    mode: z.enum(["schedule", "draft"], { error: "Choose when to send it" }),
    /** take the newsletter's content as it is now (it may have been edited since) */
    refreshContent: checkbox,
  })
  .superRefine(needsSendTime);

export type CampaignForm = z.infer<typeof campaignFormSchema>;
export type CampaignEdit = z.infer<typeof campaignEditSchema>;

/** What a campaign form sent, to fill the form again after a refusal. */
export function campaignFormValues(formData: FormData): Record<string, unknown> {
  return {
    ...Object.fromEntries(formData),
    lists: formData.getAll("lists").map(String),
    segments: formData.getAll("segments").map(String),
    trackOpens: formData.get("trackOpens") === "on",
    trackClicks: formData.get("trackClicks") === "on",
  };
}

/** Conform's refusal as messages per field and the form's own (its "" key). */
export function splitFormErrors(errors: Record<string, string[] | null> | null | undefined): {
  fields: Record<string, string[]>;
  form: string[];
} {
  const entries = Object.entries(errors ?? {});
  return {
    fields: Object.fromEntries(
      entries.filter(([key]) => key !== "").map(([key, messages]) => [key, messages ?? []]),
    ),
    form: errors?.[""] ?? [],
  };
}
