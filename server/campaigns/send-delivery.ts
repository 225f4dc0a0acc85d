import { setTimeout as sleep } from "node:timers/promises";
import type { Db } from "../db";
import type { CampaignRow, DeliveryRow } from "../db/schema";
import { crossTenant, tenantDb } from "../db/tenant-guard";
import type { Env } from "../env";
import { publicOrigin } from "../http/origin";
import type { Logger } from "../logger";
import { type DkimSigningKey, dkimSigningKey } from "../mail/dkim";
import { sendMail } from "../mail/send";
import { DeliveryError, type Transport } from "../mail/transport";
import { MiB, memoryCache } from "../memory-cache";
import { countFeedback, countMail } from "../metrics";
import type { SubscriptionContext } from "../subscribers/subscribers";
import { getTenant } from "../tenants/store";
import { subjectFor } from "./ab-test";
import { recordFeedbackIn, withBounceAddress } from "./bounces";
import { messageSource } from "./campaign-row";
import { markDeliveryFailed, markDeliverySent, STALE_CLAIM_MS } from "./deliveries";
import { type PreparedCampaignMessage, personalise, prepareCampaignMessage } from "./message";

/**
 * Waits before retry n of a transient failure (4xx, connection) when SEND_RETRY_DELAYS is not
 * given: 2 s, 10 s, 1 min, 5 min, 30 min (six tries in all).
 */
export const DELIVERY_BACKOFF_MS = [2_000, 10_000, 60_000, 5 * 60_000, 30 * 60_000];
/** How long a rendered campaign message is reused before it is rendered again. */
const PREPARED_FOR_MS = 60_000;

export interface SenderOptions {
  db: Db;
  transport: Transport;
  logger: Logger;
  env: Pick<Env, "APP_URL" | "SEND_RATE" | "SEND_CONCURRENCY"> &
    Partial<Pick<Env, "BOUNCE_DOMAIN" | "SEND_RETRY_DELAYS">>;
  sessionSecret: string;
}

type PreparedForSending = PreparedCampaignMessage & {
  ctx: SubscriptionContext;
  dkim?: DkimSigningKey;
};

/**
 * One claimed delivery sent and its outcome recorded, for the sending worker (worker.ts): the
 * campaign's message is rendered once and filled in per recipient; the row is marked sent the
 * moment the SMTP server has the message, or retried with backoff, or failed (a hard bounce
 * suppresses the address; the envelope sender is a VERP address for later bounces, bounces.ts).
 */
export class DeliverySender {
  /**
   * Each campaign's message rendered once, reused for PREPARED_FOR_MS: welcome steps run for months
   * and may be edited, so theirs is rendered again after that. Counted at an estimated 256 KB a
   * campaign (its HTML and text, as a promise its size is not known when it is kept).
   */
  private readonly prepared = memoryCache<string, Promise<PreparedForSending>>({
    maxBytes: 64 * MiB,
    ttlMs: PREPARED_FOR_MS,
    bytesOf: () => 256 * 1024,
  });
  private readonly bounceDomain: string;
  private readonly retryDelays: readonly number[];

  constructor(
    private readonly options: SenderOptions,
    /** the worker whose claims these rows are */
    private readonly workerId: string,
    /** false once the worker is stopping: a result that cannot be recorded is given up on then */
    private readonly running: () => boolean,
  ) {
    this.bounceDomain = options.env.BOUNCE_DOMAIN ?? new URL(options.env.APP_URL).hostname;
    this.retryDelays = options.env.SEND_RETRY_DELAYS ?? DELIVERY_BACKOFF_MS;
  }

  /** A finished campaign's message is not kept (nor its A/B subjects' messages). */
  forget(campaignId: string): void {
    for (const variant of [null, 0, 1, 2, 3, 4])
      this.prepared.delete(preparedKey(campaignId, variant));
  }

  /** The campaign's message, or with an A/B test's subject (`variant`) in place of its own. */
  private preparedFor(campaignId: string, variant: number | null) {
    const key = preparedKey(campaignId, variant);
    let entry = this.prepared.get(key);
    if (!entry) {
      entry = (async () => {
        const { db, logger, transport, env, sessionSecret } = this.options;
        // A claimed delivery names its campaign, not its tenant: the campaign says whose it is.
        const campaign: CampaignRow = await crossTenant(db)
          .selectFrom("campaigns")
          .selectAll()
          .where("id", "=", campaignId)
          .executeTakeFirstOrThrow();
        const tenant = (await getTenant(db, campaign.tenant_id)).config;
        const ctx: SubscriptionContext = {
          // What the message reads (lists, links) is this campaign's tenant's.
          db: tenantDb(db, tenant.id),
          logger,
          transport,
          tenant,
          origin: publicOrigin(tenant, env as Env),
          sessionSecret,
        };
        // The tenant's DKIM key, read once per campaign like the rendered message.
        const dkim = await dkimSigningKey(db, tenant.id);
        const source = { ...messageSource(campaign), subject: subjectFor(campaign, variant) };
        return { ...(await prepareCampaignMessage(ctx, source)), ctx, dkim };
      })();
      entry.catch(() => this.prepared.delete(key));
      this.prepared.set(key, entry);
    }
    return entry;
  }

