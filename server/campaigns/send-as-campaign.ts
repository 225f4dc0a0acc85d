import { recordProviderCampaign } from "../newsletters/newsletters";
import { providerFor } from "../providers";
import type { ProviderEnv } from "../providers/choice";
import {
  type ProviderCampaign,
  type ProviderCampaignInput,
  ProviderError,
} from "../providers/types";
import type { PokeableWorker } from "../scope";
import type { SubscriptionContext } from "../subscribers/subscribers";
import { foreignSenderProblem } from "../tenants/sender-domains";

export const AB_ON_MAILERLITE =
  "A/B subject lines are not available while this site sends through MailerLite: send with one subject, or set up an A/B split campaign in MailerLite.";

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
  by: { userId: string | null; worker: PokeableWorker | null; env?: ProviderEnv },
): Promise<{ provider: "builtin" | "mailerlite"; campaign: ProviderCampaign }> {
  const provider = providerFor(ctx, { createdBy: by.userId, env: by.env });
  // MailerLite's A/B campaigns are its own to run: Herald does not map them (decision 051).
  if (provider.name === "mailerlite" && input.abTest) {
    throw new ProviderError(AB_ON_MAILERLITE, "INVALID_ARGUMENT", { abTest: [AB_ON_MAILERLITE] });
  }
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
