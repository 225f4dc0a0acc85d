import { isValidEmail } from "../../shared/schemas/email";
import { cleanCampaignContent } from "../campaigns/clean-content";
import { MailerLiteApi, type MailerLiteConnection } from "./mailerlite-api";
import {
  type GroupRef,
  type MailProvider,
  PROVIDER_MESSAGES,
  type ProviderCampaign,
  type ProviderCampaignInput,
  ProviderError,
  type ProviderGroup,
  type ProviderSubscriber,
} from "./types";

export interface MailerLiteOptions extends MailerLiteConnection {
  /** the tenant's list keys → MailerLite group ids */
  groupIds: Record<string, string>;
  /** the fixed sender when the campaign names none (SPEC §7) */
  defaultSender: { name: string; email: string };
  /**
   * The email pass Herald's own sender gives content (blocks as tables with inline styles,
   * web-only sections dropped, absolute URLs): MailerLite sends what it is given as it is.
   */
  emailContent?: (html: string) => string;
}

interface MlSubscriber {
  id: string | number;
  email: string;
  status: string;
  fields?: { name?: string | null } | null;
  groups?: { id: string | number; name: string }[];
  subscribed_at?: string | null;
}

/** MailerLite's largest page of subscribers. */
export const MAILERLITE_PAGE_LIMIT = 1000;

/** A subscriber as the account holds them, every field as text (issue 33, the move). */
export interface MailerLiteAccountSubscriber {
  id: string;
  email: string;
  status: string;
  fields: Record<string, string | null>;
  groups: GroupRef[];
  subscribedAt: string | null;
}

interface MlCampaign {
  id: string | number;
  name: string;
  status: string;
  emails?: { subject?: string }[];
  groups?: (string | number | { id: string | number })[];
  scheduled_for?: string | null;
  created_at?: string | null;
}

/**
 * The MailerLite provider: the tenant's lists as MailerLite groups, its subscribers and campaigns
 * there, through MailerLite's REST API (mailerlite-api.ts: spacing, retries, SPEC §8 errors).
 */
export class MailerLiteProvider extends MailerLiteApi implements MailProvider {
  readonly name = "mailerlite" as const;

  constructor(private readonly options: MailerLiteOptions) {
    super(options);
  }

  /** A group given as a list key, a MailerLite id string or a number; null when it is none. */
  private groupId(group: string | number): string | null {
    const text = String(group).trim();
    const mapped = this.options.groupIds[text];
    if (mapped) return mapped;
    return Object.values(this.options.groupIds).includes(text) ? text : null;
  }

  private groupIdsOf(groups: readonly (string | number)[]): string[] {
    return [
      ...new Set(groups.map((group) => this.groupId(group)).filter((id): id is string => !!id)),
    ];
  }

  async findSubscriber(email: string): Promise<ProviderSubscriber | null> {
    const { status, json } = await this.call<{ data: MlSubscriber }>(
      "GET",
      `/subscribers/${encodeURIComponent(email.trim().toLowerCase())}`,
      undefined,
      [200, 404],
    );
    return status === 404 ? null : toSubscriber(json.data);
  }

  async upsertSubscriber(input: {
    email: string;
    name?: string | null;
    groups?: readonly (string | number)[];
  }) {
    if (!isValidEmail(input.email.trim())) {
      throw new ProviderError(`Invalid email format: ${input.email}`, "INVALID_ARGUMENT");
    }
    // POST is MailerLite's upsert: it only adds groups (a PUT with groups would replace them).
    const { status, json } = await this.call<{ data: MlSubscriber }>("POST", "/subscribers", {
      email: input.email.trim().toLowerCase(),
      ...(input.name ? { fields: { name: input.name } } : {}),
      groups: this.groupIdsOf(input.groups ?? []),
    });
    return { subscriber: toSubscriber(json.data), created: status === 201 };
  }

