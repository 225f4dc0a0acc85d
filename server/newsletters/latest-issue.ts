import type { TenantScope } from "../scope";
import { type IssueSummary, summarize } from "./archive";
import { listPublishedNewsletters } from "./listing";

/** The tenant's newest published newsletter as lists show it (the home page's hero), or null. */
export async function latestIssue(ctx: TenantScope): Promise<IssueSummary | null> {
  const { items } = await listPublishedNewsletters(ctx, { page: 1, pageSize: 1 });
  const [latest] = await summarize(ctx, items);
  return latest ?? null;
}
