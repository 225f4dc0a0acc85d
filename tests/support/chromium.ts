import { existsSync } from "node:fs";

/** Debian's Chromium: Playwright's own browser download does not work on these machines. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Headless, sandbox off (root), and nothing that reaches for the network on its own. */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Browser tests never skip silently: no Chromium is an error that says how to get one. */
export function requireChromium(): string {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `No Chromium at ${CHROMIUM_PATH}. Install one with \`apt-get install -y chromium\` (or point CHROMIUM_PATH at a Chromium binary); browser tests never skip silently.`,
    );
  }
  return CHROMIUM_PATH;
}
