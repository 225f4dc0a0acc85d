import { execSync } from "node:child_process";
import { existsSync } from "node:fs";
import { TIME_SCALE } from "./timing";

/** Integration tests run the real production build: make one if there is none. */
export default function setup() {
  // Said once, so a slow run's longer waits are not a mystery (TEST_TIME_SCALE sets it).
  console.log(`Waits and timeouts ×${TIME_SCALE} for this machine's load (TEST_TIME_SCALE)`);
  if (!existsSync("build/server/index.js")) {
    execSync("npm run build", { stdio: "inherit" });
  }
}
