import type { ChildProcess } from "node:child_process";
import { describe, expect, it } from "vitest";
import { decideAbTest } from "../../server/campaigns/ab-decision";
import { abDecisionOf, TEST_SHARE_STILL_SENDING } from "../../server/campaigns/ab-test";
import { getCampaignRow } from "../../server/campaigns/campaign-row";
import { createCampaign } from "../../server/campaigns/campaigns";
import { recordClick } from "../../server/campaigns/tracking";
import type { Db } from "../../server/db";
import { crossTenant } from "../../server/db/tenant-guard";
import { seedAudience, useSendingEngine, waitForStatus } from "../support/campaigns";
import { testDialects } from "../support/database";
import { scaled } from "../support/timing";

const SUBJECTS = ["Issue 9: the brief", "Issue 9: what the court said", "Issue 9, in one page"];

/** The campaign's deliveries: who got which subject, in which phase, sent or not. */
const deliveriesOf = (db: Db, campaignId: string) =>
  crossTenant(db)
    .selectFrom("deliveries")
    .select(["id", "email", "status", "ab_variant", "ab_phase"])
    .where("campaign_id", "=", campaignId)
    .execute();

/** Polls until `done` holds, for `timeoutMs` of a quiet machine. */
async function waitUntil(what: string, done: () => boolean | Promise<boolean>, timeoutMs = 30_000) {
  const deadline = Date.now() + scaled(timeoutMs);
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${scaled(timeoutMs)} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function kill(worker: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => worker.once("exit", resolve));
  worker.kill("SIGKILL");
  await exited;
}

