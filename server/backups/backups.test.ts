import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { toolMajorVersion } from "./postgres";
import { pruneSnapshots, snapshotName } from "./schedule";

describe("scheduled snapshots' names and retention", () => {
  const dir = mkdtempSync(join(tmpdir(), "herald-prune-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("names a snapshot by its UTC start, so that names sort in time order", () => {
    expect(snapshotName(new Date("2026-11-27T06:05:09.123Z"))).toBe("herald-20261127T060509Z");
    const names = ["2026-12-01T00:00:00Z", "2026-11-27T23:59:59Z", "2027-01-01T00:00:00Z"].map(
      (at) => snapshotName(new Date(at)),
    );
    expect([...names].sort()).toEqual([names[1], names[0], names[2]]);
  });

  it("keeps the newest finished snapshots and leaves everything else alone", async () => {
    const finished = [
      "herald-20261127T010000Z",
      "herald-20261127T020000Z",
      "herald-20261127T030000Z",
    ];
    for (const name of finished) {
      mkdirSync(join(dir, name));
      writeFileSync(join(dir, name, "manifest.json"), "{}");
    }
    // Unfinished (no manifest), in progress, and not ours: never deleted.
    mkdirSync(join(dir, "herald-20261127T000000Z"));
    mkdirSync(join(dir, "herald-20261127T040000Z.partial"));
    mkdirSync(join(dir, "keep-me"));
    expect(await pruneSnapshots(dir, 2)).toEqual(["herald-20261127T010000Z"]);
    expect(readdirSync(dir).sort()).toEqual([
      "herald-20261127T000000Z",
      "herald-20261127T020000Z",
      "herald-20261127T030000Z",
      "herald-20261127T040000Z.partial",
      "keep-me",
    ]);
  });
});

describe("PostgreSQL's tools", () => {
  it("reads the major version from --version", () => {
    expect(toolMajorVersion("pg_dump (PostgreSQL) 15.20 (Debian 15.20-0+deb12u1)\n")).toBe(15);
    expect(toolMajorVersion("pg_restore (PostgreSQL) 16.1")).toBe(16);
    expect(toolMajorVersion("something else")).toBeNull();
  });
});