  async deliver(row: DeliveryRow): Promise<void> {
    const { db, transport, logger } = this.options;
    const attempts = Number(row.attempts) + 1;
    // Preparing reads the database: if that fails, nothing was sent and the row goes back to
    // pending at the start of the next round, without counting as a try.
    const prepared = await this.preparedFor(row.campaign_id, row.ab_variant);
    const message = {
      ...withBounceAddress(
        personalise(prepared.ctx, prepared, {
          deliveryId: row.id,
          subscriberId: row.subscriber_id,
          email: row.email,
        }),
        { secret: this.options.sessionSecret, bounceDomain: this.bounceDomain, deliveryId: row.id },
      ),
      dkim: prepared.dkim,
    };
    let messageId: string;
    try {
      ({ messageId } =
        transport.kind === "outbox"
          ? // The outbox keeps every message for staff to read (DESIGN.md §5).
            await sendMail(
              { db, transport, logger },
              { ...message, tenantId: prepared.ctx.tenant.id, kind: "campaign" },
              { retryLater: false },
            )
          : await transport.deliver(message));
    } catch (error) {
      await this.recordFailure(row, attempts, error);
      return;
    }
    await this.recordSent(row, attempts, messageId);
  }

  /**
   * The server has the message: it must be marked sent, or it would go out again. A database that
   * is restarting or out of reach is waited for (the heartbeat keeps the claim alive meanwhile);
   * only a worker that is stopping gives up, after STALE_CLAIM_MS.
   */
  private async recordSent(row: DeliveryRow, attempts: number, messageId: string): Promise<void> {
    let giveUpAt = Number.POSITIVE_INFINITY;
    for (let wait = 250; ; wait = Math.min(wait * 2, 5_000)) {
      try {
        await markDeliverySent(this.options.db, this.workerId, row, {
          attempts,
          messageId,
          at: new Date().toISOString(),
        });
        countMail("sent", row.tenant_id, "campaign");
        return;
      } catch (error) {
        if (!this.running()) giveUpAt = Math.min(giveUpAt, Date.now() + STALE_CLAIM_MS);
        if (Date.now() > giveUpAt) throw error;
        this.options.logger.warn(
          { err: error, deliveryId: row.id },
          "message sent but not yet recorded; trying again",
        );
        await sleep(wait);
      }
    }
  }

  /** A 4xx or a cut connection: pending again after the next wait, or failed after the last try. */
  private async recordFailure(row: DeliveryRow, attempts: number, error: unknown): Promise<void> {
    const { db, logger } = this.options;
    const transient = error instanceof DeliveryError ? error.transient : !isPermanent(error);
    const hardBounce = error instanceof DeliveryError && error.hardBounce;
    const reason = (error instanceof Error ? error.message : String(error)).slice(0, 1000);
    const retry = transient && attempts < this.retryDelays.length + 1;
    const outcome = await db.transaction().execute(async (trx) => {
      const ours = await markDeliveryFailed(trx, this.workerId, row, {
        retry,
        attempts,
        error: reason,
        nextAttemptAt: new Date(
          Date.now() + (retry ? (this.retryDelays[attempts - 1] ?? 0) : 0),
        ).toISOString(),
      });
      // A 5xx for the recipient: a hard bounce, counted in the report; the address is suppressed.
      const bounced =
        hardBounce && ours
          ? (await recordFeedbackIn(trx, {
              deliveryId: row.id,
              kind: "bounce",
              detail: reason,
            })) === "recorded"
          : false;
      return { ours, bounced };
    });
    // Counted once the transaction holds (/metrics): a rolled-back failure counts nothing.
    if (outcome.ours) countMail(retry ? "retried" : "failed", row.tenant_id, "campaign");
    if (outcome.bounced) countFeedback("bounced", row.tenant_id);
    logger.warn(
      { deliveryId: row.id, attempts, transient, hardBounce, reason },
      "campaign message not sent",
    );
  }
}

const preparedKey = (campaignId: string, variant: number | null) =>
  variant === null ? campaignId : `${campaignId}#${variant}`;

function isPermanent(error: unknown): boolean {
  const code = (error as { responseCode?: number }).responseCode;
  return typeof code === "number" && code >= 500;
}
