import { describe, expect, it } from "vitest";
import { getCampaignRow } from "../../server/campaigns/campaign-row";
import { createCampaign } from "../../server/campaigns/campaigns";
import { STALE_CLAIM_MS } from "../../server/campaigns/deliveries";
import { createDb } from "../../server/db";
import { crossTenant } from "../../server/db/tenant-guard";
import { recipientsOf, seedAudience, useSendingEngine, waitForStatus } from "../support/campaigns";
import { testDialects } from "../support/database";
import { scaled } from "../support/timing";

// The sending engine after failures: a worker killed mid-campaign, a claim no runner holds, two
// workers on one campaign.
describe.each(testDialects())("the sending engine's recovery on %s", (dialect) => {
  const engine = useSendingEngine(dialect);

  it(
    "finishes exactly once after the worker process is killed with SIGKILL and started again",
    async () => {
      const { expected, lists } = await seedAudience(engine.database.db, 300, "d");
      const campaign = await createCampaign(
        engine.ctx,
        { subject: "Issue 4", content: "<p>Hi</p>", groups: lists },
        null,
      );
      const first = engine.workerProcess();
      const deadline = Date.now() + scaled(30_000);
      while (recipientsOf(engine.sink, "d").length < 100 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      first.kill("SIGKILL");
      await new Promise((resolve) => first.once("exit", resolve));
      const atKill = recipientsOf(engine.sink, "d").length;
      expect(atKill).toBeGreaterThanOrEqual(100);
      expect(atKill).toBeLessThan(300);
      engine.workerProcess();
      const done = await waitForStatus(engine.database.db, campaign.id, ["sent"], 90_000);
      expect(done.status).toBe("sent");
      const received = recipientsOf(engine.sink, "d");
      expect([...new Set(received)].sort()).toEqual(expected);
      // Only messages in flight at the kill may repeat, and they carry the same Message-ID.
      const repeats = received.length - expected.length;
      expect(repeats).toBeLessThanOrEqual(4);
      const messageIds = engine.sink.messages
        .filter((m) => m.to[0]?.startsWith("d-"))
        .map((m) => m.messageId);
      expect(new Set(messageIds).size).toBe(expected.length);
    },
    scaled(120_000),
  );

  it.runIf(dialect === "sqlite")(
    "takes back a row its own worker claimed but no longer holds, once the claim is stale",
    async () => {
      const { expected, lists } = await seedAudience(engine.database.db, 3, "f");
      const campaign = await createCampaign(
        engine.ctx,
        { subject: "Issue 6", content: "<p>Hi</p>", groups: lists },
        null,
      );
      const running = engine.worker({ SEND_RATE: 0, SEND_CONCURRENCY: 2 });
      // A claim in this worker's name that no runner holds (as after a failure mid-batch): the
      // heartbeat must not keep it alive, or the campaign never ends.
      const [lost] = await crossTenant(engine.database.db)
        .selectFrom("deliveries")
        .select("id")
        .where("campaign_id", "=", campaign.id)
        .orderBy("id", "desc")
        .limit(1)
        .execute();
      await crossTenant(engine.database.db)
        .updateTable("deliveries")
        .set({ status: "sending", claimed_by: running.id, claimed_at: new Date().toISOString() })
        .where("id", "=", lost?.id ?? 0)
        .execute();
      const done = await waitForStatus(
        engine.database.db,
        campaign.id,
        ["sent"],
        STALE_CLAIM_MS + 15_000,
      );
      expect(done.status).toBe("sent");
      expect(recipientsOf(engine.sink, "f").sort()).toEqual(expected);
    },
    scaled(STALE_CLAIM_MS + 20_000),
  );

  it.runIf(dialect === "postgres")("never lets two workers send the same delivery", async () => {
    const { expected, lists } = await seedAudience(engine.database.db, 400, "e");
    const other = createDb(engine.database.url);
    try {
      const campaign = await createCampaign(
        engine.ctx,
        { subject: "Issue 5", content: "<p>Hi</p>", groups: lists },
        null,
      );
      engine.worker({ SEND_RATE: 0, SEND_CONCURRENCY: 4 });
      engine.worker({ SEND_RATE: 0, SEND_CONCURRENCY: 4 }, other);
      await waitForStatus(engine.database.db, campaign.id, ["sent"]);
      expect(recipientsOf(engine.sink, "e").sort()).toEqual(expected);
      const byWorker = await crossTenant(engine.database.db)
        .selectFrom("deliveries")
        .select(["claimed_by", (eb) => eb.fn.countAll<number>().as("count")])
        .where("campaign_id", "=", campaign.id)
        .groupBy("claimed_by")
        .execute();
      // Every delivery of the campaign (earlier tests' subscribers are on these lists too) went out once.
      const ofCampaign = engine.sink.messages.filter((m) =>
        m.messageId.includes(`.${campaign.id}@`),
      );
      expect(ofCampaign.length).toBe(
        Number((await getCampaignRow(engine.database.db, "main", campaign.id)).total),
      );
      expect(new Set(ofCampaign.map((m) => m.messageId)).size).toBe(ofCampaign.length);
      // Both took a share, and no delivery was sent twice (checked above against the engine.sink).
      expect(byWorker.length).toBeGreaterThanOrEqual(2);
    } finally {
      await engine.stopWorkers();
      await other.destroy();
    }
  });
});
