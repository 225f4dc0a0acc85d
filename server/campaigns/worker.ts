import { hostname } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { sql } from "kysely";
import type { CampaignStatus, DeliveryRow } from "../db/schema";
import { crossTenant } from "../db/tenant-guard";
import { MiB, memoryCache, stringBytes } from "../memory-cache";
import { runSchedule } from "../newsletters/scheduler";
import { decideDueAbTests } from "./ab-decision";
import { CAMPAIGN_STATE_MS, campaignStatusOf } from "./campaign-row";
import { finishCampaign, startCampaign } from "./campaigns";
import {
  cancelClaims,
  enrolSequenceSteps,
  releaseClaims,
  releaseOwnDeliveryClaims,
  releaseStaleDeliveryClaims,
  renewDeliveryClaims,
  STALE_CLAIM_MS,
} from "./deliveries";
import { claimFairBatch } from "./fair-claims";
import { DeliverySender, type SenderOptions } from "./send-delivery";

/** A worker renews its claims this often; claims older than STALE_CLAIM_MS belong to a dead worker. */
const HEARTBEAT_MS = 5_000;
const IDLE_POLL_MS = 1_000;
/** After a failed round (database unreachable…) the next waits 1 s, 2 s, 4 s… up to this. */
const MAX_ERROR_BACKOFF_MS = 8_000;

export type WorkerOptions = SenderOptions;

/**
 * The sending engine (DESIGN.md §6). Each round publishes due newsletters (the scheduler: the
 * worker calls it, never the other way), starts due campaigns, claims pending deliveries in
 * batches, tenants taking turns (fair-claims.ts; SKIP LOCKED on PostgreSQL, so several workers
 * never take the same row) and has each
 * sent by a DeliverySender (send-delivery.ts), which marks it sent with its Message-ID, retried
 * with backoff, or failed. A row is marked the moment its message is accepted, so a crash repeats
 * at most the messages in flight; claims of a worker that stopped renewing them go back to pending.
 */
export class CampaignWorker {
  readonly id = `${hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`;
  private running = false;
  private loop: Promise<void> | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private wake: (() => void) | null = null;
  private nextSlot = 0;
  /** Which tenant is served first in the next claim (fair-claims.ts): each claim, the next. */
  private turn = 0;
  /** Each campaign's status, read again after CAMPAIGN_STATE_MS. */
  private readonly campaignStates = memoryCache<string, Promise<CampaignStatus>>({
    maxBytes: MiB,
    ttlMs: CAMPAIGN_STATE_MS,
    bytesOf: (_, campaignId) => stringBytes(campaignId) + 256,
  });
  /** Rows this worker holds right now: only these are renewed, so a lost row goes stale. */
  private readonly inHand = new Set<number>();

  private readonly sender: DeliverySender;

  constructor(private readonly options: WorkerOptions) {
    this.sender = new DeliverySender(options, this.id, () => this.running);
  }

  private get batchSize(): number {
    const rate = this.options.env.SEND_RATE;
    // About five seconds of work per claim at the configured rate, so claims stay fresh.
    return rate > 0 ? Math.max(1, Math.min(200, Math.ceil(rate * 5))) : 200;
  }

  start(): this {
    if (this.running) return this;
    this.running = true;
    this.heartbeat = setInterval(() => {
      this.renewClaims().catch((error: unknown) =>
        this.options.logger.error({ err: error }, "worker heartbeat failed"),
      );
    }, HEARTBEAT_MS);
    this.heartbeat.unref();
    this.loop = this.run();
    return this;
  }

