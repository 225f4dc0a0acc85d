import { z } from "zod";
import { SIGNUP_LIMITS } from "../../shared/schemas/signup";
import type { StaffUser } from "../auth/permissions";
import type { sendAsCampaign } from "../campaigns/send-as-campaign";
import type { Env } from "../env";
import type { MailProvider, ProviderCampaignInput } from "../providers/types";
import type { SubscriptionContext } from "../subscribers/subscribers";

/*
 * How a SPEC §7 function is defined: what its handler gets, its payload schema (with `tenantId`
 * added to each), the answers' fixed texts and the payload fields several functions share. The
 * functions themselves are in audience-functions.ts and sending-functions.ts; functions.ts calls them.
 */

/** What a handler gets: the tenant it acts on, its provider, and who is calling. */
export interface FunctionContext {
  subscription: SubscriptionContext;
  /** the tenant's mail provider (built-in or MailerLite), made on first use */
  provider(): MailProvider;
  /** sends content as a campaign, as the admin page does (server/campaigns/send-as-campaign.ts) */
  sendAsCampaign(input: ProviderCampaignInput): ReturnType<typeof sendAsCampaign>;
  clientAddress: string;
  env: Env;
  /** a staff member allowed to manage this tenant: sees full records, is not rate-limited */
  trusted: boolean;
}

interface CallableFunction<Input extends z.ZodObject> {
  /** one line for the OpenAPI document */
  summary: string;
  /** callable without signing in (SPEC §6: the site calls these for visitors) */
  anonymous: boolean;
  input: Input;
  handler(ctx: FunctionContext, data: z.output<Input>, caller: StaffUser | null): Promise<unknown>;
}

/** A function of the registry: its payload is checked once, then the call runs on it. */
export interface RegisteredFunction {
  summary: string;
  anonymous: boolean;
  /** the payload's schema (for the OpenAPI document) */
  input: z.ZodType;
  /** Parses the payload (ZodError when it is wrong) and binds the handler to it. */
  bind(data: unknown): {
    tenantId: string | null;
    run(ctx: FunctionContext, caller: StaffUser | null): Promise<unknown>;
  };
}

const tenantIdField = z.string().trim().min(1).max(100).nullish();

/**
 * Every function takes `tenantId` (staff acting on another tenant they manage, issue 14): it is
 * part of each payload's schema here, once, so no function can leave it out and act on the host's
 * tenant instead.
 */
export function defineFunction<Input extends z.ZodObject>(
  fn: CallableFunction<Input>,
): RegisteredFunction {
  const input = fn.input.extend({ tenantId: tenantIdField });
  return {
    summary: fn.summary,
    anonymous: fn.anonymous,
    input,
    bind(data) {
      const { tenantId, ...payload } = input.parse(data);
      return {
        tenantId: (tenantId as string | null | undefined) || null,
        run: (ctx, caller) => fn.handler(ctx, payload as z.output<Input>, caller),
      };
    },
  };
}

export const FUNCTION_MESSAGES = {
  notFound: (name: string) => `Function ${name} not found`,
  tenantNotFound: "Tenant not found",
  noTenantAccess: "You do not have access to this tenant.",
  otherTenantAnonymous: "Sign in to act on another tenant",
  signedLinkRequired:
    "Looking up a subscriber needs the signed token of their preference link (or a staff sign-in).",
  rateLimited: "Too many requests from your address. Please wait a few minutes and try again.",
  sendFailed: "Failed to send email",
  welcomeEmailRequired:
    "welcomeEmail cannot be turned off: the tenant's settings decide which email is sent",
} as const;

// Payload fields. Optional fields accept null as well: JSON clients often send it for "none".
export const nameField = z
  .string()
  .trim()
  .max(SIGNUP_LIMITS.name, `Name must be at most ${SIGNUP_LIMITS.name} characters.`)
  .nullish();
/** SPEC §5: a list may be a known name, a numeric id string or a number. */
export const groupsField = z
  .array(z.union([z.string().trim().max(100), z.number().int()]))
  .max(SIGNUP_LIMITS.lists, "Too many groups.")
  .nullish();
export const subjectField = z
  .string()
  .trim()
  .max(300, "Subject must be at most 300 characters")
  .nullish();
export const contentField = z.string().max(500_000, "Content is too long").nullish();
