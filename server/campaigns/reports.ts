import { sql } from "kysely";
import { variantLetter } from "../../shared/schemas/campaign";
import type { Db } from "../db";
import type { CampaignRow } from "../db/schema";
import { tenantDb } from "../db/tenant-guard";
import {
  type AbDecision,
  type ArmFigures,
  abDecisionOf,
  abTestOf,
  armFigures,
  rateOf,
  staffPickOf,
  type TestShareProgress,
  testShareProgress,
} from "./ab-test";

/* A campaign's progress while it sends, and its report: opens, clicks, feedback, top links. */

export interface CampaignProgress {
  total: number;
  sent: number;
  failed: number;
  pending: number;
  cancelled: number;
  /** messages a second over the last minute */
  rate: number;
  /** seconds left at that rate, when sending */
  secondsLeft: number | null;
}

export async function campaignProgress(root: Db, campaign: CampaignRow): Promise<CampaignProgress> {
  const db = tenantDb(root, campaign.tenant_id);
  const counts = await db
    .selectFrom("deliveries")
    .select(["status", (eb) => eb.fn.countAll<number>().as("count")])
    .where("campaign_id", "=", campaign.id)
    .groupBy("status")
    .execute();
  const count = (status: string) => Number(counts.find((row) => row.status === status)?.count ?? 0);
  const since = new Date(Date.now() - 60_000).toISOString();
  const recent = await db
    .selectFrom("deliveries")
    .select((eb) => [eb.fn.countAll<number>().as("count"), eb.fn.min("sent_at").as("first")])
    .where("campaign_id", "=", campaign.id)
    .where("status", "=", "sent")
    .where("sent_at", ">=", since)
    .executeTakeFirstOrThrow();
  const recentCount = Number(recent.count);
  const window = recent.first
    ? Math.max(1, (Date.now() - Date.parse(String(recent.first))) / 1000)
    : 0;
  const rate = window ? recentCount / window : 0;
  const pending = count("pending") + count("sending");
  return {
    total: Number(campaign.total),
    sent: count("sent"),
    failed: count("failed"),
    pending,
    cancelled: count("cancelled"),
    rate: Math.round(rate * 10) / 10,
    secondsLeft: campaign.status === "sending" && rate > 0 ? Math.ceil(pending / rate) : null,
  };
}

export interface CampaignReport {
  /** people's opens: machine opens (privacy proxies, scanners) are not among them */
  opens: { unique: number; total: number };
  /** recipients whose mail a machine opened (and nobody else, as far as anyone can tell) */
  machineOpens: number;
  clicks: { unique: number; total: number };
  unsubscribes: number;
  bounces: number;
  complaints: number;
  /** who bounced or complained (the first FEEDBACK_LIST_LIMIT, newest first) */
  feedback: { email: string; kind: "bounce" | "complaint"; at: string; detail: string | null }[];
  topLinks: { url: string; clicks: number; unique: number }[];
  /** events per hour since the start: [hour ISO, opens, clicks] */
  timeline: { hour: string; opens: number; clicks: number }[];
}

export const FEEDBACK_LIST_LIMIT = 200;

export async function campaignReport(root: Db, campaign: CampaignRow): Promise<CampaignReport> {
  const db = tenantDb(root, campaign.tenant_id);
  const byKind = await db
    .selectFrom("campaign_events")
    .select([
      "kind",
      (eb) => eb.fn.countAll<number>().as("total"),
      (eb) => eb.fn.count<number>("delivery_id").distinct().as("unique"),
    ])
    .where("campaign_id", "=", campaign.id)
    .where("machine", "=", 0)
    .groupBy("kind")
    .execute();
  const kind = (name: string) => byKind.find((row) => row.kind === name);
  const machine = await db
    .selectFrom("campaign_events")
    .select((eb) => eb.fn.count<number>("delivery_id").distinct().as("unique"))
    .where("campaign_id", "=", campaign.id)
    .where("machine", "=", 1)
    .executeTakeFirstOrThrow();
  const links = await db
    .selectFrom("campaign_events")
    .select([
      "url",
      (eb) => eb.fn.countAll<number>().as("clicks"),
      (eb) => eb.fn.count<number>("delivery_id").distinct().as("unique"),
    ])
    .where("campaign_id", "=", campaign.id)
    .where("kind", "=", "click")
    .groupBy("url")
    .orderBy("clicks", "desc")
    .limit(10)
    .execute();
  // ISO text times on both databases: the first 13 characters are the hour.
  const hour = sql<string>`substr(created_at, 1, 13)`;
  const timeline = await db
    .selectFrom("campaign_events")
    .select([
      hour.as("hour"),
      (eb) =>
        eb.fn.sum<number>(eb.case().when("kind", "=", "open").then(1).else(0).end()).as("opens"),
      (eb) =>
        eb.fn.sum<number>(eb.case().when("kind", "=", "click").then(1).else(0).end()).as("clicks"),
    ])
    .where("campaign_id", "=", campaign.id)
    .where("kind", "in", ["open", "click"])
    .where("machine", "=", 0)
    .groupBy(hour)
    .orderBy(hour)
    .execute();
  const feedback = await db
    .selectFrom("deliveries")
    .select(["email", "bounced_at", "complained_at", "feedback"])
    .where("campaign_id", "=", campaign.id)
    .where((eb) => eb.or([eb("bounced_at", "is not", null), eb("complained_at", "is not", null)]))
    .orderBy("id")
    .limit(FEEDBACK_LIST_LIMIT)
    .execute();
  return {
    opens: { unique: Number(kind("open")?.unique ?? 0), total: Number(kind("open")?.total ?? 0) },
    machineOpens: Number(machine.unique ?? 0),
    clicks: {
      unique: Number(kind("click")?.unique ?? 0),
      total: Number(kind("click")?.total ?? 0),
    },
    unsubscribes: Number(kind("unsubscribe")?.unique ?? 0),
    bounces: Number(kind("bounce")?.unique ?? 0),
    complaints: Number(kind("complaint")?.unique ?? 0),
    feedback: feedback.map((row) => ({
      email: row.email,
      kind: row.complained_at ? ("complaint" as const) : ("bounce" as const),
      at: row.complained_at ?? row.bounced_at ?? "",
      detail: row.feedback,
    })),
    topLinks: links.map((row) => ({
      url: row.url ?? "",
      clicks: Number(row.clicks),
      unique: Number(row.unique),
    })),
    timeline: timeline.map((row) => ({
      hour: `${row.hour}:00:00.000Z`,
      opens: Number(row.opens),
      clicks: Number(row.clicks),
    })),
  };
}

