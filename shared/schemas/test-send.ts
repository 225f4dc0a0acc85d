import { z } from "../zod";
import { invalidEmailMessage, isValidEmail } from "./email";
import { storableText } from "./text";

/** How many addresses one test send may go to (issue 35: a team reviews with a few colleagues). */
export const MAX_TEST_RECIPIENTS = 5;

export const TEST_SEND_TEXT = {
  none: "Enter at least one address to send the test to.",
  tooMany: `A test goes to at most ${MAX_TEST_RECIPIENTS} addresses.`,
} as const;

/**
 * The "Send a test to" field: addresses separated by commas, semicolons, spaces or new lines;
 * trimmed, each checked with SPEC §5's rule and message, the same address (in any case) once,
 * 1 to 5 of them.
 */
export const testRecipientsSchema = storableText({ error: TEST_SEND_TEXT.none })
  .max(2_000, TEST_SEND_TEXT.tooMany)
  .transform((value, issues) => {
    const seen = new Set<string>();
    const addresses: string[] = [];
    for (const address of value.split(/[\s,;]+/).filter(Boolean)) {
      if (!isValidEmail(address)) {
        issues.addIssue({ code: "custom", message: invalidEmailMessage(address) });
        return z.NEVER;
      }
      const key = address.toLowerCase();
      if (seen.has(key)) continue;
      seen.add(key);
      addresses.push(address);
    }
    if (addresses.length === 0) {
      issues.addIssue({ code: "custom", message: TEST_SEND_TEXT.none });
      return z.NEVER;
    }
    if (addresses.length > MAX_TEST_RECIPIENTS) {
      issues.addIssue({ code: "custom", message: TEST_SEND_TEXT.tooMany });
      return z.NEVER;
    }
    return addresses;
  });