// A/B subject lines (issue 35, target 5) through the sending engine: the test share, the winner
// and the remainder, with the worker process killed in each phase.
describe.each(testDialects())("A/B subject lines on %s", (dialect) => {
  const engine = useSendingEngine(dialect);

  it(
    "sends each recipient exactly one subject across SIGKILLs in the test and the remainder, the winner chosen once",
    async () => {
      const { db } = engine.database;
      const { expected, lists } = await seedAudience(db, 300, "ab");
      const campaign = await createCampaign(
        engine.ctx,
        {
          subject: SUBJECTS[0],
          content: '<p>Read <a href="https://example.com/brief">the brief</a>.</p>',
          groups: lists,
          abTest: { subjects: SUBJECTS, sharePercent: 30, winnerBy: "clicks", waitMinutes: 60 },
        },
        null,
      );
      // The test share: 30 % of 300, three arms of 30, picked at random and recorded.
      const queued = await deliveriesOf(db, campaign.id);
      expect(queued).toHaveLength(90);
      for (const variant of [0, 1, 2]) {
        expect(queued.filter((row) => row.ab_variant === variant)).toHaveLength(30);
      }
      expect(queued.every((row) => row.ab_phase === "test")).toBe(true);
      expect(Number((await getCampaignRow(db, "main", campaign.id)).total)).toBe(300);
      const ofCampaign = () =>
        engine.sink.messages.filter((mail) => mail.messageId.includes(`.${campaign.id}@`));

      // Killed during the test share, started again: the test share goes out, nothing more.
      const first = engine.workerProcess();
      await waitUntil("30 test messages", () => ofCampaign().length >= 30);
      await kill(first);
      expect(ofCampaign().length).toBeLessThan(90);
      let worker = engine.workerProcess();
      await waitUntil("the test share sent", async () =>
        (await deliveriesOf(db, campaign.id)).every((row) => row.status === "sent"),
      );
      // Nothing beyond the test share while the wait runs; the campaign is still sending.
      const testShare = new Map(queued.map((row) => [row.email, row.ab_variant]));
      await waitUntil("the test share received", () => ofCampaign().length >= 90);
      expect(new Set(ofCampaign().flatMap((mail) => mail.to)).size).toBe(90);
      expect((await getCampaignRow(db, "main", campaign.id)).status).toBe("sending");

      // Subject C gets the most clicks (a person's click is an open too), then B.
      const sent = await deliveriesOf(db, campaign.id);
      const clicks = new Map([
        [1, 5],
        [2, 9],
      ]);
      for (const [variant, count] of clicks) {
        for (const row of sent.filter((each) => each.ab_variant === variant).slice(0, count)) {
          await recordClick(db, row.id, 0);
        }
      }

      // The wait is over while no worker runs: the next ones (two at once, and a staff member's
      // "Pick winner now" at the same moment) decide once.
      await kill(worker);
      await crossTenant(db)
        .updateTable("campaigns")
        .set({ ab_decide_at: new Date(Date.now() - 1_000).toISOString() })
        .where("id", "=", campaign.id)
        .execute();
      worker = engine.workerProcess();
      const second = engine.workerProcess();
      const staff = await decideAbTest(db, "main", campaign.id, "staff");
      await waitUntil("the winner chosen", async () => {
        const row = await getCampaignRow(db, "main", campaign.id);
        return row.ab_winner !== null;
      });
      const decided = await getCampaignRow(db, "main", campaign.id);
      expect(decided.ab_winner).toBe(2);
      const decision = abDecisionOf(decided);
      expect(decision?.by).toBe(staff ? "staff" : "schedule");
      expect(decision?.arms.map((arm) => arm.clicked)).toEqual([0, 5, 9]);

      // Killed during the remainder, started again: everyone else gets subject C, once.
      await waitUntil("60 remainder messages", () => ofCampaign().length >= 150);
      await kill(worker);
      await kill(second);
      expect(ofCampaign().length).toBeLessThan(300);
      engine.workerProcess();
      const done = await waitForStatus(db, campaign.id, ["sent"], 90_000);
      expect(done.ab_winner).toBe(2);
      expect(done.ab_decided_at).toBe(decided.ab_decided_at);
      expect(Number(done.total)).toBe(300);

      const rows = await deliveriesOf(db, campaign.id);
      expect(rows).toHaveLength(300);
      expect(rows.filter((row) => row.ab_phase === "remainder")).toHaveLength(210);
      expect(rows.every((row) => row.status === "sent")).toBe(true);
      const mail = ofCampaign();
      expect([...new Set(mail.flatMap((each) => each.to))].sort()).toEqual(expected);
      // Only messages in flight at a kill may repeat (four at a time), with the same Message-ID
      // and the same subject: each recipient had exactly one message.
      expect(new Set(mail.map((each) => each.messageId)).size).toBe(300);
      expect(mail.length - 300).toBeLessThanOrEqual(12);
      const subjects = new Map<string, Set<string>>();
      for (const each of mail) {
        const to = each.to[0] ?? "";
        subjects.set(to, (subjects.get(to) ?? new Set()).add(each.subject));
      }
      for (const [to, received] of subjects) {
        const variant = testShare.get(to);
        expect([...received], to).toEqual([SUBJECTS[variant ?? 2]]);
      }
    },
    scaled(240_000),
  );

  it("refuses staff's pick until the test share has gone out, then decides once when staff pick twice at once; a tie goes to the first subject", async () => {
    const { db } = engine.database;
    const { lists } = await seedAudience(db, 20, "tie");
    const campaign = await createCampaign(
      engine.ctx,
      {
        subject: "Tie A",
        content: "<p>Hi</p>",
        groups: lists,
        abTest: {
          subjects: ["Tie A", "Tie B"],
          sharePercent: 50,
          winnerBy: "opens",
          waitMinutes: 60,
        },
      },
      null,
    );
    // The lists hold the earlier test's audience too: half of all of it is the test share.
    const audience = Number(campaign.total);
    expect(audience).toBeGreaterThanOrEqual(20);
    const share = Math.round(audience / 2);
    const queued = await deliveriesOf(db, campaign.id);
    expect(queued).toHaveLength(share);

    // Nothing sent yet: staff may not pick (the winner would be chosen on no opens at all), and
    // nothing changes.
    const before = await getCampaignRow(db, "main", campaign.id);
    await expect(decideAbTest(db, "main", campaign.id, "staff")).rejects.toMatchObject({
      status: 409,
      message: TEST_SHARE_STILL_SENDING,
    });
    expect(await getCampaignRow(db, "main", campaign.id)).toEqual(before);
    expect(await deliveriesOf(db, campaign.id)).toEqual(queued);

    // The test share goes out, one of A's refused for good: a failed delivery has gone too.
    const refused = queued.find((row) => row.ab_variant === 0)?.email;
    engine.sink.answer = (to) => (to === refused ? 550 : undefined);
    engine.worker({ SEND_RATE: 0, SEND_CONCURRENCY: 4 });
    await waitUntil("the test share gone out", async () =>
      (await deliveriesOf(db, campaign.id)).every(
        (row) => row.status !== "pending" && row.status !== "sending",
      ),
    );
    expect((await deliveriesOf(db, campaign.id)).filter((row) => row.status === "failed")).toEqual([
      expect.objectContaining({ email: refused }),
    ]);
    const answers = await Promise.all([
      decideAbTest(db, "main", campaign.id, "staff"),
      decideAbTest(db, "main", campaign.id, "staff"),
    ]);
    expect(answers.filter(Boolean)).toHaveLength(1);
    const row = await getCampaignRow(db, "main", campaign.id);
    expect(row.ab_winner).toBe(0);
    expect(abDecisionOf(row)?.by).toBe("staff");
    expect(await deliveriesOf(db, campaign.id)).toHaveLength(audience);
    await waitForStatus(db, campaign.id, ["sent"]);
    const rows = await deliveriesOf(db, campaign.id);
    const mail = engine.sink.messages.filter((each) => each.messageId.includes(`.${campaign.id}@`));
    expect(mail.flatMap((each) => each.to).sort()).toEqual(
      rows
        .filter((row) => row.status === "sent")
        .map((row) => row.email)
        .sort(),
    );
    expect(mail.filter((each) => each.subject === "Tie B")).toHaveLength(Math.floor(share / 2));
    // Decided already: a third press changes nothing.
    expect(await decideAbTest(db, "main", campaign.id, "staff")).toBe(false);
  });
});
