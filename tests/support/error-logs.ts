/**
 * Errors nobody expected fail the test that logged them (issue 34, target 6).
 *
 * A setup file of the unit and integration projects (vitest.config.ts): it wraps `console.error`
 * in the test process, and reads the error lines of every server a test starts
 * (tests/support/server.ts). After each test, an error line no `expectConsoleError` /
 * `expectServerError` of that test accounts for fails it, and so does an expectation nothing
 * matched (an allow-list entry that no longer provokes anything would hide the next real error).
 *
 * A test that provokes an error on purpose says so where it provokes it:
 *
 *   expectServerError(/unhandled error/);
 *   await fetch(`${server.url}/broken`);
 *
 * State lives on globalThis: the setup file and the test file may load this module apart.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, afterEach, beforeEach } from "vitest";
import { scaled } from "./timing";

interface Expectation {
  source: "console" | "server";
  pattern: RegExp;
  matched: number;
}

interface ErrorLogState {
  logged: { source: "console" | "server"; text: string }[];
  expected: Expectation[];
  installed: boolean;
}

const KEY = Symbol.for("herald.tests.error-logs");

function state(): ErrorLogState {
  const global = globalThis as { [KEY]?: ErrorLogState };
  global[KEY] ??= { logged: [], expected: [], installed: false };
  return global[KEY];
}

/** The running test logs, once or more, a `console.error` matching `pattern`. */
export function expectConsoleError(pattern: RegExp): void {
  state().expected.push({ source: "console", pattern, matched: 0 });
}

/** A server the running test started logs, once or more, an error line matching `pattern`. */
export function expectServerError(pattern: RegExp): void {
  state().expected.push({ source: "server", pattern, matched: 0 });
}

/** Called by tests/support/server.ts for each error-level line a started server writes. */
export function recordServerError(line: string): void {
  state().logged.push({ source: "server", text: line });
}

/**
 * Which of a server's output lines are errors: pino's JSON lines at level 50 (error) or 60
 * (fatal), and the first line of an error printed bare ("TypeError: …", what `console.error(error)`
 * writes when there is no logger to hand). Other output — warnings, the start-up line, JSON at
 * lower levels, a stack's "at" lines — is not. The security probes read a server's log the same way.
 */
export function serverErrorLines(output: string): string[] {
  const errors: string[] = [];
  for (const line of output.split("\n")) {
    if (/^\w*Error\b/.test(line)) {
      errors.push(line);
      continue;
    }
    if (!line.startsWith("{")) continue;
    try {
      const entry = JSON.parse(line) as { level?: unknown };
      if (typeof entry.level === "number" && entry.level >= 50) errors.push(line);
    } catch {
      // not a log line: a JSON document a command printed, say
    }
  }
  return errors;
}

/** The logged errors no expectation accounts for, and the expectations nothing matched. */
export function unexplained(
  logged: ErrorLogState["logged"],
  expected: Expectation[],
): { unexpected: string[]; unmet: Expectation[] } {
  const unexpected: string[] = [];
  for (const entry of logged) {
    const expectation = expected.find(
      (candidate) => candidate.source === entry.source && candidate.pattern.test(entry.text),
    );
    if (expectation) {
      expectation.matched++;
      continue;
    }
    const from = entry.source === "console" ? "console.error" : "server";
    unexpected.push(`${from}: ${entry.text}`);
  }
  return { unexpected, unmet: expected.filter((expectation) => expectation.matched === 0) };
}

function describeArguments(args: unknown[]): string {
  return args
    .map((arg) => {
      if (arg instanceof Error) return arg.stack ?? `${arg.name}: ${arg.message}`;
      if (typeof arg === "string") return arg;
      try {
        return JSON.stringify(arg);
      } catch {
        return String(arg);
      }
    })
    .join(" ");
}

/**
 * A server's line reaches this process through a pipe, possibly after the answer that caused it:
 * while a declared server error has not come, wait for it (polled, on this machine's deadline).
 */
async function serverLinesExpected(): Promise<void> {
  const deadline = Date.now() + scaled(2_000);
  const waiting = () => {
    const { logged, expected } = state();
    return expected.some(
      (e) =>
        e.source === "server" &&
        !logged.some((l) => l.source === "server" && e.pattern.test(l.text)),
    );
  };
  while (waiting() && Date.now() < deadline) await sleep(20);
}

/** Empties the record and throws if it held anything unexplained. */
function settle(when: string): void {
  const current = state();
  const { unexpected, unmet } = unexplained(current.logged, current.expected);
  current.logged = [];
  current.expected = [];
  const problems = [
    ...unexpected.map((text) => `unexpected ${text}`),
    ...unmet.map((e) => `expected a ${e.source} error matching ${e.pattern}, none was logged`),
  ];
  if (problems.length > 0) {
    throw new Error(
      `${when}:\n${problems.join("\n\n")}\n\n` +
        "Fix the cause, or declare an error the test provokes on purpose with " +
        "expectConsoleError()/expectServerError() (tests/support/error-logs.ts).",
    );
  }
}

/** Installs the hooks: run by the setup file, once per test file. */
export function failOnUnexpectedErrors(): void {
  const current = state();
  if (!current.installed) {
    current.installed = true;
    const original = console.error.bind(console);
    console.error = (...args: unknown[]) => {
      state().logged.push({ source: "console", text: describeArguments(args) });
      original(...args);
    };
  }
  // Errors logged outside any test (in beforeAll, say) are reported by the first test after
  // them, and by afterAll for the rest.
  beforeEach(() => {
    const leftover = state();
    if (leftover.logged.length > 0) settle("Errors logged before this test, outside any test");
  });
  afterEach(async () => {
    await serverLinesExpected();
    settle("Errors logged during this test");
  });
  afterAll(() => settle("Errors logged after the last test of this file"));
}
