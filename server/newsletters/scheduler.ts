import { CampaignError } from "../campaigns/errors";
import { sendAsCampaign } from "../campaigns/send-as-campaign";
import type { Db } from "../db";
import { crossTenant, tenantDb } from "../db/tenant-guard";
import { type Env, getEnv } from "../env";
import { publicOrigin } from "../http/origin";
import type { Logger } from "../logger";
import type { Transport } from "../mail/transport";
import { providerNameFor } from "../providers";
import { ProviderError } from "../providers/types";
import type { SubscriptionContext } from "../subscribers/subscribers";
import { getTenant } from "../tenants/store";
import { getNewsletter } from "./listing";
import { claimScheduledSend, failScheduledSend, publishScheduledNewsletter } from "./newsletters";

/*
 * Scheduled publishing (issue 15, part 5). The sending worker calls this on each round: due drafts
 * are published (each claimed by one statement, so of several workers exactly one publishes it),
 * then those scheduled "publish and send" get their campaign. The send is claimed in the same
 * transaction that creates the campaign, so a crash between the two steps only delays the send to
 * the next round, and the campaign is created once.
 *
 * One direction: the worker calls this; this only writes campaigns (due now), which the worker's
 * same round starts and sends. Nothing here knows the worker.
 */

interface SchedulerDeps {
  db: Db;
  logger: Logger;
  transport: Transport;
  sessionSecret: string;
  env: Pick<Env, "APP_URL">;
}

/** How many newsletters one round handles; the rest wait for the next round (a second later). */
const ROUND = 20;

export async function runSchedule(deps: SchedulerDeps, now = new Date()): Promise<number> {
  const at = now.toISOString();
  // Cross-tenant on purpose: the scheduler serves every tenant, then acts within each.
  const due = await crossTenant(deps.db)
    .selectFrom("newsletters")
    .select(["tenant_id", "id"])
    .where("scheduled_at", "<=", at)
    .where("status", "=", "draft")
    .orderBy("scheduled_at")
    .limit(ROUND)
    .execute();
  let done = 0;
  for (const row of due) {
    if (await publishScheduledNewsletter(deps.db, row.tenant_id, row.id, at)) {
      deps.logger.info(
        { tenantId: row.tenant_id, newsletterId: row.id },
        "scheduled newsletter published",
      );
      done++;
    }
  }
  const sends = await crossTenant(deps.db)
    .selectFrom("newsletters")
    .select(["tenant_id", "id"])
    // (a published newsletter has no scheduled_at: publishing clears it)
    .where("scheduled_send", "=", 1)
    .where("status", "=", "published")
    .limit(ROUND)
    .execute();
  for (const row of sends) {
    if (await sendScheduled(deps, row.tenant_id, row.id)) done++;
  }
  return done;
}

async function sendScheduled(deps: SchedulerDeps, tenantId: string, id: string): Promise<boolean> {
  const tenant = (await getTenant(deps.db, tenantId)).config;
  // From here on the scheduler acts for this newsletter's tenant only.
  const db = tenantDb(deps.db, tenantId);
  try {
    return await db.transaction().execute(async (trx) => {
      if (!(await claimScheduledSend(trx, tenantId, id))) return false;
      const newsletter = await getNewsletter({ db: trx, tenantId }, id);
      if (!newsletter) return false;
      const ctx: SubscriptionContext = {
        db: trx,
        logger: deps.logger,
        transport: deps.transport,
        tenant,
        origin: publicOrigin(tenant, deps.env as Env),
        sessionSecret: deps.sessionSecret,
      };
      // The defaults of "Send as email": the title as subject, the tenant's sender and default list.
      // Herald's own sender gets a campaign due now, which this transaction only inserts (the
      // worker starts it next); MailerLite is told to send at once.
      const builtin = providerNameFor(tenant, getEnv()) === "builtin";
      const sent = await sendAsCampaign(
        ctx,
        {
          newsletterId: id,
          subject: newsletter.title,
          content: newsletter.content,
          ...(builtin
            ? { mode: "schedule", scheduledAt: new Date().toISOString() }
            : { mode: "now" }),
        },
        { userId: newsletter.authorId, worker: null },
      );
      deps.logger.info(
        { tenantId, newsletterId: id, campaignId: sent.campaign.id },
        "scheduled newsletter sent as a campaign",
      );
      return true;
    });
  } catch (error) {
    // A send that can never be made is recorded as failed; anything else is tried next round.
    if (!(error instanceof CampaignError || error instanceof ProviderError)) throw error;
    deps.logger.error({ err: error, tenantId, newsletterId: id }, "scheduled send failed");
    await failScheduledSend(db, tenantId, id);
    return false;
  }
}