  /**
   * Stops claiming and lets the messages in flight finish, for `drainMs` at most; then every claim
   * still in this worker's name goes back to pending at once, so the next sender takes the rows
   * now rather than when they go stale. A message still in flight when the wait ends may go out
   * twice (it is the only kind that may). The graceful stop of server.js and `herald worker`.
   */
  async stop(drainMs = Number.POSITIVE_INFINITY): Promise<void> {
    this.running = false;
    this.wake?.();
    let timer: NodeJS.Timeout | undefined;
    const drained = await Promise.race([
      this.loop?.then(() => true),
      Number.isFinite(drainMs)
        ? new Promise<false>((resolve) => {
            timer = setTimeout(() => resolve(false), drainMs);
          })
        : undefined,
    ]);
    clearTimeout(timer);
    if (this.heartbeat) clearInterval(this.heartbeat);
    if (drained === false) {
      this.options.logger.warn(
        { inFlight: this.inHand.size, drainMs },
        "campaign worker stopped with messages still in flight",
      );
    }
    await releaseOwnDeliveryClaims(this.options.db, this.id).catch((error: unknown) =>
      // The database gone: the claims go stale and another sender takes them then.
      this.options.logger.error({ err: error }, "claims not handed back at stop"),
    );
  }

  /** Start looking now (a campaign was just started) instead of at the next poll. */
  poke(): void {
    this.wake?.();
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (this.running) {
      let worked = false;
      try {
        worked = await this.tick();
        failures = 0;
      } catch (error) {
        // The database restarting or out of reach: wait longer each time, and carry on.
        failures++;
        this.options.logger.error({ err: error, failures }, "campaign worker tick failed");
      }
      if (!worked && this.running) {
        const wait = failures
          ? Math.min(MAX_ERROR_BACKOFF_MS, IDLE_POLL_MS * 2 ** (failures - 1))
          : IDLE_POLL_MS;
        await new Promise<void>((resolve) => {
          this.wake = resolve;
          setTimeout(resolve, wait).unref();
        });
        this.wake = null;
      }
    }
  }

  /** One round: publish due newsletters, start due campaigns, decide due A/B tests, free stale claims, send one batch, close finished campaigns. */
  async tick(): Promise<boolean> {
    const { db } = this.options;
    // Scheduled newsletters first: a "publish and send" makes the campaign this round then starts.
    await runSchedule(this.options);
    const now = new Date().toISOString();
    // The sender serves every tenant: it finds due campaigns across them, then acts within each.
    const due = await crossTenant(db)
      .selectFrom("campaigns")
      .select(["tenant_id", "id"])
      .where("status", "=", "scheduled")
      .where("scheduled_at", "<=", now)
      .execute();
    for (const campaign of due) await startCampaign(db, campaign.tenant_id, campaign.id);
    await enrolSequenceSteps(db, new Date());
    // A/B tests whose wait is over: the winner chosen once, the remainder queued with it.
    await decideDueAbTests(db, new Date());
    await this.releaseStaleClaims();
    const batch = await this.claim();
    if (batch.length > 0) await this.send(batch);
    await this.finishCampaigns();
    return batch.length > 0;
  }

  private async claim(): Promise<DeliveryRow[]> {
    const now = new Date().toISOString();
    return claimFairBatch(this.options.db, this.id, this.batchSize, now, this.turn++);
  }

  private async renewClaims(): Promise<void> {
    await renewDeliveryClaims(this.options.db, this.id, [...this.inHand], new Date().toISOString());
  }

  /**
   * Stale claims go back to pending, and so do this worker's own: between rounds it holds no row,
   * so a claim in its name is one a failed round left behind (a claim whose answer was lost with
   * the connection, a failure that could not be recorded) and need not wait to go stale.
   */
  private async releaseStaleClaims(): Promise<void> {
    const stale = new Date(Date.now() - STALE_CLAIM_MS).toISOString();
    await releaseStaleDeliveryClaims(this.options.db, this.id, stale);
  }

