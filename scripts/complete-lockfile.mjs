// Adds lockfile entries for platform-specific optional packages that this machine's npm registry
// does not carry (android, darwin, win32, … builds of biome, rollup, tailwind's oxide). `npm install`
// silently leaves them out, and `npm ci` then refuses the lockfile as out of sync. Run after any
// dependency change: `node scripts/complete-lockfile.mjs`. Each entry names its os/cpu/libc, so npm
// skips it on other platforms without fetching anything.
import { readFileSync, writeFileSync } from "node:fs";

const OS = [
  "android",
  "darwin",
  "freebsd",
  "linux",
  "win32",
  "openbsd",
  "openharmony",
  "netbsd",
  "sunos",
  "aix",
];
const CPU = ["arm64", "x64", "arm", "ia32", "riscv64", "ppc64", "s390x", "loong64", "wasm32"];

const path = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(path, "utf8"));
const packages = lock.packages;
let added = 0;

for (const meta of Object.values(packages)) {
  for (const [name, version] of Object.entries(meta.optionalDependencies ?? {})) {
    const key = `node_modules/${name}`;
    if (packages[key]) continue;
    const tokens = name.split("/").pop().split("-");
    const entry = { version: version.replace(/^[\^~=]/, ""), optional: true };
    if (meta.dev) entry.dev = true;
    if (tokens.includes("wasm32")) {
      entry.cpu = ["wasm32"];
    } else {
      const os = tokens.find((token) => OS.includes(token));
      const cpu = tokens.find((token) => CPU.includes(token));
      if (os) entry.os = [os];
      if (cpu) entry.cpu = [cpu];
      if (tokens.some((token) => token.startsWith("musl"))) entry.libc = ["musl"];
      else if (tokens.some((token) => token.startsWith("gnu"))) entry.libc = ["glibc"];
    }
    packages[key] = entry;
    added++;
  }
}

lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a.localeCompare(b))),
);
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lockfile: added ${added} entr${added === 1 ? "y" : "ies"}`);
