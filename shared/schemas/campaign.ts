import { z } from "zod";

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

const checkbox = z
  .string()
  .optional()
  .transform((value) => value === "on" || value === "true" || value === "1");

/**
 * The 'Send as email' form. The sender fields may be left blank (the tenant's email settings, then
 * the fixed default, fill them); the server applies SPEC's rules and messages to what is sent.
 */
export const campaignFormSchema = z
  .object({
    intent: z.enum(["preview", "test", "review", "create"]).default("create"),
    /** the recipient count the review showed: "Send to N recipients" sends only while it holds */
    confirmedRecipients: z.coerce.number().int().min(0).optional(),
    /** the lists that review showed, as reviewCampaign names them (`audience`) */
    confirmedAudience: z.string().max(2_000).optional(),
    subject: z
      .string({ error: CAMPAIGN_TEXT.required })
      .trim()
      .min(1, CAMPAIGN_TEXT.required)
      .max(300, "Subject must be at most 300 characters"),
    senderName: z.string().trim().max(200, "Sender name must be at most 200 characters").optional(),
    senderEmail: z
      .string()
      .trim()
      .max(254, CAMPAIGN_TEXT.badSender)
      .regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, CAMPAIGN_TEXT.badSender)
      .optional(),
    replyTo: z
      .string()
      .trim()
      .max(254, "Invalid reply-to email format")
      .regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, "Invalid reply-to email format")
      .optional(),
    lists: z
      .array(z.string().trim().max(100))
      .min(1, CAMPAIGN_TEXT.noGroups)
      .max(50, "Too many lists"),
    trackOpens: checkbox,
    trackClicks: checkbox,
    mode: z.enum(["now", "schedule", "draft"], { error: "Choose when to send it" }),
    scheduledAt: z.string().trim().max(40).optional(),
    /** the visitor's offset from UTC in minutes (Date.getTimezoneOffset), for datetime-local */
    timezoneOffset: z.coerce.number().int().min(-900).max(900).optional(),
  })
  .superRefine((value, issues) => {
    if (value.mode === "schedule" && !value.scheduledAt) {
      issues.addIssue({ code: "custom", path: ["scheduledAt"], message: "Choose when to send it" });
    }
  });

export type CampaignForm = z.infer<typeof campaignFormSchema>;

/** A datetime-local value ("2026-11-23T09:30") in the browser's zone, as an ISO instant. */
export function localTimeToIso(local: string, timezoneOffsetMinutes = 0): string | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec(local);
  if (!match) return Number.isNaN(Date.parse(local)) ? null : new Date(local).toISOString();
  const [, y, mo, d, h, mi] = match.map(Number) as number[];
  const utc =
    Date.UTC(y ?? 0, (mo ?? 1) - 1, d ?? 1, h ?? 0, mi ?? 0) + timezoneOffsetMinutes * 60_000;
  return new Date(utc).toISOString();
}
