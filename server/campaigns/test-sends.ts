import { MAX_TEST_RECIPIENTS } from "../../shared/schemas/test-send";
import { createRateLimit } from "../http/rate-limit";
import { replyToHeader } from "../mail/headers";
import { sendMail, TEST_SEND_KIND } from "../mail/send";
import type { SubscriptionContext } from "../subscribers/subscribers";
import { limitRefusal } from "../tenants/usage";
import { type CampaignInput, validateCampaign } from "./compose";
import { previewCampaign } from "./review";

/*
 * Test sends (issue 35): the real campaign email to up to five staff-chosen addresses. A test is
 * no delivery: it is logged in mail_log as "campaign-test" and carries no tracking pixel or
 * tracked link, so no report, delivery count or campaign statistic ever sees it; /metrics counts
 * it in a stream of its own, `test` (decision 044).
 */

/** Addresses a staff member may send tests to per window: five full tests. */
export const TEST_SEND_ALLOWANCE = { addresses: 5 * MAX_TEST_RECIPIENTS, windowMinutes: 10 };

const testSendLimit = createRateLimit({
  name: "campaign-test",
  points: TEST_SEND_ALLOWANCE.addresses,
  windowSeconds: TEST_SEND_ALLOWANCE.windowMinutes * 60,
});

/** The header that marks a test in the mail itself, beside the subject's "[Test]". */
export const TEST_SEND_HEADER = "X-Herald-Test";

export class TestSendLimitError extends Error {
  constructor(
    message = `You have sent ${TEST_SEND_ALLOWANCE.addresses} test emails in the last ${TEST_SEND_ALLOWANCE.windowMinutes} minutes. Please wait a few minutes and try again.`,
  ) {
    super(message);
  }
}

/**
 * Counts one test email per address against the staff member's allowance; when it would go over,
 * gives back what this request took and refuses, so a refused test sends nothing.
 */
async function takeAllowance(staffId: string, addresses: readonly string[]): Promise<void> {
  const key = `staff:${staffId}`;
  let taken = 0;
  for (const _address of addresses) {
    if (!(await testSendLimit.take(key))) {
      for (let index = 0; index < taken; index++) await testSendLimit.refund(key);
      throw new TestSendLimitError();
    }
    taken++;
  }
}

/** Sends the campaign as it would go out, marked as a test, to each address (1–5, already valid). */
export async function sendCampaignTests(
  ctx: SubscriptionContext,
  input: CampaignInput,
  test: { staffId: string; to: readonly string[] },
): Promise<void> {
  if (test.to.length === 0 || test.to.length > MAX_TEST_RECIPIENTS) {
    throw new RangeError(`a test goes to 1 to ${MAX_TEST_RECIPIENTS} addresses`);
  }
  // An invalid campaign is refused before any of the allowance is spent.
  const [valid, preview] = await Promise.all([
    validateCampaign(ctx, input),
    previewCampaign(ctx, input),
  ]);
  // The tenant's test emails a day (decision 057; issue 44, finding 10), then the staff member's.
  const refusal = await limitRefusal(ctx.db, ctx.tenant.id, "testSendsPerDay", test.to.length);
  if (refusal) throw new TestSendLimitError(refusal);
  await takeAllowance(test.staffId, test.to);
  for (const to of test.to) {
    await sendMail(
      { db: ctx.db, transport: ctx.transport, logger: ctx.logger },
      {
        from: { name: valid.fromName, email: valid.fromEmail },
        to,
        subject: `[Test] ${preview.subject}`,
        html: preview.html,
        text: preview.text,
        headers: {
          ...replyToHeader(valid.replyTo || ctx.tenant.email.replyTo),
          [TEST_SEND_HEADER]: "1",
        },
        tenantId: ctx.tenant.id,
        kind: TEST_SEND_KIND,
      },
      { retryLater: false },
    );
  }
  ctx.logger.info({ recipients: test.to.length, staffId: test.staffId }, "campaign test sent");
}
