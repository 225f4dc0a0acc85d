import { recordProviderCampaign } from "../newsletters/newsletters";
import { providerFor } from "../providers";
import type { ProviderEnv } from "../providers/choice";
import {
  type ProviderCampaign,
  type ProviderCampaignInput,
  ProviderError,
} from "../providers/types";
import type { SubscriptionContext } from "../subscribers/subscribers";
import { foreignSenderProblem } from "../tenants/sender-domains";

/**
 * Herald's own sender running in this process (server/campaigns/worker.ts), named by what is asked
 * of it here: publishing and sending meet in one direction — the worker calls the scheduler, which
 * makes campaigns through this function — so nothing here imports the worker.
 */
export interface SenderToWake {
  poke(): void;
}

/**
 * Sends content (a newsletter, or text given to the functions API) as a campaign: the one way, for
 * the admin page's "Send as email" and the functions API's createAndSendCampaign alike. The
 * tenant's provider creates it (Herald's own sender, or MailerLite, which then sends it); a
 * newsletter sent through MailerLite remembers MailerLite's campaign (SPEC §3/§4), and Herald's own
 * sender in this process is woken rather than left to find the campaign on its next poll.
 */
export async function sendAsCampaign(
  ctx: SubscriptionContext,
  input: ProviderCampaignInput,
  by: { userId: string | null; worker: SenderToWake | null; env?: ProviderEnv },
): Promise<{ provider: "builtin" | "mailerlite"; campaign: ProviderCampaign }> {
  const provider = providerFor(ctx, { createdBy: by.userId, env: by.env });
  // Herald's own sender checks the From in validateCampaign; MailerLite would take any.
  if (provider.name === "mailerlite" && input.senderEmail?.trim()) {
    const foreign = await foreignSenderProblem(ctx.db, ctx.tenant, input.senderEmail.trim());
    if (foreign) throw new ProviderError(foreign, "INVALID_ARGUMENT", { senderEmail: [foreign] });
  }
  const campaign = await provider.createCampaign(input);
  if (provider.name === "mailerlite" && input.newsletterId) {
    await recordProviderCampaign(
      ctx.db,
      ctx.tenant.id,
      input.newsletterId,
      campaign,
      input.mode ?? "now",
    );
  }
  if (provider.name === "builtin") by.worker?.poke();
  return { provider: provider.name, campaign };
}
