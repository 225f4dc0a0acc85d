import { execSync } from "node:child_process";
import { existsSync } from "node:fs";

/** Integration tests run the real production build: make one if there is none. */
export default function setup() {
  if (!existsSync("build/server/index.js")) {
    execSync("npm run build", { stdio: "inherit" });
  }
}
