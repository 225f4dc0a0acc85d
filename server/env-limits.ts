import { z } from "zod";
import {
  LIMIT_KEYS,
  type LimitKey,
  type LimitValue,
  MAX_LIMIT,
} from "../shared/schemas/tenant-limits";
import { unsetWhenEmpty } from "./env-outside";

/*
 * The install's default limits of every tenant (decision 057), part of the one environment schema
 * in server/env.ts. A tenant's own limits (the tenant page, PATCH /api/tenants/{id}/limits)
 * override them. Each is a whole number or `unlimited`; unset, the default below.
 */

const limit = (fallback: LimitValue) =>
  z.preprocess(
    unsetWhenEmpty,
    z
      .union([
        z.literal("unlimited"),
        z.coerce
          .number()
          .int("must be a whole number or unlimited")
          .min(0, "must be 0 or more, or unlimited")
          .max(MAX_LIMIT, "must be at most 10^15, or unlimited"),
      ])
      .default(fallback),
  );

export const limitsEnv = {
  /** subscribers a tenant may hold (every status) */
  LIMIT_SUBSCRIBERS: limit("unlimited"),
  /** campaign emails a tenant may send a calendar month (UTC), counted at review and schedule */
  LIMIT_CAMPAIGN_MAILS_PER_MONTH: limit("unlimited"),
  /** test emails a tenant may send a day (UTC): 100 (issue 44, finding 10) */
  LIMIT_TEST_SENDS_PER_DAY: limit(100),
  /** bytes of uploaded images a tenant may keep */
  LIMIT_STORAGE_BYTES: limit("unlimited"),
  /** subscriber and archive imports a tenant may have queued or running at once */
  LIMIT_IMPORTS_AT_ONCE: limit("unlimited"),
  /** requests to /api/ a tenant's site may answer a minute */
  LIMIT_API_REQUESTS_PER_MINUTE: limit("unlimited"),
};

export const LIMIT_VARIABLES = {
  subscribers: "LIMIT_SUBSCRIBERS",
  campaignMailsPerMonth: "LIMIT_CAMPAIGN_MAILS_PER_MONTH",
  testSendsPerDay: "LIMIT_TEST_SENDS_PER_DAY",
  storageBytes: "LIMIT_STORAGE_BYTES",
  importsAtOnce: "LIMIT_IMPORTS_AT_ONCE",
  apiRequestsPerMinute: "LIMIT_API_REQUESTS_PER_MINUTE",
} as const satisfies Record<LimitKey, keyof typeof limitsEnv>;

export type LimitsEnv = { [K in keyof typeof limitsEnv]: LimitValue };

/** The install's defaults, by limit. */
export function defaultLimits(env: LimitsEnv): Record<LimitKey, LimitValue> {
  return Object.fromEntries(LIMIT_KEYS.map((key) => [key, env[LIMIT_VARIABLES[key]]])) as Record<
    LimitKey,
    LimitValue
  >;
}
