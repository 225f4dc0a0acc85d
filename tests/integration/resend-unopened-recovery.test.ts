import { describe, expect, it } from "vitest";
import { changeCampaignState, createCampaign } from "../../server/campaigns/campaigns";
import { resendToUnopened } from "../../server/campaigns/resend-unopened";
import { recordClick, recordOpen } from "../../server/campaigns/tracking";
import { crossTenant, tenantDb } from "../../server/db/tenant-guard";
import { recipientsOf, seedAudience, useSendingEngine, waitForStatus } from "../support/campaigns";
import { testDialects } from "../support/database";
import { scaled } from "../support/timing";

const BROWSER =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/131.0 Safari/537.36";

// "Send to those who did not open" (issue 35, target 4) through the sending engine: the worker
// killed mid-send and started again, and the button pressed twice at once, reach each unopened
// recipient once, and nobody who opened or clicked.
describe.each(testDialects())("sending to those who did not open on %s", (dialect) => {
  const engine = useSendingEngine(dialect);

  it(
    "reaches each unopened recipient exactly once across a SIGKILL of the worker",
    async () => {
      const { expected, lists } = await seedAudience(engine.database.db, 300, "n");
      const original = await createCampaign(
        engine.ctx,
        {
          subject: "Issue 12",
          content: '<p>Read <a href="https://example.com/brief">the brief</a>.</p>',
          groups: lists,
        },
        null,
      );
      engine.worker({ SEND_RATE: 0, SEND_CONCURRENCY: 4 });
      await waitForStatus(engine.database.db, original.id, ["sent"], 60_000);
      await engine.stopWorkers();

      // A third open the mail, a sixth only click (a click is an open), a sixth's only "open" is
      // Apple's proxy (a machine: still unopened).
      const deliveries = await crossTenant(engine.database.db)
        .selectFrom("deliveries")
        .select(["id", "email"])
        .where("campaign_id", "=", original.id)
        .execute();
      const engaged = new Set<string>();
      for (const delivery of deliveries) {
        const n = Number(delivery.email.match(/^n-(\d+)@/)?.[1]);
        if (n % 3 === 0) {
          await recordOpen(engine.database.db, delivery.id, BROWSER);
          engaged.add(delivery.email);
        } else if (n % 6 === 1) {
          await recordClick(engine.database.db, delivery.id, 0);
          engaged.add(delivery.email);
        } else if (n % 6 === 2) {
          await recordOpen(engine.database.db, delivery.id, "Mozilla/5.0");
        }
      }
      const unopened = expected.filter((email) => !engaged.has(email));
      expect(unopened.length).toBe(150);

      // The button, pressed twice at once: one draft.
      const ctx = { db: tenantDb(engine.database.db, "main"), tenant: engine.ctx.tenant };
      const [first, second] = await Promise.all([
        resendToUnopened(ctx, original.id, null),
        resendToUnopened(ctx, original.id, null),
      ]);
      expect(second.id).toBe(first.id);
      const drafts = await crossTenant(engine.database.db)
        .selectFrom("campaigns")
        .select("id")
        .where("unopened_of", "=", original.id)
        .execute();
      expect(drafts).toHaveLength(1);
      await changeCampaignState(ctx, first.id, "send");
      const started = await waitForStatus(engine.database.db, first.id, ["sending"]);
      expect(Number(started.total)).toBe(150);

      const ofResend = () =>
        engine.sink.messages.filter((mail) => mail.messageId.includes(`.${first.id}@`));
      const worker = engine.workerProcess();
      const deadline = Date.now() + scaled(30_000);
      while (ofResend().length < 40 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      worker.kill("SIGKILL");
      await new Promise((resolve) => worker.once("exit", resolve));
      const atKill = ofResend().length;
      expect(atKill).toBeGreaterThanOrEqual(40);
      expect(atKill).toBeLessThan(150);
      engine.workerProcess();
      const done = await waitForStatus(engine.database.db, first.id, ["sent"], 90_000);
      expect(done.status).toBe("sent");

      const received = ofResend().flatMap((mail) => mail.to);
      expect([...new Set(received)].sort()).toEqual(unopened);
      // Only messages in flight at the kill may repeat, and they carry the same Message-ID.
      expect(received.length - unopened.length).toBeLessThanOrEqual(4);
      expect(new Set(ofResend().map((mail) => mail.messageId)).size).toBe(unopened.length);
      // Nobody who opened or clicked got it; the original's own mail went out once each.
      expect(received.filter((email) => engaged.has(email))).toEqual([]);
      expect(recipientsOf(engine.sink, "n").length - received.length).toBe(300);
    },
    scaled(180_000),
  );
});