  async unsubscribe(email: string): Promise<ProviderSubscriber> {
    const found = await this.findSubscriber(email);
    if (!found) throw new ProviderError(PROVIDER_MESSAGES.subscriberNotFound, "NOT_FOUND");
    // No `groups` here: a PUT with groups replaces the membership.
    const { json } = await this.call<{ data: MlSubscriber }>("PUT", `/subscribers/${found.id}`, {
      status: "unsubscribed",
    });
    return toSubscriber(json.data);
  }

  async countSubscribers(): Promise<number> {
    const { json } = await this.call<{ total?: number; meta?: { total?: number } }>(
      "GET",
      "/subscribers?limit=0",
    );
    // MailerLite answers a top-level total; SPEC says meta.total: accept both.
    return Number(json.total ?? json.meta?.total ?? 0);
  }

  async subscriberGroups(email: string): Promise<GroupRef[]> {
    const found = await this.findSubscriber(email);
    if (!found) throw new ProviderError(PROVIDER_MESSAGES.subscriberNotFound, "NOT_FOUND");
    return found.groups;
  }

  async addToGroup(subscriberId: string, group: string | number): Promise<void> {
    const id = this.groupId(group);
    if (!id) throw new ProviderError(PROVIDER_MESSAGES.noGroups, "INVALID_ARGUMENT");
    await this.call("POST", `/subscribers/${encodeURIComponent(subscriberId)}/groups/${id}`);
  }

  async removeFromGroup(subscriberId: string, group: string | number): Promise<void> {
    const id = this.groupId(group);
    if (!id) throw new ProviderError(PROVIDER_MESSAGES.noGroups, "INVALID_ARGUMENT");
    await this.call(
      "DELETE",
      `/subscribers/${encodeURIComponent(subscriberId)}/groups/${id}`,
      undefined,
      [200, 204],
    );
  }

  async listGroups(): Promise<ProviderGroup[]> {
    const { json } = await this.call<{
      data: {
        id: string | number;
        name: string;
        active_count?: number;
        sent_count?: number;
        opens_count?: number;
        clicks_count?: number;
      }[];
    }>("GET", "/groups?limit=100");
    const ours = new Set(Object.values(this.options.groupIds));
    return json.data
      .filter((group) => ours.has(String(group.id)))
      .map((group) => ({
        id: String(group.id),
        name: group.name,
        active_count: Number(group.active_count ?? 0),
        sent: Number(group.sent_count ?? 0),
        opened: Number(group.opens_count ?? 0),
        clicked: Number(group.clicks_count ?? 0),
      }));
  }

  async createCampaign(input: ProviderCampaignInput): Promise<ProviderCampaign> {
    const subject = input.subject?.trim() ?? "";
    const content = cleanCampaignContent(input.content ?? "");
    if (!subject || !content)
      throw new ProviderError(PROVIDER_MESSAGES.required, "INVALID_ARGUMENT");
    const from = input.senderEmail?.trim() || this.options.defaultSender.email;
    if (!isValidEmail(from))
      throw new ProviderError(PROVIDER_MESSAGES.badSender, "INVALID_ARGUMENT");
    const groups = this.groupIdsOf(
      input.groups?.length ? input.groups : Object.keys(this.options.groupIds).slice(0, 1),
    );
    // A MailerLite campaign without groups goes to every active subscriber: never create one.
    if (groups.length === 0)
      throw new ProviderError(PROVIDER_MESSAGES.noGroups, "INVALID_ARGUMENT");
    const { json } = await this.call<{ data: MlCampaign }>("POST", "/campaigns", {
      name: subject,
      type: "regular",
      emails: [
        {
          subject,
          from_name: input.senderName?.trim() || this.options.defaultSender.name,
          from,
          content: this.options.emailContent?.(content) ?? content,
        },
      ],
      groups,
      settings: {
        track_opens: input.trackOpens ?? true,
        track_clicks: input.trackClicks ?? true,
      },
    });
    const id = String(json.data.id);
    const mode = input.mode ?? "now";
    if (mode === "now") {
      const sent = await this.call<{ data: MlCampaign }>("POST", `/campaigns/${id}/schedule`, {
        delivery: "instant",
      });
      return toCampaign(sent.json.data);
    }
    if (mode === "schedule") {
      const at = input.scheduledAt ? new Date(input.scheduledAt) : null;
      if (!at || Number.isNaN(at.getTime()))
        throw new ProviderError("Choose when to send it", "INVALID_ARGUMENT");
      const iso = at.toISOString();
      const scheduled = await this.call<{ data: MlCampaign }>("POST", `/campaigns/${id}/schedule`, {
        delivery: "scheduled",
        schedule: { date: iso.slice(0, 10), hours: iso.slice(11, 13), minutes: iso.slice(14, 16) },
      });
      return toCampaign(scheduled.json.data);
    }
    return toCampaign(json.data);
  }

