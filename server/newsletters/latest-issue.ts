import type { TenantScope } from "../scope";
import { type IssueSummary, summarize } from "./archive";
import { newestPublishedNewsletter } from "./listing";

/**
 * The tenant's newest published newsletter as lists show it (the home page's hero), or null:
 * a prepared query, then its tags and cover only when there is one.
 */
export async function latestIssue(ctx: TenantScope): Promise<IssueSummary | null> {
  const newest = await newestPublishedNewsletter(ctx);
  if (!newest) return null;
  const [latest] = await summarize(ctx, [newest]);
  return latest ?? null;
}
