import { availableParallelism, loadavg } from "node:os";

/**
 * How much slower than a quiet machine the tests may find this one: the one place that decides
 * it. Every start-up wait, polling deadline and test/hook timeout goes through `scaled`, so a
 * suite run beside a build, a browser or `yes > /dev/null` waits longer for the same events
 * instead of failing, and a quiet machine keeps its short limits (a hung test still fails fast).
 *
 * TEST_TIME_SCALE=n sets the factor (1–20). Unset, it is measured once, when the test runner
 * loads its config: 1 + the one-minute load average per core, at most 8 — a machine whose cores
 * each have one other busy process gives a test about half its time, so twice as long. The
 * runner writes what it measured back into TEST_TIME_SCALE, so its workers and the servers they
 * start all use the same factor.
 */
export const TIME_SCALE = timeScale();
process.env.TEST_TIME_SCALE = String(TIME_SCALE);

/** `ms` of a quiet machine, on this one. */
export function scaled(ms: number): number {
  return Math.round(ms * TIME_SCALE);
}

function timeScale(): number {
  const given = process.env.TEST_TIME_SCALE?.trim();
  if (given) {
    const factor = Number(given);
    if (!Number.isFinite(factor) || factor < 1 || factor > 20) {
      throw new Error(`TEST_TIME_SCALE: "${given}" is not a number from 1 to 20`);
    }
    return factor;
  }
  const perCore = (loadavg()[0] ?? 0) / availableParallelism();
  return Math.round(Math.min(8, 1 + perCore) * 10) / 10;
}
