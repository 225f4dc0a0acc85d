import { defineConfig } from "vitest/config";
import { scaled } from "./tests/support/timing";

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          include: [
            "server/**/*.test.ts",
            "server/**/*.test.tsx",
            "app/**/*.test.ts",
            "app/**/*.test.tsx",
            "shared/**/*.test.ts",
            "scripts/**/*.test.ts",
            "tests/support/**/*.test.ts",
          ],
          environment: "node",
          // An unexpected console.error fails the test that logged it (tests/support/error-logs.ts).
          setupFiles: ["tests/support/error-logs.setup.ts"],
          testTimeout: scaled(5_000),
          hookTimeout: scaled(10_000),
        },
      },
      {
        test: {
          name: "integration",
          include: ["tests/integration/**/*.test.ts"],
          environment: "node",
          globalSetup: ["tests/support/global-setup.ts"],
          // An unexpected console.error, or error line of a server a test started, fails that test
          // (tests/support/error-logs.ts).
          setupFiles: ["tests/support/error-logs.setup.ts"],
          // A quiet machine's limits, longer on a busy one (tests/support/timing.ts).
          testTimeout: scaled(30_000),
          hookTimeout: scaled(60_000),
          expect: { poll: { timeout: scaled(1_000) } },
          // Each file starts its own server processes, and mostly waits on them (mail sinks,
          // workers, claims running out): three at a time keep a 2-core machine busy.
          maxWorkers: 3,
        },
      },
      {
        test: {
          name: "security",
          include: ["tests/security/**/*.test.ts"],
          environment: "node",
          globalSetup: ["tests/support/global-setup.ts"],
          testTimeout: scaled(60_000),
          hookTimeout: scaled(60_000),
          expect: { poll: { timeout: scaled(1_000) } },
          maxWorkers: 2,
        },
      },
    ],
  },
});
