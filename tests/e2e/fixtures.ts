import { test as base } from "@playwright/test";

export { type CDPSession, expect, type Locator, type Page } from "@playwright/test";

let testsStarted = 0;

/**
 * Each test comes from a client address of its own, as real visitors and staff do: the per-address
 * limits (sign-up, sign-in, the functions API) then count one test's requests, not those of every
 * test before it in the run (with `--repeat-each` they would run out). The server trusts
 * X-Forwarded-For from loopback only, where these tests connect from. A test that opens a context
 * of its own passes it the same headers: `browser.newContext({ extraHTTPHeaders })`.
 */
export const test = base.extend({
  extraHTTPHeaders: async ({ extraHTTPHeaders }, use, testInfo) => {
    testsStarted++;
    // Playwright starts a new worker process for each --repeat-each round and after a failure:
    // the worker's index keeps their addresses apart, the counter those of one worker's tests.
    const address = `198.${18 + ((testInfo.workerIndex >> 8) & 1)}.${testInfo.workerIndex & 255}.${testsStarted & 255}`;
    await use({ ...extraHTTPHeaders, "X-Forwarded-For": address });
  },
});
