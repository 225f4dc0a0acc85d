import { describe, expect, it } from "vitest";
import { getCampaignRow } from "../../server/campaigns/campaign-row";
import { createCampaign } from "../../server/campaigns/campaigns";
import { crossTenant } from "../../server/db/tenant-guard";
import { recipientsOf, seedAudience, useSendingEngine, waitForStatus } from "../support/campaigns";
import { testDialects } from "../support/database";
import { scaled } from "../support/timing";

// The recovery tests (a killed worker, stale claims, two workers at once) are in
// campaigns-recovery.test.ts: they wait out claims, and a file of their own runs beside this one.
describe.each(testDialects())("the sending engine on %s", (dialect) => {
  const engine = useSendingEngine(dialect);

  it("mails every active subscriber of two overlapping lists exactly once, and nobody else", async () => {
    const { expected, lists } = await seedAudience(engine.database.db, 500, "a");
    const campaign = await createCampaign(
      engine.ctx,
      {
        subject: "Issue 1",
        content:
          '<div data-block="web-only"><p>Comment on the site.</p></div>' +
          '<p>Read <a href="https://example.com/article">the article</a>.</p>',
        groups: lists,
      },
      null,
    );
    expect(campaign.status).toBe("sending");
    expect(Number(campaign.total)).toBe(500);
    engine.worker({ SEND_RATE: 0, SEND_CONCURRENCY: 4 });
    const done = await waitForStatus(engine.database.db, campaign.id, ["sent", "failed"]);
    expect(done.status).toBe("sent");
    const received = recipientsOf(engine.sink, "a").sort();
    expect(received).toEqual(expected);
    const sample = engine.sink.messages.find((mail) => mail.to.includes("a-0@example.com"));
    expect(sample?.headers.get("list-unsubscribe-post")).toBe("List-Unsubscribe=One-Click");
    expect(sample?.headers.get("list-unsubscribe")).toMatch(
      /<http:\/\/localhost:3000\/subscription\/one-click\/[^>]+>,\s*<mailto:/,
    );
    expect(sample?.html).toMatch(/href="http:\/\/localhost:3000\/t\/c\/\d+\.0\.[\w-]+"/);
    expect(sample?.html).toMatch(/src="http:\/\/localhost:3000\/t\/o\/\d+\.0\.[\w-]+\.gif"/);
    expect(sample?.text).toContain("/t/c/");
    // A web-only section is in neither part, nor in the preview line inboxes show.
    expect(sample?.html).not.toContain("Comment on the site.");
    expect(sample?.text).not.toContain("Comment on the site.");
    expect(sample?.html).toContain("Read the article.");
    expect(sample?.messageId).toMatch(new RegExp(`^<d\\d+\\.${campaign.id}@keydiscovery\\.com>$`));
    expect(sample?.headers.get("list-id")).toMatch(/^"[^"]+" <[a-z0-9-]+\.main\.localhost>$/);
    const ids = new Set(
      engine.sink.messages.filter((m) => m.to[0]?.startsWith("a-")).map((m) => m.messageId),
    );
    expect(ids.size).toBe(500);
  });

  it("retries 4xx answers until everyone has it, and turns 5xx into failed deliveries with a bounce", async () => {
    const { expected, lists } = await seedAudience(engine.database.db, 60, "b");
    const tries = new Map<string, number>();
    engine.sink.answer = (to) => {
      if (!to.startsWith("b-")) return undefined;
      const n = (tries.get(to) ?? 0) + 1;
      tries.set(to, n);
      if (to === "b-7@example.com" || to === "b-8@example.com") return 550;
      // one in ten addresses is turned away with a 451 on its first try
      return Number(to.match(/b-(\d+)@/)?.[1]) % 10 === 3 && n === 1 ? 451 : undefined;
    };
    const campaign = await createCampaign(
      engine.ctx,
      { subject: "Issue 2", content: "<p>Hi</p>", groups: lists },
      null,
    );
    engine.worker({ SEND_RATE: 0, SEND_CONCURRENCY: 4 });
    const done = await waitForStatus(engine.database.db, campaign.id, ["sent", "failed"]);
    expect(done.status).toBe("sent");
    const received = recipientsOf(engine.sink, "b").sort();
    expect(received).toEqual(
      expected.filter((email) => !["b-7@example.com", "b-8@example.com"].includes(email)),
    );
    const failed = await crossTenant(engine.database.db)
      .selectFrom("deliveries")
      .select(["email", "status", "attempts", "error"])
      .where("campaign_id", "=", campaign.id)
      .where("status", "=", "failed")
      .orderBy("email")
      .execute();
    expect(failed.map((row) => row.email)).toEqual(["b-7@example.com", "b-8@example.com"]);
    expect(failed[0]?.error).toMatch(/Mailbox unavailable/);
    const retried = await crossTenant(engine.database.db)
      .selectFrom("deliveries")
      .select("email")
      .where("campaign_id", "=", campaign.id)
      .where("attempts", "=", 2)
      .execute();
    expect(retried).toHaveLength(6);
    const bounces = await crossTenant(engine.database.db)
      .selectFrom("campaign_events")
      .select("delivery_id")
      .where("campaign_id", "=", campaign.id)
      .where("kind", "=", "bounce")
      .execute();
    expect(bounces).toHaveLength(2);
  });

  it("pauses, resumes and cancels", async () => {
    const { lists } = await seedAudience(engine.database.db, 40, "c");
    const campaign = await createCampaign(
      engine.ctx,
      { subject: "Issue 3", content: "<p>Hi</p>", groups: lists, mode: "draft" },
      null,
    );
    expect(campaign.status).toBe("draft");
    const { changeCampaignState } = await import("../../server/campaigns/campaigns");
    await changeCampaignState(engine.ctx, campaign.id, "send");
    await changeCampaignState(engine.ctx, campaign.id, "pause");
    engine.worker({ SEND_RATE: 0, SEND_CONCURRENCY: 2 });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(recipientsOf(engine.sink, "c")).toHaveLength(0);
    await changeCampaignState(engine.ctx, campaign.id, "resume");
    await waitForStatus(engine.database.db, campaign.id, ["sent"]);
    expect(recipientsOf(engine.sink, "c")).toHaveLength(40);
    await expect(changeCampaignState(engine.ctx, campaign.id, "cancel")).rejects.toThrow(
      /cannot be cancelled/,
    );
  });

  it("stops within a second of Pause or Cancel, mid-batch, and resumes to send each message once", async () => {
    const { changeCampaignState } = await import("../../server/campaigns/campaigns");
    const concurrency = 2;
    const statusesOf = async (id: string) =>
      (
        await crossTenant(engine.database.db)
          .selectFrom("deliveries")
          .select("status")
          .where("campaign_id", "=", id)
          .execute()
      ).map((row) => row.status);
    const mailOf = (id: string) =>
      engine.sink.messages.filter((mail) => mail.messageId.includes(`.${id}@`)).length;
    const waitForSent = async (id: string, count: number) => {
      while (mailOf(id) < count) await new Promise((resolve) => setTimeout(resolve, 20));
    };
    /** Waits until no row of the campaign is held for sending: a second on a quiet machine. */
    const waitForStandDown = async (id: string, held: string[]) => {
      const deadline = Date.now() + scaled(1_000);
      let statuses = await statusesOf(id);
      while (statuses.some((status) => held.includes(status)) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        statuses = await statusesOf(id);
      }
      return statuses;
    };

    // 100 messages a second: a batch holds 200 rows (two seconds' worth); the lists also hold the
    // earlier tests' subscribers, so the campaign has several batches.
    const { expected, lists } = await seedAudience(engine.database.db, 150, "p");
    const campaign = await createCampaign(
      engine.ctx,
      { subject: "Issue 5", content: "<p>Hi</p>", groups: lists },
      null,
    );
    engine.worker({ SEND_RATE: 100, SEND_CONCURRENCY: concurrency });
    await waitForSent(campaign.id, 10);
    await changeCampaignState(engine.ctx, campaign.id, "pause");
    const atPause = mailOf(campaign.id);
    const paused = await waitForStandDown(campaign.id, ["sending"]);
    expect(paused).not.toContain("sending"); // the batch in hand went back to pending
    // Only what was already handed to SMTP when Pause answered went out after it.
    expect(mailOf(campaign.id) - atPause).toBeLessThanOrEqual(concurrency);
    expect(paused.filter((status) => status === "pending").length).toBeGreaterThan(100);

    await changeCampaignState(engine.ctx, campaign.id, "resume");
    await waitForStatus(engine.database.db, campaign.id, ["sent"]);
    expect(recipientsOf(engine.sink, "p").sort()).toEqual(expected);

    const second = await seedAudience(engine.database.db, 150, "q");
    const doomed = await createCampaign(
      engine.ctx,
      { subject: "Issue 6", content: "<p>Hi</p>", groups: second.lists },
      null,
    );
    await waitForSent(doomed.id, 10);
    await changeCampaignState(engine.ctx, doomed.id, "cancel");
    const atCancel = mailOf(doomed.id);
    const cancelled = await waitForStandDown(doomed.id, ["sending", "pending"]);
    expect(mailOf(doomed.id) - atCancel).toBeLessThanOrEqual(concurrency);
    // Every row is sent or cancelled: none waits, none is held.
    expect(cancelled.filter((status) => status !== "sent" && status !== "cancelled")).toEqual([]);
    expect(cancelled.filter((status) => status === "sent")).toHaveLength(mailOf(doomed.id));
  });

  it("starts a scheduled campaign when its time comes, not before", async () => {
    const { lists } = await seedAudience(engine.database.db, 10, "s");
    const at = new Date(Date.now() + 2_000).toISOString();
    const campaign = await createCampaign(
      engine.ctx,
      { subject: "Later", content: "<p>Hi</p>", groups: lists, mode: "schedule", scheduledAt: at },
      null,
    );
    expect(campaign).toMatchObject({ status: "scheduled", scheduled_at: at });
    engine.worker({ SEND_RATE: 0, SEND_CONCURRENCY: 2 });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect((await getCampaignRow(engine.database.db, "main", campaign.id)).status).toBe(
      "scheduled",
    );
    expect(recipientsOf(engine.sink, "s")).toHaveLength(0);
    const done = await waitForStatus(engine.database.db, campaign.id, ["sent"]);
    expect(Date.parse(done.started_at ?? "")).toBeGreaterThanOrEqual(Date.parse(at));
    expect(recipientsOf(engine.sink, "s")).toHaveLength(10);
    await expect(
      createCampaign(
        engine.ctx,
        {
          subject: "Past",
          content: "<p>Hi</p>",
          mode: "schedule",
          scheduledAt: "2020-01-01T00:00:00Z",
        },
        null,
      ),
    ).rejects.toThrow("The send time must be in the future");
  });
});
