import { requireTenantAccess } from "../../../server/auth/guards";
import {
  compareCampaigns,
  listCampaigns,
  listGroupStats,
} from "../../../server/campaigns/overview";
import { scopeOf } from "../../../server/http/context";
import { providerFor, providerNameFor } from "../../../server/providers";
import { ProviderError } from "../../../server/providers/types";
import { CAMPAIGN_STATUSES } from "../../../shared/schemas/campaign";
import { z } from "../../../shared/zod";
import type { Route } from "./+types/campaigns";

const querySchema = z.object({
  status: z.enum(CAMPAIGN_STATUSES).optional().catch(undefined),
  page: z.coerce.number().int().min(1).max(10_000).catch(1).default(1),
});

/**
 * /admin/campaigns — SPEC §7 getCampaigns (25 a page, status filter) with live progress. A tenant
 * on MailerLite sees its MailerLite campaigns and groups, read through the provider.
 */
export async function loader({ url, context }: Route.LoaderArgs) {
  requireTenantAccess(context);
  const tenant = scopeOf(context).tenant;
  const scope = { db: scopeOf(context).db, tenant };
  const query = querySchema.parse(Object.fromEntries(url.searchParams));
  const common = {
    status: query.status ?? null,
    provider: providerNameFor(tenant),
    providerError: null as string | null,
  };
  if (common.provider === "mailerlite") {
    try {
      const provider = providerFor(scopeOf(context));
      const [result, groups] = await Promise.all([
        provider.listCampaigns({ status: query.status ?? null, page: query.page, limit: 25 }),
        provider.listGroups(),
      ]);
      return {
        ...common,
        page: query.page,
        pageCount: Math.max(1, Math.ceil(result.total / 25)),
        campaigns: result.items.map((campaign) => ({
          id: campaign.id,
          name: campaign.name,
          status: campaign.status,
          createdAt: campaign.createdAt ?? new Date(0).toISOString(),
          scheduledAt: campaign.scheduledAt,
          finishedAt: null,
          progress: null,
        })),
        groups,
        comparison: [] as Awaited<ReturnType<typeof compareCampaigns>>,
      };
    } catch (error) {
      if (!(error instanceof ProviderError)) throw error;
      return {
        ...common,
        page: 1,
        pageCount: 1,
        campaigns: [],
        groups: [],
        comparison: [],
        providerError: error.message,
      };
    }
  }
  const [result, groups, comparison] = await Promise.all([
    listCampaigns(scope, {
      status: query.status ?? null,
      page: query.page,
      limit: 25,
    }),
    listGroupStats(scope),
    compareCampaigns(scope),
  ]);
  return {
    ...common,
    page: result.page,
    pageCount: Math.max(1, Math.ceil(result.total / result.limit)),
    campaigns: result.items.map(({ campaign, progress }) => ({
      id: campaign.id,
      name: campaign.name,
      status: campaign.status,
      createdAt: campaign.created_at,
      scheduledAt: campaign.scheduled_at,
      finishedAt: campaign.finished_at,
      progress: progress as typeof progress | null,
    })),
    groups,
    comparison,
  };
}