  async listCampaigns(options: { limit?: number; page?: number; status?: string | null } = {}) {
    const query = new URLSearchParams({
      limit: String(options.limit ?? 25),
      page: String(options.page ?? 1),
    });
    if (options.status) query.set("filter[status]", options.status);
    const { json } = await this.call<{ data: MlCampaign[]; meta?: { total?: number } }>(
      "GET",
      `/campaigns?${query}`,
    );
    return {
      items: json.data.map(toCampaign),
      total: Number(json.meta?.total ?? json.data.length),
    };
  }

  /**
   * One page of every subscriber in the account, any status, in MailerLite's cursor order (issue
   * 33: a tenant leaving MailerLite). `next` is the cursor of the following page; null: the last.
   */
  async subscriberPage(
    cursor: string | null,
    limit = MAILERLITE_PAGE_LIMIT,
  ): Promise<{ subscribers: MailerLiteAccountSubscriber[]; next: string | null }> {
    const query = new URLSearchParams({ limit: String(limit) });
    if (cursor) query.set("cursor", cursor);
    const { json } = await this.call<{
      data: (MlSubscriber & {
        fields?: Record<string, string | number | null> | null;
        created_at?: string | null;
      })[];
      meta?: { next_cursor?: string | null };
    }>("GET", `/subscribers?${query}`);
    return {
      subscribers: json.data.map((each) => ({
        id: String(each.id),
        email: each.email,
        status: each.status,
        fields: Object.fromEntries(
          Object.entries(each.fields ?? {}).map(([key, value]) => [
            key,
            value === null || value === undefined ? null : String(value),
          ]),
        ),
        groups: (each.groups ?? []).map((group) => ({ id: String(group.id), name: group.name })),
        subscribedAt: each.subscribed_at ?? each.created_at ?? null,
      })),
      next: json.meta?.next_cursor || null,
    };
  }

  /** The account's subscriber fields (name, last_name and the custom ones), with their types. */
  async accountFields(): Promise<{ key: string; name: string; type: string }[]> {
    const { json } = await this.call<{ data: { key: string; name: string; type?: string }[] }>(
      "GET",
      "/fields?limit=100",
    );
    return json.data.map((field) => ({
      key: field.key,
      name: field.name,
      type: field.type ?? "text",
    }));
  }

  async getCampaign(id: string): Promise<ProviderCampaign> {
    if (!id?.trim()) throw new ProviderError(PROVIDER_MESSAGES.idRequired, "INVALID_ARGUMENT");
    const { json } = await this.call<{ data: MlCampaign }>(
      "GET",
      `/campaigns/${encodeURIComponent(id.trim())}`,
    );
    return toCampaign(json.data);
  }
}

function toSubscriber(data: MlSubscriber): ProviderSubscriber {
  return {
    id: String(data.id),
    email: data.email,
    status: data.status,
    fields: { name: data.fields?.name ?? null },
    groups: (data.groups ?? []).map((group) => ({ id: String(group.id), name: group.name })),
    subscribed_at: data.subscribed_at ?? null,
  };
}

function toCampaign(data: MlCampaign): ProviderCampaign {
  return {
    id: String(data.id),
    name: data.name,
    subject: data.emails?.[0]?.subject ?? data.name,
    status: data.status,
    groups: (data.groups ?? []).map((group) =>
      typeof group === "object" ? String(group.id) : String(group),
    ),
    scheduledAt: data.scheduled_for ?? null,
    createdAt: data.created_at ?? null,
  };
}
