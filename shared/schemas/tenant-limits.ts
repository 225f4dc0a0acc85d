import { formatCount } from "../format";
import { z } from "../zod";

/*
 * A tenant's limits (issue 44, target 4; decision 057). Each is a whole number, or "unlimited";
 * a tenant's own value overrides the install's default (LIMIT_* in server/env-limits.ts), and
 * null goes back to that default. 0 is a real limit: nothing of that kind is allowed.
 */

export const LIMIT_KEYS = [
  "subscribers",
  "campaignMailsPerMonth",
  "testSendsPerDay",
  "storageBytes",
  "importsAtOnce",
  "apiRequestsPerMinute",
] as const;

export type LimitKey = (typeof LIMIT_KEYS)[number];

/** A limit in force: a number, or no limit. */
export type LimitValue = number | "unlimited";

/** The highest limit that can be set: past it, "unlimited" says what is meant (1 PB of storage). */
export const MAX_LIMIT = 1_000_000_000_000_000;

/** Each limit's column in `tenant_limits`, its label in /metrics, its variable in the environment. */
export const LIMIT_COLUMNS = {
  subscribers: "subscribers",
  campaignMailsPerMonth: "campaign_mails_per_month",
  testSendsPerDay: "test_sends_per_day",
  storageBytes: "storage_bytes",
  importsAtOnce: "imports_at_once",
  apiRequestsPerMinute: "api_requests_per_minute",
} as const satisfies Record<LimitKey, string>;

/** What staff read beside each limit. */
export const LIMIT_LABELS: Record<LimitKey, string> = {
  subscribers: "Subscribers",
  campaignMailsPerMonth: "Campaign emails this month",
  testSendsPerDay: "Test emails today",
  storageBytes: "Storage of uploaded images",
  importsAtOnce: "Imports at once",
  apiRequestsPerMinute: "API requests a minute",
};

/** "1.5 MB": bytes as staff read them. */
export function formatBytes(bytes: number): string {
  const units = ["bytes", "KB", "MB", "GB", "TB", "PB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  const shown = unit === 0 ? String(value) : String(Number(value.toFixed(1)));
  return `${shown} ${units[unit]}`;
}

/** "1,000 subscribers", "100 test emails a day": the limit named as a refusal names it. */
export function limitPhrase(key: LimitKey, limit: number): string {
  const count = formatCount(limit);
  switch (key) {
    case "subscribers":
      return `${count} subscribers`;
    case "campaignMailsPerMonth":
      return `${count} campaign emails a month`;
    case "testSendsPerDay":
      return `${count} test emails a day`;
    case "storageBytes":
      return `${formatBytes(limit)} of uploaded images`;
    case "importsAtOnce":
      return `${count} imports at once`;
    case "apiRequestsPerMinute":
      return `${count} API requests a minute`;
  }
}

/**
 * The refusal: the limit named, what is used and what the action would add (when it is not
 * already reached).
 */
export function limitMessage(key: LimitKey, limit: number, used: number, adding: number): string {
  const phrase = limitPhrase(key, limit);
  if (used >= limit) return `This tenant's limit of ${phrase} is reached.`;
  const shown = (n: number) => (key === "storageBytes" ? formatBytes(n) : formatCount(n));
  return `This would pass this tenant's limit of ${phrase}: ${shown(used)} used, ${shown(adding)} more asked.`;
}

/** One limit as the API and the form take it: a whole number, "unlimited", or null (the default). */
export const limitInput = z.union([
  z.literal("unlimited"),
  z
    .number({ error: 'must be a whole number, "unlimited" or null' })
    .int("must be a whole number")
    .min(0, "must be 0 or more")
    .max(MAX_LIMIT, `must be at most ${formatCount(MAX_LIMIT)} (or "unlimited")`),
  z.null(),
]);

/** PATCH /api/tenants/{id}/limits: the limits given change, the rest stay. */
export const limitsPatchSchema = z
  .object(
    Object.fromEntries(LIMIT_KEYS.map((key) => [key, limitInput])) as Record<
      LimitKey,
      typeof limitInput
    >,
  )
  .partial()
  .strict();

export type LimitsPatch = z.infer<typeof limitsPatchSchema>;

/**
 * A form field's text as a limit: blank is the default (null), "unlimited" is none, else a whole
 * number (digits, with commas or spaces between them allowed).
 */
export function limitFromText(text: string): unknown {
  const value = text.trim();
  if (value === "") return null;
  if (value.toLowerCase() === "unlimited") return "unlimited";
  const digits = value.replace(/[,\s_]/g, "");
  return /^\d+$/.test(digits) ? Number(digits) : value;
}
