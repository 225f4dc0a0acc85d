import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig, devices } from "@playwright/test";
import { CHROMIUM_ARGS, requireChromium } from "./tests/support/chromium";
import { scaled } from "./tests/support/timing";

const chromium = requireChromium();

// One fresh SQLite database per run; workers inherit the variable from the runner.
process.env.E2E_DATA_DIR ??= mkdtempSync(join(tmpdir(), "herald-e2e-"));
const port = Number(process.env.E2E_PORT ?? 3210);

export default defineConfig({
  testDir: "tests/e2e",
  fullyParallel: false,
  workers: 1,
  // Playwright's own limits (30 s a test, 5 s an expectation), longer on a busy machine
  // (tests/support/timing.ts).
  timeout: scaled(30_000),
  expect: { timeout: scaled(5_000) },
  // No `retries` (Playwright's default is none): a test that fails now and then is a bug to find
  // (issue 11), not to hide.
  reporter: process.env.CI ? "list" : [["list"]],
  use: {
    baseURL: `http://localhost:${port}`,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
  },
  projects: [
    {
      name: "chromium",
      use: {
        ...devices["Desktop Chrome"],
        launchOptions: {
          executablePath: chromium,
          args: CHROMIUM_ARGS,
        },
      },
    },
  ],
  webServer: {
    command: "node server.js",
    url: `http://localhost:${port}/healthz`,
    reuseExistingServer: false,
    timeout: 60_000,
    env: {
      NODE_ENV: "production",
      PORT: String(port),
      DATABASE_URL: `file:${join(process.env.E2E_DATA_DIR, "herald.db")}`,
      LOG_LEVEL: "warn",
      // No daily sender domain check: it would ask the system's DNS (decision 048).
      DOMAIN_CHECK_EVERY: "off",
      // Bookmark cards read pages a test serves on loopback (tests/e2e/editor-blocks.spec.ts).
      IMPORT_ALLOW_PRIVATE_HOSTS: "true",
    },
  },
});