  private async send(batch: DeliveryRow[]): Promise<void> {
    for (const row of batch) this.inHand.add(row.id);
    const queue = [...batch];
    const concurrency = Math.max(1, this.options.env.SEND_CONCURRENCY);
    const runners = Array.from({ length: Math.min(concurrency, queue.length) }, async () => {
      for (let row = queue.shift(); row; row = queue.shift()) {
        // Stopping: the rest of the batch is not sent; stop() hands it back in one statement.
        if (!this.running) {
          this.inHand.delete(row.id);
          continue;
        }
        try {
          // Pause and Cancel take effect between messages, not only between batches: asked
          // before waiting for a sending slot (the rest of a batch stands down at once) and after.
          let status = await this.campaignStatus(row);
          if (status === "sending") {
            await this.pace();
            // A stop that came while this runner waited for its slot: this row is not sent.
            if (!this.running) continue;
            status = await this.campaignStatus(row);
          }
          if (status === "sending") await this.sender.deliver(row);
          else await this.standDown(row, status, queue);
        } catch (error) {
          // Not even the failure could be recorded (database gone?): the row goes stale and
          // another round reclaims it; the other rows of the batch carry on.
          this.options.logger.error({ err: error, deliveryId: row.id }, "delivery not recorded");
        } finally {
          this.inHand.delete(row.id);
        }
      }
    });
    await Promise.all(runners);
  }

  /** SEND_RATE messages a second at most (0 = no limit), shared by this worker's runners. */
  private async pace(): Promise<void> {
    const rate = this.options.env.SEND_RATE;
    if (rate <= 0) return;
    const now = Date.now();
    const slot = Math.max(now, this.nextSlot);
    this.nextSlot = slot + 1000 / rate;
    if (slot > now) await sleep(slot - now);
  }

  /**
   * The campaign's status, read at most every CAMPAIGN_STATE_MS whatever the sending rate: one
   * read serves every runner, so checking before each message costs next to nothing.
   */
  private campaignStatus(row: DeliveryRow): Promise<CampaignStatus> {
    const known = this.campaignStates.get(row.campaign_id);
    if (known !== undefined) return known;
    const status = campaignStatusOf(this.options.db, row.tenant_id, row.campaign_id);
    this.campaignStates.set(row.campaign_id, status);
    status.catch(() => this.campaignStates.delete(row.campaign_id));
    return status;
  }

  /**
   * A paused campaign's rows go back to pending for Resume; a cancelled one's are never sent. The
   * rest of the batch for that campaign stands down with `row`, in one statement: row by row, a
   * large batch on a slow database took seconds to let go after Pause answered.
   */
  private async standDown(
    row: DeliveryRow,
    status: CampaignStatus,
    queue: DeliveryRow[],
  ): Promise<void> {
    const rows = [row];
    for (let index = queue.length - 1; index >= 0; index--) {
      const queued = queue[index];
      if (queued?.campaign_id !== row.campaign_id) continue;
      rows.push(queued);
      queue.splice(index, 1);
    }
    try {
      if (status === "cancelled") await cancelClaims(this.options.db, this.id, rows);
      else await releaseClaims(this.options.db, this.id, rows);
    } finally {
      for (const held of rows) this.inHand.delete(held.id);
    }
  }

  /** A sending campaign with nothing left to send is sent (or failed, when nothing got through). */
  private async finishCampaigns(): Promise<void> {
    const { db } = this.options;
    // Every tenant's campaigns: the sender serves them all.
    const open = await crossTenant(db)
      .selectFrom("campaigns")
      .select(["tenant_id", "id", "newsletter_id", "unopened_of"])
      .where("status", "=", "sending")
      // A welcome sequence's step runs until staff stop it.
      .where("sequence_list_id", "is", null)
      // An A/B test's remainder is queued when its winner is chosen: not finished before.
      .where((eb) => eb.or([eb("ab_test", "is", null), eb("ab_winner", "is not", null)]))
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom("deliveries")
              .select(sql`1`.as("one"))
              // A campaign's id is its tenant's alone: its deliveries need no tenant match.
              .whereRef("deliveries.campaign_id", "=", "campaigns.id")
              .where("deliveries.status", "in", ["pending", "sending"]),
          ),
        ),
      )
      .execute();
    for (const campaign of open) {
      await finishCampaign(db, campaign);
      this.campaignStates.delete(campaign.id);
      this.sender.forget(campaign.id);
    }
  }
}
