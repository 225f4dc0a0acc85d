import { z } from "../zod";
import { storableText } from "./text";

/**
 * What an API token may do (issue 14: least privilege). A token carries one or more; a new one
 * gets `read` unless staff tick more.
 * - read: GET the tenant API; the functions that only read (helloWorld, getAllGroups, getCampaigns,
 *   getSubscriber)
 * - tenants:write: create, change and delete tenants through the tenant API
 * - functions: the functions that change something (addSubscriber, completeNewsletterSignup,
 *   sendEmail, createAndSendCampaign)
 */
export const TOKEN_SCOPES = ["read", "tenants:write", "functions"] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

export const TOKEN_SCOPE_LABELS: Record<TokenScope, string> = {
  read: "Read (tenant API GET, read-only functions)",
  "tenants:write": "Write tenants (tenant API POST, PUT, PATCH, DELETE)",
  functions: "Call functions that change data (subscribe, send email, campaigns)",
};

/** Days until a new token stops working; 0 = never. */
export const TOKEN_LIFETIMES = [30, 90, 365, 0] as const;

/** The longest lifetimes a super admin may set for every token (days; 0 = no maximum). */
export const TOKEN_MAX_LIFETIMES = [0, 30, 90, 365] as const;

/** The lifetimes a new token may have under `maxDays` (0 = no maximum): no "never" under one. */
export function allowedTokenLifetimes(maxDays: number): number[] {
  return TOKEN_LIFETIMES.filter((days) => maxDays <= 0 || (days > 0 && days <= maxDays));
}

export const tokenMaxLifetimeSchema = z.object({
  intent: z.literal("token-lifetime"),
  maxDays: z.coerce
    .number()
    .refine(
      (days) => (TOKEN_MAX_LIFETIMES as readonly number[]).includes(days),
      "Choose a longest lifetime",
    ),
});

export const newApiTokenSchema = z.object({
  name: storableText()
    .trim()
    .min(1, "Give the token a name, e.g. the script that will use it")
    .max(100, "The name must be at most 100 characters"),
  scopes: z
    .array(z.enum(TOKEN_SCOPES, { error: "Unknown scope" }))
    .min(1, "Choose at least one scope"),
  lifetimeDays: z.coerce
    .number()
    .refine((days) => (TOKEN_LIFETIMES as readonly number[]).includes(days), "Choose an expiry"),
});
