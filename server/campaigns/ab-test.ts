import { type AbTestSettings, abTestSettingsSchema } from "../../shared/schemas/campaign";
import type { Db } from "../db";
import type { CampaignRow, CampaignStatus } from "../db/schema";
import { tenantDb } from "../db/tenant-guard";
import { queueDeliveries } from "./deliveries";
import { CampaignError } from "./errors";
import { type Audience, countRecipients } from "./recipients";

/*
 * A/B subject lines (issue 35, target 5; docs/decisions/051-ab-subjects.md): a campaign with 2–5
 * subjects goes first to a test share of its audience, picked at random and split evenly between
 * the subjects; after the wait, the subject with the better rate of opens (or clicks) goes to the
 * rest. The rules and the figures are here; the decision, written once, is ab-decision.ts's.
 */

export type AbTest = AbTestSettings;

/** A campaign's test, or null for a campaign with one subject. */
export function abTestOf(campaign: Pick<CampaignRow, "ab_test">): AbTest | null {
  if (!campaign.ab_test) return null;
  return abTestSettingsSchema.parse(JSON.parse(campaign.ab_test));
}

/** A test as staff gave it, checked (the server's own check: the API and the form alike). */
export function checkAbTest(input: AbTest | null | undefined): AbTest | null {
  if (!input) return null;
  const parsed = abTestSettingsSchema.safeParse(input);
  if (!parsed.success) {
    throw new CampaignError(parsed.error.issues[0]?.message ?? "Check the A/B test's settings");
  }
  const subjects = parsed.data.subjects.map((subject) => subject.trim());
  if (new Set(subjects.map((subject) => subject.toLowerCase())).size !== subjects.length) {
    throw new CampaignError("Each A/B subject line must differ from the others");
  }
  return { ...parsed.data, subjects };
}

/** The subject a delivery carries: its variant's, else the campaign's. */
export function subjectFor(
  campaign: Pick<CampaignRow, "ab_test" | "subject">,
  variant: number | null,
): string {
  if (variant === null) return campaign.subject;
  return abTestOf(campaign)?.subjects[variant] ?? campaign.subject;
}

/**
 * How many of `audience` recipients each subject's arm gets: the share, rounded, at least one per
 * subject while there are recipients, split evenly (the first arms take what does not divide).
 */
export function armSizes(audience: number, test: Pick<AbTest, "sharePercent" | "subjects">) {
  const arms = test.subjects.length;
  const share = Math.min(
    audience,
    Math.max(arms, Math.round((audience * test.sharePercent) / 100)),
  );
  return Array.from(
    { length: arms },
    (_, index) => Math.floor(share / arms) + (index < share % arms ? 1 : 0),
  );
}

/**
 * Queues the test share when an A/B campaign starts (in its start's transaction): each arm's
 * recipients drawn at random from those not yet queued, recorded with their subject. Answers the
 * whole audience's size, which the campaign's total is until the remainder is queued.
 */
export async function queueTestShare(
  db: Db,
  campaign: { tenantId: string; id: string; audience: Audience; test: AbTest },
  now: string,
): Promise<number> {
  const audienceSize = await countRecipients(db, campaign.tenantId, campaign.audience);
  const sizes = armSizes(audienceSize, campaign.test);
  for (const [variant, sample] of sizes.entries()) {
    if (sample > 0) await queueDeliveries(db, campaign, now, { variant, phase: "test", sample });
  }
  return audienceSize;
}

/** One arm's figures: people's opens and clicks (a machine's open is not one), unique. */
export interface ArmFigures {
  variant: number;
  phase: "test" | "remainder";
  sent: number;
  opened: number;
  clicked: number;
}

