import { execSync } from "node:child_process";
import { buildState } from "../../scripts/build-stamp.mjs";
import { TIME_SCALE } from "./timing";

/**
 * Integration tests run the real production build: make one if there is none, or if the one
 * there was built from other sources than the tree's (scripts/build-stamp.mjs) — a test of
 * yesterday's server passes or fails for reasons the code in front of you does not have.
 */
export default function setup() {
  // Said once, so a slow run's longer waits are not a mystery (TEST_TIME_SCALE sets it).
  console.log(`Waits and timeouts ×${TIME_SCALE} for this machine's load (TEST_TIME_SCALE)`);
  const state = buildState(process.cwd());
  if (state === "fresh") return;
  const reason = {
    missing: "there is no build/",
    unstamped: "build/ has no source stamp (built by an older `npm run build`, or by hand)",
    stale: "the sources changed since build/ was made",
  }[state];
  console.log(`Building: ${reason}.`);
  execSync("npm run build", { stdio: "inherit" });
}