/** An A/B test's report (issue 35, target 5): every arm, which won and why, the remainder. */
export interface AbTestReport {
  sharePercent: number;
  winnerBy: "opens" | "clicks";
  waitMinutes: number;
  /** when the sender chooses, if nobody picks before */
  decideAt: string | null;
  decidedAt: string | null;
  decidedBy: "schedule" | "staff" | null;
  winner: number | null;
  /** why the winner won, in words; null until it is chosen */
  reason: string | null;
  arms: (ArmFigures & { subject: string })[];
  /** the winner's subject to the rest; null until the winner is chosen */
  remainder: (ArmFigures & { subject: string }) | null;
  /** the test share's deliveries, and how many still wait to be sent */
  testShare: TestShareProgress;
  /** "Pick winner now": offered, offered once the test share has gone out, or not (staffPickOf) */
  pick: ReturnType<typeof staffPickOf>;
}

export async function abTestReport(root: Db, campaign: CampaignRow): Promise<AbTestReport | null> {
  const test = abTestOf(campaign);
  if (!test) return null;
  const [figures, testShare] = await Promise.all([
    armFigures(root, campaign.tenant_id, campaign.id),
    testShareProgress(root, campaign.tenant_id, campaign.id),
  ]);
  const arms = test.subjects.map((subject, variant) => ({
    variant,
    phase: "test" as const,
    sent: 0,
    opened: 0,
    clicked: 0,
    ...figures.find((arm) => arm.phase === "test" && arm.variant === variant),
    subject,
  }));
  const rest = figures.find((arm) => arm.phase === "remainder");
  const winner = campaign.ab_winner;
  const decision = abDecisionOf(campaign);
  return {
    ...test,
    decideAt: campaign.ab_decide_at,
    decidedAt: campaign.ab_decided_at,
    decidedBy: decision?.by ?? null,
    winner,
    reason: winner !== null && decision ? winReason(test.subjects, winner, decision) : null,
    arms,
    remainder:
      winner === null
        ? null
        : {
            ...(rest ?? { variant: winner, phase: "remainder", sent: 0, opened: 0, clicked: 0 }),
            subject: test.subjects[winner] ?? "",
          },
    testShare,
    pick: staffPickOf(campaign, testShare),
  };
}

/** "B had the most clicks: 9 of 30 (30%), against A: 0 of 30 (0%)…" — the figures it was chosen on. */
function winReason(subjects: readonly string[], winner: number, decision: AbDecision): string {
  const measure = decision.winnerBy === "clicks" ? "clicked" : "opened";
  const rate = (variant: number) => {
    const arm = decision.arms.find((each) => each.variant === variant);
    return rateOf(arm?.[measure] ?? 0, arm?.sent ?? 0);
  };
  const figures = (variant: number) => {
    const arm = decision.arms.find((each) => each.variant === variant);
    return `${arm?.[measure] ?? 0} of ${arm?.sent ?? 0} ${measure} (${Math.round(rate(variant) * 1000) / 10}%)`;
  };
  const others = subjects
    .map((_, variant) => variant)
    .filter((variant) => variant !== winner)
    .map((variant) => `${variantLetter(variant)}: ${figures(variant)}`);
  const tie = subjects.some((_, variant) => variant !== winner && rate(variant) === rate(winner));
  const by = decision.by === "staff" ? "Picked by staff" : "Chosen when the wait was over";
  return `${by}, by ${decision.winnerBy}: ${variantLetter(winner)} ${figures(winner)}, against ${others.join("; ")}.${tie ? " A tie goes to the first subject." : ""}`;
}
