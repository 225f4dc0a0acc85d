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

/** A/B subject lines (issue 35, target 5): the bounds staff choose within. */
export const AB_TEST_LIMITS = {
  subjects: { min: 2, max: 5 },
  sharePercent: { min: 10, max: 50 },
  /** 1 hour to 7 days */
  waitHours: [1, 2, 4, 8, 12, 24, 48, 72, 120, 168],
} as const;

export const AB_WINNER_BY = { opens: "Opens", clicks: "Clicks" } as const;

/** A campaign's A/B test as stored (campaigns.ab_test) and as the API and the server check it. */
export const abTestSettingsSchema = z.object({
  subjects: z
    .array(
      z
        .string()
        .trim()
        .min(1, "A subject line is empty")
        .max(300, "Subject must be at most 300 characters"),
    )
    .min(AB_TEST_LIMITS.subjects.min, "An A/B test needs at least two subject lines")
    .max(AB_TEST_LIMITS.subjects.max, "An A/B test has at most five subject lines"),
  sharePercent: z
    .number()
    .int()
    .min(AB_TEST_LIMITS.sharePercent.min, "The test share is 10 % to 50 % of the audience")
    .max(AB_TEST_LIMITS.sharePercent.max, "The test share is 10 % to 50 % of the audience"),
  winnerBy: z.enum(["opens", "clicks"]),
  waitMinutes: z
    .number()
    .int()
    .min(60, "Wait between 1 hour and 7 days")
    .max(7 * 24 * 60, "Wait between 1 hour and 7 days"),
});

export type AbTestSettings = z.infer<typeof abTestSettingsSchema>;

/** A letter per A/B subject: A, B, C… */
export const variantLetter = (variant: number) => String.fromCharCode(65 + variant);

/** Which A/B subject a recipient got: "B (test share)", "C (winner, to the rest)"; "" without a test. */
export function abSubjectLabel(row: {
  abVariant: number | null;
  abPhase: "test" | "remainder" | null;
}): string {
  if (row.abVariant === null) return "";
  const letter = variantLetter(row.abVariant);
  return row.abPhase === "remainder" ? `${letter} (winner, to the rest)` : `${letter} (test share)`;
}

/** The form's other subject lines: B to E (A is the campaign's subject). */
export const AB_EXTRA_SUBJECTS = ["abSubject1", "abSubject2", "abSubject3", "abSubject4"] as const;

const extraSubject = storableText()
  .trim()
  .max(300, "Subject must be at most 300 characters")
  .optional();

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
  /** "A/B test subject lines": the subject above is A, these B–E */
  abTest: checkbox,
  abSubject1: extraSubject,
  abSubject2: extraSubject,
  abSubject3: extraSubject,
  abSubject4: extraSubject,
  abShare: z.coerce
    .number({ error: "The test share is 10 % to 50 % of the audience" })
    .int("The test share is 10 % to 50 % of the audience")
    .min(AB_TEST_LIMITS.sharePercent.min, "The test share is 10 % to 50 % of the audience")
    .max(AB_TEST_LIMITS.sharePercent.max, "The test share is 10 % to 50 % of the audience")
    .default(20),
  abWinnerBy: z.enum(["opens", "clicks"], { error: "Choose opens or clicks" }).default("opens"),
  abWaitHours: z.coerce
    .number({ error: "Wait between 1 hour and 7 days" })
    .int("Wait between 1 hour and 7 days")
    .min(1, "Wait between 1 hour and 7 days")
    .max(168, "Wait between 1 hour and 7 days")
    .default(4),
});

type AbFields = Pick<
  z.infer<typeof campaignFields>,
  "abTest" | "abWinnerBy" | "trackOpens" | "trackClicks" | (typeof AB_EXTRA_SUBJECTS)[number]
>;

/** The A/B part's own rules: a second subject at least, and the winner's measure tracked. */
function checkAbFields(value: AbFields, issues: z.RefinementCtx) {
  if (!value.abTest) return;
  if (!AB_EXTRA_SUBJECTS.some((name) => value[name])) {
    issues.addIssue({
      code: "custom",
      path: ["abSubject1"],
      message: "Add at least one more subject line to test",
    });
  }
  if (value.abWinnerBy === "opens" && !value.trackOpens) {
    issues.addIssue({
      code: "custom",
      path: ["abWinnerBy"],
      message: "Track opens to pick the winner by opens",
    });
  }
  if (value.abWinnerBy === "clicks" && !value.trackClicks) {
    issues.addIssue({
      code: "custom",
      path: ["abWinnerBy"],
      message: "Track clicks to pick the winner by clicks",
    });
  }
}

/** The form's A/B part as the campaign's test: null when it is off. */
export function abTestFromForm(
  form: AbFields & { subject: string; abShare: number; abWaitHours: number },
): AbTestSettings | null {
  if (!form.abTest) return null;
  return {
    subjects: [form.subject, ...AB_EXTRA_SUBJECTS.flatMap((name) => form[name] || [])],
    sharePercent: form.abShare,
    winnerBy: form.abWinnerBy,
    waitMinutes: form.abWaitHours * 60,
  };
}

function needsSendTime(
  value: AbFields & { mode: string; scheduledAt?: string; lists: string[]; segments: number[] },
  issues: z.RefinementCtx,
) {
  checkAbFields(value, issues);
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
    abTest: formData.get("abTest") === "on",
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
