import { isValidEmail } from "../../shared/schemas/email";
import { getCampaignRow } from "../campaigns/campaign-row";
import { createCampaign } from "../campaigns/campaigns";
import { CampaignError } from "../campaigns/errors";
import { listCampaigns, listGroupStats } from "../campaigns/overview";
import type { CampaignRow, CampaignStatus } from "../db/schema";
import { tenantDb } from "../db/tenant-guard";
import { SubscriptionError } from "../subscribers/errors";
import { listTenantLists, type MailingList, resolveLists } from "../subscribers/lists";
import { insertSubscriber, joinLists, leaveList, updateSubscriber } from "../subscribers/store";
import {
  findSubscriber,
  normaliseSubscriberEmail,
  type SubscriberView,
  type SubscriptionContext,
} from "../subscribers/subscribers";
import { unsubscribe } from "../subscribers/unsubscribe";
import {
  type GroupRef,
  type MailProvider,
  PROVIDER_MESSAGES,
  type ProviderCampaign,
  ProviderError,
  type ProviderSubscriber,
} from "./types";

/** The built-in provider: our own tables and sending engine, behind the same interface. */
export class BuiltinProvider implements MailProvider {
  readonly name = "builtin" as const;

  /** the database bound to the provider's tenant */
  private readonly db: SubscriptionContext["db"];

  constructor(
    private readonly ctx: SubscriptionContext,
    private readonly createdBy: string | null = null,
  ) {
    this.db = tenantDb(ctx.db, ctx.tenant.id);
  }

  private async lists(): Promise<MailingList[]> {
    return listTenantLists(this.ctx.db, this.ctx.tenant);
  }

  private async view(subscriber: SubscriberView): Promise<ProviderSubscriber> {
    const lists = await this.lists();
    return {
      id: String(subscriber.id),
      email: subscriber.email,
      status: subscriber.status,
      fields: { name: subscriber.name || null },
      groups: lists
        .filter((list) => subscriber.lists.includes(list.key))
        .map((list) => ({ id: String(list.id), name: list.name })),
      subscribed_at: subscriber.subscribedAt,
    };
  }

  async findSubscriber(email: string) {
    const found = await findSubscriber(this.ctx, email);
    return found ? this.view(found) : null;
  }

  async upsertSubscriber(input: {
    email: string;
    name?: string | null;
    groups?: readonly (string | number)[];
  }) {
    const email = normaliseSubscriberEmail(input.email);
    if (!isValidEmail(email)) {
      throw new ProviderError(`Invalid email format: ${input.email}`, "INVALID_ARGUMENT");
    }
    const lists = resolveLists(await this.lists(), input.groups ?? []);
    const now = new Date().toISOString();
    const created = await this.db.transaction().execute(async (trx) => {
      const existing = await trx
        .selectFrom("subscribers")
        .select(["id"])
        .where("email", "=", email)
        .executeTakeFirst();
      let id = existing?.id;
      if (id === undefined) {
        id = await insertSubscriber(
          trx,
          this.ctx.tenant.id,
          {
            email,
            name: input.name?.trim() ?? "",
            status: "active",
            subscribed_at: now,
            unsubscribed_at: null,
          },
          now,
        );
      } else if (input.name?.trim()) {
        await updateSubscriber(trx, this.ctx.tenant.id, id, { name: input.name.trim() }, now);
      }
      const subscriberId = id;
      await joinLists(
        trx,
        this.ctx.tenant.id,
        lists.map((list) => ({ subscriberId, listId: list.id })),
        now,
      );
      return existing === undefined;
    });
    const subscriber = await this.findSubscriber(email);
    if (!subscriber) throw new ProviderError(PROVIDER_MESSAGES.failed, "INTERNAL");
    return { subscriber, created };
  }

  async unsubscribe(email: string) {
    try {
      await unsubscribe(this.ctx, { email });
    } catch (error) {
      if (error instanceof SubscriptionError && error.status === 404)
        throw new ProviderError(PROVIDER_MESSAGES.subscriberNotFound, "NOT_FOUND");
      if (error instanceof SubscriptionError)
        throw new ProviderError(error.message, "INVALID_ARGUMENT");
      throw error;
    }
    const found = await this.findSubscriber(email);
    if (!found) throw new ProviderError(PROVIDER_MESSAGES.subscriberNotFound, "NOT_FOUND");
    return found;
  }

  async countSubscribers(): Promise<number> {
    const { total } = await this.db
      .selectFrom("subscribers")
      .select((eb) => eb.fn.countAll<number>().as("total"))
      .executeTakeFirstOrThrow();
    return Number(total);
  }

  async subscriberGroups(email: string): Promise<GroupRef[]> {
    const found = await this.findSubscriber(email);
    if (!found) throw new ProviderError(PROVIDER_MESSAGES.subscriberNotFound, "NOT_FOUND");
    return found.groups;
  }

  private async membership(subscriberId: string, group: string | number) {
    const [list] = resolveLists(await this.lists(), [group]);
    if (!list) throw new ProviderError(PROVIDER_MESSAGES.noGroups, "INVALID_ARGUMENT");
    const subscriber = await this.db
      .selectFrom("subscribers")
      .select("id")
      .where("id", "=", Number(subscriberId) || -1)
      .executeTakeFirst();
    if (!subscriber) throw new ProviderError(PROVIDER_MESSAGES.subscriberNotFound, "NOT_FOUND");
    return { subscriberId: subscriber.id, listId: list.id };
  }

  async addToGroup(subscriberId: string, group: string | number): Promise<void> {
    const membership = await this.membership(subscriberId, group);
    await joinLists(this.ctx.db, this.ctx.tenant.id, [membership], new Date().toISOString());
  }

  async removeFromGroup(subscriberId: string, group: string | number): Promise<void> {
    await leaveList(this.ctx.db, this.ctx.tenant.id, await this.membership(subscriberId, group));
  }

  async listGroups() {
    const stats = await listGroupStats(this.ctx);
    return stats.map(({ id, name, active_count, sent, opened, clicked }) => ({
      id: String(id),
      name,
      active_count,
      sent,
      opened,
      clicked,
    }));
  }

  async createCampaign(input: Parameters<MailProvider["createCampaign"]>[0]) {
    try {
      return toCampaign(await createCampaign(this.ctx, input, this.createdBy));
    } catch (error) {
      throw asProviderError(error);
    }
  }

  async listCampaigns(options: { limit?: number; page?: number; status?: string | null } = {}) {
    const { items, total } = await listCampaigns(this.ctx, {
      ...options,
      status: (options.status ?? null) as CampaignStatus | null,
    });
    return { items: items.map(({ campaign }) => toCampaign(campaign)), total };
  }

  async getCampaign(id: string) {
    if (!id?.trim()) throw new ProviderError(PROVIDER_MESSAGES.idRequired, "INVALID_ARGUMENT");
    try {
      return toCampaign(await getCampaignRow(this.ctx.db, this.ctx.tenant.id, id.trim()));
    } catch (error) {
      throw asProviderError(error);
    }
  }
}

function asProviderError(error: unknown): unknown {
  if (error instanceof CampaignError) {
    return new ProviderError(
      error.message,
      error.status === 404 ? "NOT_FOUND" : "INVALID_ARGUMENT",
    );
  }
  return error;
}

function toCampaign(row: CampaignRow): ProviderCampaign {
  return {
    id: row.id,
    name: row.name,
    subject: row.subject,
    status: row.status,
    groups: (JSON.parse(row.list_ids) as number[]).map(String),
    scheduledAt: row.scheduled_at,
    createdAt: row.created_at,
  };
}
