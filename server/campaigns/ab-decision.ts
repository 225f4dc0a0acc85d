import type { Db } from "../db";
import type { CampaignStatus } from "../db/schema";
import { crossTenant, tenantDb } from "../db/tenant-guard";
import {
  type AbDecision,
  abTestOf,
  armFigures,
  chooseWinner,
  STAFF_PICK_STATUSES,
  staffPickOf,
  TEST_SHARE_STILL_SENDING,
  testShareProgress,
} from "./ab-test";
import { audienceOf, getCampaignRow } from "./campaign-row";
import { recordAbWinner } from "./campaigns";
import { queueDeliveries } from "./deliveries";
import { CampaignError } from "./errors";

/*
 * An A/B test decided (docs/decisions/051-ab-subjects.md): by the sender's round once the wait is
 * over, or by staff ("Pick winner now"). The winner, the figures it was chosen on and the
 * remainder's deliveries (with the winning subject) are written in one transaction, and only by
 * the first to decide: the campaign's row says who won, so a worker that starts again after a
 * crash finds the decision to take, or taken, in the database.
 */

/**
 * Decides `id`'s test now; false when it was already decided (or the campaign no longer sends).
 * Staff are refused (409) while any of the test share is still to be sent; the schedule is not:
 * once the wait is over it decides on what was sent (decision 051).
 */
export async function decideAbTest(
  root: Db,
  tenantId: string,
  id: string,
  by: AbDecision["by"],
): Promise<boolean> {
  const statuses: readonly CampaignStatus[] = by === "staff" ? STAFF_PICK_STATUSES : ["sending"];
  return tenantDb(root, tenantId)
    .transaction()
    .execute(async (trx) => {
      const campaign = await getCampaignRow(trx, tenantId, id);
      const test = abTestOf(campaign);
      if (!test) throw new CampaignError("This campaign has no A/B test", 409);
      if (campaign.ab_winner !== null || !statuses.includes(campaign.status)) return false;
      // Staff wait for the test share to go out: before, its opens are not in and a pick is blind.
      const share = by === "staff" ? await testShareProgress(trx, tenantId, id) : null;
      if (share && staffPickOf(campaign, share) === "after-test-share") {
        throw new CampaignError(TEST_SHARE_STILL_SENDING, 409);
      }
      const arms = (await armFigures(trx, tenantId, id)).filter((arm) => arm.phase === "test");
      const variant = chooseWinner(test, arms);
      const decision: AbDecision = {
        by,
        winnerBy: test.winnerBy,
        arms: arms.map(({ phase: _, ...figures }) => figures),
      };
      const audience = await audienceOf(trx, campaign);
      return recordAbWinner(
        trx,
        { tenantId, id },
        { variant, decision: JSON.stringify(decision), statuses },
        // Everyone in the audience now and not in the test share: the unique (campaign,
        // subscriber) key keeps the test share's recipients out.
        () =>
          queueDeliveries(trx, { tenantId, id, audience }, new Date().toISOString(), {
            variant,
            phase: "remainder",
          }),
      );
    });
}

/** The sender's round: every sending A/B campaign whose wait is over is decided. */
export async function decideDueAbTests(db: Db, now: Date): Promise<number> {
  const due = await crossTenant(db)
    .selectFrom("campaigns")
    .select(["tenant_id", "id"])
    .where("status", "=", "sending")
    .where("ab_test", "is not", null)
    .where("ab_winner", "is", null)
    .where("ab_decide_at", "<=", now.toISOString())
    .execute();
  let decided = 0;
  for (const campaign of due) {
    if (await decideAbTest(db, campaign.tenant_id, campaign.id, "schedule")) decided++;
  }
  return decided;
}
