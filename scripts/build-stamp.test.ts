import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildState, sourceFiles, writeStamp } from "./build-stamp.mjs";

describe("the build stamp: is build/ made from the sources in the tree?", () => {
  let root: string;
  const write = (path: string, text: string) => {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), text);
  };

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "herald-build-stamp-"));
    write("app/root.tsx", "export default function Root() {}");
    write("server/db/index.ts", "export const db = 1;");
    write("server/db/index.test.ts", "it('works')");
    write("shared/text.ts", "export const text = 'a';");
    write("cli/herald.ts", "main();");
    write("package-lock.json", "{}");
    write("vite.config.ts", "export default {};");
    write("docs/architecture.md", "# Architecture");
    write("build/server/index.js", "export {};");
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("is missing without a server build, unstamped without a stamp, fresh once stamped", () => {
    rmSync(join(root, "build/server/index.js"));
    expect(buildState(root)).toBe("missing");
    write("build/server/index.js", "export {};");
    expect(buildState(root)).toBe("unstamped");
    writeStamp(root);
    expect(buildState(root)).toBe("fresh");
  });

  it("is stale when a source file changes, appears, disappears or moves", () => {
    writeStamp(root);
    write("server/db/index.ts", "export const db = 2;");
    expect(buildState(root)).toBe("stale");

    writeStamp(root);
    write("app/routes/new.tsx", "export default function New() {}");
    expect(buildState(root)).toBe("stale");

    writeStamp(root);
    rmSync(join(root, "shared/text.ts"));
    expect(buildState(root)).toBe("stale");

    writeStamp(root);
    rmSync(join(root, "cli/herald.ts"));
    write("cli/main.ts", "main();");
    expect(buildState(root)).toBe("stale");

    writeStamp(root);
    write("package-lock.json", '{"lockfileVersion": 3}');
    expect(buildState(root)).toBe("stale");

    writeStamp(root);
    write("vite.config.ts", "export default { build: {} };");
    expect(buildState(root)).toBe("stale");
  });

  it("stays fresh when only tests, docs or the build itself change, or a file is saved unchanged", () => {
    writeStamp(root);
    write("server/db/index.test.ts", "it('still works')");
    write("docs/architecture.md", "# Architecture, revised");
    write("build/server/index.js", "export const rebuilt = true;");
    write("app/root.tsx", "export default function Root() {}");
    expect(buildState(root)).toBe("fresh");
  });

  it("covers the build's inputs and nothing else", () => {
    expect(sourceFiles(root)).toEqual([
      "app/root.tsx",
      "cli/herald.ts",
      "package-lock.json",
      "server/db/index.ts",
      "shared/text.ts",
      "vite.config.ts",
    ]);
  });
});
