import type { AbTestSettings } from "../../shared/schemas/campaign";

/**
 * The mail provider (DESIGN.md §5): who keeps a tenant's subscribers, lists and campaigns. The
 * built-in provider is our tables and sending engine; the MailerLite provider is MailerLite's REST
 * API (SPEC §7). Both answer in SPEC's shapes (Subscriber, Group, Campaign of SPEC §3).
 */
export interface GroupRef {
  id: string;
  name: string;
}

export interface ProviderSubscriber {
  id: string;
  email: string;
  status: string;
  fields: { name: string | null };
  groups: GroupRef[];
  subscribed_at: string | null;
}

/** SPEC §3 Group. */
export interface ProviderGroup extends GroupRef {
  active_count: number;
  sent: number;
  opened: number;
  clicked: number;
}

export interface ProviderCampaignInput {
  subject: string;
  content: string;
  senderName?: string | null;
  senderEmail?: string | null;
  /** list keys, provider group ids as strings, or numbers (SPEC §5) */
  groups?: readonly (string | number)[] | null;
  trackOpens?: boolean | null;
  trackClicks?: boolean | null;
  mode?: "now" | "schedule" | "draft";
  scheduledAt?: string | null;
  /** Herald's sender only: the campaign's Reply-To */
  replyTo?: string | null;
  /** the newsletter sent, when it is one (its page shows the campaign) */
  newsletterId?: string | null;
  /** Herald's sender only: A/B subject lines (MailerLite's tenants are refused, decision 051) */
  abTest?: AbTestSettings | null;
}

export interface ProviderCampaign {
  id: string;
  name: string;
  subject: string;
  status: string;
  groups: string[];
  scheduledAt: string | null;
  createdAt: string | null;
}

export interface MailProvider {
  readonly name: "builtin" | "mailerlite";
  findSubscriber(email: string): Promise<ProviderSubscriber | null>;
  /** Creates or updates; groups are only ever added, never replaced. */
  upsertSubscriber(input: {
    email: string;
    name?: string | null;
    groups?: readonly (string | number)[];
  }): Promise<{ subscriber: ProviderSubscriber; created: boolean }>;
  unsubscribe(email: string): Promise<ProviderSubscriber>;
  countSubscribers(): Promise<number>;
  subscriberGroups(email: string): Promise<GroupRef[]>;
  addToGroup(subscriberId: string, group: string | number): Promise<void>;
  removeFromGroup(subscriberId: string, group: string | number): Promise<void>;
  listGroups(): Promise<ProviderGroup[]>;
  createCampaign(input: ProviderCampaignInput): Promise<ProviderCampaign>;
  listCampaigns(options?: {
    limit?: number;
    page?: number;
    status?: string | null;
  }): Promise<{ items: ProviderCampaign[]; total: number }>;
  getCampaign(id: string): Promise<ProviderCampaign>;
}

/** SPEC §8 statuses (the functions API maps them to HTTP). */
export type ProviderErrorStatus =
  | "INVALID_ARGUMENT"
  | "UNAUTHENTICATED"
  | "NOT_FOUND"
  | "RESOURCE_EXHAUSTED"
  | "UNAVAILABLE"
  | "INTERNAL";

export class ProviderError extends Error {
  constructor(
    message: string,
    readonly status: ProviderErrorStatus,
    /** field → messages, from a MailerLite 422 */
    readonly fields: Record<string, string[]> = {},
  ) {
    super(message);
  }
}

export const PROVIDER_MESSAGES = {
  subscriberNotFound: "Subscriber not found",
  noGroups: "No valid groups specified",
  required: "Subject and content are required",
  badSender: "Invalid sender email format",
  idRequired: "Campaign ID is required",
  failed: "An error occurred while processing your request.",
} as const;
