import type { Logger } from "../logger";

/**
 * Runs `work` after the request has been answered, so neither the answer nor its timing tells what
 * the work found (whether an address has an account or a subscription: issue 14). The outcome is
 * logged as `what`; a failure is logged, never shown.
 */
export function afterAnswer(
  logger: Logger,
  what: string,
  work: () => Promise<unknown>,
  details: Record<string, unknown> = {},
): void {
  setImmediate(() => {
    work().then(
      (outcome) => logger.info({ ...details, outcome }, what),
      (error) => logger.error({ ...details, err: error }, `${what}: failed`),
    );
  });
}
