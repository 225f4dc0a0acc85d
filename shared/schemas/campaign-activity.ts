import { z } from "../zod";

/*
 * The campaign report's recipient list (issue 35, target 4): its filters and its query string,
 * read by the page, its CSV and server/campaigns/recipient-activity.ts.
 */

export const ACTIVITY_FILTERS = [
  "all",
  "delivered",
  "opened",
  "not-opened",
  "clicked",
  "bounced",
  "unsubscribed",
] as const;
export type ActivityFilter = (typeof ACTIVITY_FILTERS)[number];

export const ACTIVITY_FILTER_LABELS: Record<ActivityFilter, string> = {
  all: "All",
  delivered: "Delivered",
  opened: "Opened",
  "not-opened": "Did not open",
  clicked: "Clicked",
  bounced: "Bounced",
  unsubscribed: "Unsubscribed",
};

const deliveryId = z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/** ?filter=&q=&after=|before=: anything unreadable falls back to the first page of everyone. */
export const activityQuerySchema = z.object({
  filter: z.enum(ACTIVITY_FILTERS).catch("all"),
  q: z.string().trim().max(200).catch(""),
  after: deliveryId.optional().catch(undefined),
  before: deliveryId.optional().catch(undefined),
});

export type ActivityQuery = z.infer<typeof activityQuerySchema>;

export function readActivityQuery(params: URLSearchParams): ActivityQuery {
  const text = (name: string) => params.get(name) ?? undefined;
  const query = activityQuerySchema.parse({
    filter: text("filter") ?? "all",
    q: text("q") ?? "",
    after: text("after") || undefined,
    before: text("before") || undefined,
  });
  // One direction at a time: "before" wins, as the link that set it meant.
  return query.before !== undefined ? { ...query, after: undefined } : query;
}
