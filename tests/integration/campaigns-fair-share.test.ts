import { describe, expect, it } from "vitest";
import { getCampaignRow } from "../../server/campaigns/campaign-row";
import { createCampaign } from "../../server/campaigns/campaigns";
import { claimFairBatch } from "../../server/campaigns/fair-claims";
import { getTenant } from "../../server/tenants/store";
import { seedAudience, useSendingEngine } from "../support/campaigns";
import { testDialects } from "../support/database";
import { insertListSubscriber } from "../support/subscribers";
import { scaled } from "../support/timing";

// Issue 44, target 3: campaigns of several tenants share the sender. Claimed oldest row first, a
// tenant's large campaign queued a moment earlier held a neighbour's small one until its end.
describe.each(testDialects())("campaigns of two tenants on %s", (dialect) => {
  const engine = useSendingEngine(dialect);

  it(
    "take turns at the sender: the small campaign of B finishes long before A's large one",
    async () => {
      const { db } = engine.database;
      const { lists } = await seedAudience(db, 600, "large");
      for (let index = 0; index < 20; index++) {
        await insertListSubscriber(db, {
          email: `small-${index}@example.com`,
          tenantId: "keydiscovery",
        });
      }
      // A's campaign first, so its 600 rows are queued ahead of B's 20.
      const large = await createCampaign(
        engine.ctx,
        { subject: "Large", content: "<p>Large.</p>", groups: lists },
        null,
      );
      const small = await createCampaign(
        { ...engine.ctx, tenant: (await getTenant(db, "keydiscovery")).config },
        { subject: "Small", content: "<p>Small.</p>", groups: ["newsletter"] },
        null,
      );
      expect(Number(large.total)).toBe(600);
      expect(Number(small.total)).toBe(20);
      engine.worker({ SEND_RATE: 0, SEND_CONCURRENCY: 4 });

      const sent = async (tenantId: string, id: string) =>
        (await getCampaignRow(db, tenantId, id)).status === "sent";
      const deadline = Date.now() + scaled(60_000);
      while (!((await sent("main", large.id)) && (await sent("keydiscovery", small.id)))) {
        if (Date.now() > deadline) throw new Error("the campaigns did not finish");
        await new Promise((resolve) => setTimeout(resolve, 100));
      }

      // The order the sink received them in: B's last message came before a sixth of A's.
      const arrivals = engine.sink.messages.map((mail) => mail.to[0] ?? "");
      const largeArrivals = arrivals.filter((to) => to.startsWith("large-"));
      const smallArrivals = arrivals.filter((to) => to.startsWith("small-"));
      expect(largeArrivals).toHaveLength(600);
      expect(smallArrivals).toHaveLength(20);
      const lastSmall = Math.max(...smallArrivals.map((to) => arrivals.indexOf(to)));
      const largeBeforeIt = arrivals.slice(0, lastSmall).filter((to) => to.startsWith("large-"));
      expect(largeBeforeIt.length).toBeLessThan(100);
    },
    scaled(60_000),
  );

  it("shares each claim: a share a tenant cannot fill goes to the others, and the tenants alternate", async () => {
    const { db } = engine.database;
    const { lists } = await seedAudience(db, 300, "share");
    for (let index = 0; index < 10; index++) {
      await insertListSubscriber(db, {
        email: `share-small-${index}@example.com`,
        tenantId: "keydiscovery",
      });
    }
    await createCampaign(
      engine.ctx,
      { subject: "Share large", content: "<p>Large.</p>", groups: lists },
      null,
    );
    const small = await createCampaign(
      { ...engine.ctx, tenant: (await getTenant(db, "keydiscovery")).config },
      { subject: "Share small", content: "<p>Small.</p>", groups: ["newsletter"] },
      null,
    );
    // B's list holds the first test's 20 too: fewer than half a batch of 100 in any case.
    const smallTotal = Number(small.total);
    expect(smallTotal).toBeLessThan(50);

    const batch = await claimFairBatch(db, "fair-share-test", 100, new Date().toISOString(), 0);
    expect(batch).toHaveLength(100);
    const tenants = batch.map((row) => row.tenant_id);
    expect(tenants.filter((tenant) => tenant === "keydiscovery")).toHaveLength(smallTotal);
    // One of each in turn while both have rows: B's are all among the first 2 × its count.
    const head = tenants.slice(0, 2 * smallTotal);
    expect(head.filter((tenant) => tenant === "keydiscovery")).toHaveLength(smallTotal);
    for (let index = 1; index < head.length; index++) {
      expect(head[index]).not.toBe(head[index - 1]);
    }
    expect(new Set(batch.map((row) => row.status))).toEqual(new Set(["sending"]));
  });
});
