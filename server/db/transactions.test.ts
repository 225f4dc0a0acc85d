import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "./index";

// Two processes on one SQLite file, as the site and `herald worker` are: a real file, and a real
// second process writing to it while this one is inside a transaction.
const dir = mkdtempSync(path.join(tmpdir(), "herald-transactions-"));
const file = path.join(dir, "herald.db");
const betterSqlite = createRequire(import.meta.url).resolve("better-sqlite3");
let db: Db;

beforeAll(async () => {
  db = createDb(`file:${file}`);
  await sql`create table scratch (writer text not null)`.execute(db);
});

afterAll(async () => {
  await db.destroy();
  rmSync(dir, { recursive: true, force: true });
});

/** Another process inserts a row as soon as it can (waiting on locks up to 5 s), then exits. */
function writeFromAnotherProcess(): { started: Promise<void>; exited: Promise<number | null> } {
  const child = spawn(
    process.execPath,
    [
      "-e",
      `const db = new (require(${JSON.stringify(betterSqlite)}))(${JSON.stringify(file)});
       db.pragma("busy_timeout = 5000");
       process.stdout.write("started\\n");
       db.prepare("insert into scratch (writer) values ('other')").run();`,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const started = new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  return { started, exited };
}

describe("SQLite transactions beside another process", () => {
  it("a transaction that reads, then writes after the other process tried to, commits, and so does the other", async () => {
    let other: ReturnType<typeof writeFromAnotherProcess> | undefined;
    await db.transaction().execute(async (trx) => {
      await sql`select count(*) from scratch`.execute(trx);
      other = writeFromAnotherProcess();
      await other.started;
      // Time for the other process's insert: it commits at once if this transaction holds no
      // write lock (and this one's write then fails with SQLITE_BUSY), or waits for it.
      await new Promise((resolve) => setTimeout(resolve, 300));
      await sql`insert into scratch (writer) values ('this')`.execute(trx);
    });
    expect(await other?.exited).toBe(0);
    const rows = await sql<{ writer: string }>`select writer from scratch order by rowid`.execute(
      db,
    );
    expect(rows.rows.map((row) => row.writer)).toEqual(["this", "other"]);
  });
});
