import type { Db } from "../db";
import type { CampaignRow, CampaignStatus } from "../db/schema";
import { tenantDb } from "../db/tenant-guard";
import { getCampaignRow } from "./campaign-row";
import { CampaignError } from "./errors";

/*
 * Welcome sequences (issue 16, point 6): each step is a campaign row naming its list, its place and
 * its delay in days. It stays 'sending' while the sequence runs (the engine never finishes it) and
 * is 'paused' while staff pause it; enrolSequenceSteps (deliveries.ts) queues it for each subscriber
 * of the list who joined after the step began, once their delay has passed. Steps are created,
 * edited, paused and stopped in campaigns.ts, the one writer of `campaigns`.
 */

export interface SequenceStepInput {
  subject: string;
  content: string;
  delayDays: number;
  senderName?: string | null;
  senderEmail?: string | null;
}

export interface SequenceStep {
  id: string;
  position: number;
  delayDays: number;
  subject: string;
  status: CampaignStatus;
  startedAt: string | null;
}

export async function listSequenceSteps(
  root: Db,
  tenantId: string,
  listId: number,
): Promise<SequenceStep[]> {
  const rows = await tenantDb(root, tenantId)
    .selectFrom("campaigns")
    .select(["id", "sequence_position", "sequence_delay_days", "subject", "status", "started_at"])
    .where("sequence_list_id", "=", listId)
    .where("status", "in", ["sending", "paused"])
    .orderBy("sequence_delay_days")
    .orderBy("sequence_position")
    .execute();
  return rows.map((row) => ({
    id: row.id,
    position: row.sequence_position ?? 0,
    delayDays: row.sequence_delay_days ?? 0,
    subject: row.subject,
    status: row.status,
    startedAt: row.started_at,
  }));
}

export function checkStepDelay(delayDays: number): void {
  if (!Number.isInteger(delayDays) || delayDays < 0 || delayDays > 365) {
    throw new CampaignError("The delay must be a whole number of days from 0 to 365");
  }
}

/** A welcome sequence's step that runs or is paused, else 404. */
export async function requireRunningStep(
  db: Db,
  tenantId: string,
  id: string,
): Promise<CampaignRow> {
  const row = await getCampaignRow(db, tenantId, id);
  if (row.sequence_list_id === null || !["sending", "paused"].includes(row.status)) {
    throw new CampaignError("Step not found", 404);
  }
  return row;
}
