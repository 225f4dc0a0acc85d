import {
  SIGNUP_MAIL_FAILED,
  SIGNUP_RATE_LIMITED,
  type SignupInput,
} from "../../shared/schemas/signup";
import { createRateLimit } from "../http/rate-limit";
import { MailNotSentError } from "../mail/send";
import { SubscriptionError } from "./errors";
import { signUp } from "./signup";
import { normaliseSubscriberEmail, type SubscriptionContext } from "./subscribers";

/** Five sign-ups per client address and tenant every ten minutes: plenty for people, little for scripts. */
export const signupRateLimit = createRateLimit({ name: "sign-up", points: 5, windowSeconds: 600 });
/**
 * Each sign-up of an address that is not yet active mails it. At most three such mails an hour go
 * to one address, whatever the client address, so nobody's inbox can be flooded through the form.
 */
export const signupRecipientLimit = createRateLimit({
  name: "sign-up-recipient",
  points: 3,
  windowSeconds: 3600,
});

export type SignupOutcome = { ok: true } | { ok: false; message: string; status: number };

/**
 * The public sign-up form's submission (SPEC §7 completeNewsletterSignup). Success looks the same
 * whether the address was new, known or already active, so the form tells nobody who subscribes;
 * a mail that could not be sent is a failure, never a false success (SPEC §8).
 */
export async function submitNewsletterSignup(
  ctx: SubscriptionContext,
  clientAddress: string,
  input: Pick<SignupInput, "email" | "name" | "lists" | "website"> & { page?: string },
  source: "form" | "embed" | "api" = "form",
): Promise<SignupOutcome> {
  if (!(await signupRateLimit.take(`${ctx.tenant.id}:${clientAddress}`))) {
    return { ok: false, message: SIGNUP_RATE_LIMITED, status: 429 };
  }
  // A filled honeypot is a bot: it gets a person's answer, and nothing is stored or sent.
  if (input.website) {
    ctx.logger.info("sign-up refused: honeypot filled");
    return { ok: true };
  }
  const recipient = `${ctx.tenant.id}:${normaliseSubscriberEmail(input.email)}`;
  if (await signupRecipientLimit.isExhausted(recipient)) {
    // The address has had its mails this hour; telling the visitor so would say it exists.
    ctx.logger.warn("sign-up not mailed: recipient limit reached");
    return { ok: true };
  }
  try {
    const result = await signUp(ctx, {
      email: input.email,
      name: input.name,
      lists: input.lists,
      consent: { source, lists: [], page: input.page ?? null, clientAddress },
    });
    if (result.outcome !== "already-subscribed") await signupRecipientLimit.take(recipient);
    ctx.logger.info({ subscriberId: result.subscriberId, outcome: result.outcome }, "sign-up");
    return { ok: true };
  } catch (error) {
    if (error instanceof SubscriptionError) {
      return { ok: false, message: error.message, status: error.status };
    }
    if (error instanceof MailNotSentError) {
      await signupRecipientLimit.take(recipient);
      return { ok: false, message: SIGNUP_MAIL_FAILED, status: 503 };
    }
    throw error;
  }
}