/** Each arm's figures: the test share's per subject, and the remainder's. */
export async function armFigures(root: Db, tenantId: string, campaignId: string) {
  const db = tenantDb(root, tenantId);
  const [sent, events] = await Promise.all([
    db
      .selectFrom("deliveries")
      .select([
        "ab_variant",
        "ab_phase",
        (eb) =>
          eb.fn.sum<number>(eb.case().when("status", "=", "sent").then(1).else(0).end()).as("sent"),
      ])
      .where("campaign_id", "=", campaignId)
      .where("ab_variant", "is not", null)
      .groupBy(["ab_variant", "ab_phase"])
      .execute(),
    db
      .selectFrom("campaign_events")
      .innerJoin("deliveries", "deliveries.id", "campaign_events.delivery_id")
      .select([
        "deliveries.ab_variant",
        "deliveries.ab_phase",
        "campaign_events.kind",
        (eb) => eb.fn.count<number>("campaign_events.delivery_id").distinct().as("people"),
      ])
      .where("campaign_events.campaign_id", "=", campaignId)
      .where("campaign_events.kind", "in", ["open", "click"])
      .where("campaign_events.machine", "=", 0)
      .where("deliveries.ab_variant", "is not", null)
      .groupBy(["deliveries.ab_variant", "deliveries.ab_phase", "campaign_events.kind"])
      .execute(),
  ]);
  const people = (variant: number, phase: string | null, kind: string) =>
    Number(
      events.find(
        (row) => row.ab_variant === variant && row.ab_phase === phase && row.kind === kind,
      )?.people ?? 0,
    );
  return sent
    .map(
      (row): ArmFigures => ({
        variant: Number(row.ab_variant),
        phase: row.ab_phase === "remainder" ? "remainder" : "test",
        sent: Number(row.sent ?? 0),
        opened: people(Number(row.ab_variant), row.ab_phase, "open"),
        clicked: people(Number(row.ab_variant), row.ab_phase, "click"),
      }),
    )
    .sort((a, b) => a.phase.localeCompare(b.phase) * -1 || a.variant - b.variant);
}

/** The test share's deliveries: how many there are, and how many still wait to be sent. */
export interface TestShareProgress {
  total: number;
  /** queued (a retry included) or in a sender's hands; sent, failed or cancelled ones have gone */
  waiting: number;
}

export async function testShareProgress(
  root: Db,
  tenantId: string,
  campaignId: string,
): Promise<TestShareProgress> {
  const row = await tenantDb(root, tenantId)
    .selectFrom("deliveries")
    .select([
      (eb) => eb.fn.countAll<number>().as("total"),
      (eb) =>
        eb.fn
          .sum<number>(eb.case().when("status", "in", ["pending", "sending"]).then(1).else(0).end())
          .as("waiting"),
    ])
    .where("campaign_id", "=", campaignId)
    .where("ab_phase", "=", "test")
    .executeTakeFirst();
  return { total: Number(row?.total ?? 0), waiting: Number(row?.waiting ?? 0) };
}

/** The campaign states in which staff may pick the winner ("Pick winner now"). */
export const STAFF_PICK_STATUSES: readonly CampaignStatus[] = ["sending", "paused"];

/** Why staff may not pick yet: a winner chosen before the test share went out is chosen on nothing. */
export const TEST_SHARE_STILL_SENDING =
  "The test share is still being sent: pick a winner once it has gone out.";

/**
 * When staff may pick the winner ("Pick winner now"; decision 051's addendum): "now" with no
 * winner yet, the campaign sending or paused and its test share gone out; "after-test-share"
 * while some of the test share still waits to be sent; null once decided or no longer sending.
 */
export function staffPickOf(
  campaign: Pick<CampaignRow, "status" | "ab_winner">,
  share: TestShareProgress,
): "now" | "after-test-share" | null {
  if (campaign.ab_winner !== null || !STAFF_PICK_STATUSES.includes(campaign.status)) return null;
  return share.waiting > 0 ? "after-test-share" : "now";
}

/** A rate of `sent`, 0 when nothing was sent. */
export const rateOf = (count: number, sent: number) => (sent > 0 ? count / sent : 0);

/**
 * The winner: the test arm with the highest rate of the test's measure; a tie goes to the first
 * subject (the lowest index), and so does a test nobody opened or clicked.
 */
export function chooseWinner(test: AbTest, arms: readonly ArmFigures[]): number {
  let winner = 0;
  let best = -1;
  for (let variant = 0; variant < test.subjects.length; variant++) {
    const arm = arms.find((each) => each.phase === "test" && each.variant === variant);
    const rate = arm ? rateOf(test.winnerBy === "clicks" ? arm.clicked : arm.opened, arm.sent) : 0;
    if (rate > best) {
      best = rate;
      winner = variant;
    }
  }
  return winner;
}

/** What the decision records: who decided, how, and the test arms' figures then. */
export interface AbDecision {
  by: "schedule" | "staff";
  winnerBy: AbTest["winnerBy"];
  arms: Omit<ArmFigures, "phase">[];
}

export function abDecisionOf(campaign: Pick<CampaignRow, "ab_decision">): AbDecision | null {
  return campaign.ab_decision ? (JSON.parse(campaign.ab_decision) as AbDecision) : null;
}
