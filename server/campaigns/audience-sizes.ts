import type { Db } from "../db";
import { audienceCounts } from "../subscribers/counts";
import { countSegment } from "../subscribers/segment-counts";
import type { Segment } from "../subscribers/segments";

/**
 * How many active subscribers each list and segment of a campaign form holds (issue 35): the
 * numbers beside the choices, before the review counts the audience they make together. Lists
 * come from the kept counts (no subscriber row read); segments are counted live, as their pages do.
 */
export async function audienceSizes(
  db: Db,
  tenantId: string,
  choices: { listIds: readonly number[]; segments: readonly Segment[] },
): Promise<{ lists: Map<number, number>; segments: Map<number, number> }> {
  const [counts, segmentCounts] = await Promise.all([
    audienceCounts(db, tenantId),
    Promise.all(choices.segments.map((segment) => countSegment(db, tenantId, segment.rule))),
  ]);
  return {
    lists: new Map(choices.listIds.map((id) => [id, counts.lists.get(id)?.active ?? 0])),
    segments: new Map(
      choices.segments.map((segment, index) => [segment.id, segmentCounts[index]?.active ?? 0]),
    ),
  };
}
