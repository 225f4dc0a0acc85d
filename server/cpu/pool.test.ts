import { threadId } from "node:worker_threads";
import { strToU8 } from "fflate";
import { afterAll, describe, expect, it } from "vitest";
import { ghostExport } from "../../tests/support/archive-fixtures";
import { scaled } from "../../tests/support/timing";
import { zipBomb } from "../../tests/support/zip-bomb";
import { ArchiveFileError } from "../newsletters/archive-posts";
import { TextTooLongError } from "../social/images";
import { ImportFileError } from "../subscribers/import-rows";
import { CpuTaskError, closeCpuPool, createCpuPool } from "./pool";
import {
  decodeSourceUploadOffThread,
  parseArchiveOffThread,
  readImportRowsOffThread,
  readSourceRowsOffThread,
  renderSocialImageOffThread,
} from "./tasks";

/* Issue 44, target 1: CPU-heavy steps in worker threads, each with a deadline and a heap cap. */

const testWorker = new URL("../../tests/support/cpu-test-worker.mjs", import.meta.url).pathname;
const pools: { close(): Promise<void> }[] = [];
afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.close()));
  await closeCpuPool();
});

describe("the CPU pool", () => {
  it("runs a task on another thread", async () => {
    const pool = createCpuPool({
      filename: testWorker,
      threads: 1,
      timeoutMs: scaled(5000),
      memoryMb: 64,
    });
    pools.push(pool);
    const other = await pool.run<number>("thread", "Finding the thread");
    expect(other).not.toBe(threadId);
  });

  it("stops a runaway task at its deadline with a clear error, and goes on", async () => {
    const pool = createCpuPool({ filename: testWorker, threads: 1, timeoutMs: 500, memoryMb: 64 });
    pools.push(pool);
    const started = performance.now();
    const error = await pool.run("spin", "Spinning").catch((caught: Error) => caught);
    expect(error).toBeInstanceOf(CpuTaskError);
    expect((error as Error).message).toBe("Spinning took longer than 0.5 seconds and was stopped.");
    expect(performance.now() - started).toBeLessThan(500 + scaled(2000));
    // The thread was ended; the next task gets a new one.
    expect(await pool.run<number>("thread", "Finding the thread")).toBeGreaterThan(0);
  });

  it("ends a task that passes its heap cap", async () => {
    const pool = createCpuPool({
      filename: testWorker,
      threads: 1,
      timeoutMs: scaled(20_000),
      memoryMb: 48,
    });
    pools.push(pool);
    const error = await pool.run("grow", "Growing").catch((caught: Error) => caught);
    expect(error).toBeInstanceOf(CpuTaskError);
    expect((error as Error).message).toBe(
      "Growing needed more than 48 MB of memory and was stopped.",
    );
  });
});

describe("Herald's tasks in the pool (server/cpu/worker.ts)", () => {
  it("reads an archive off the thread, its errors as they are on it", async () => {
    const parsed = await parseArchiveOffThread("ghost", strToU8(ghostExport("https://i.example")), {
      siteUrl: "https://old.example",
    });
    expect(parsed.posts.length).toBeGreaterThan(3);
    const error = await parseArchiveOffThread("substack", zipBomb("posts/1.html", 1000)).catch(
      (caught: Error) => caught,
    );
    expect(error).toBeInstanceOf(ArchiveFileError);
    expect((error as Error).message).toMatch(/^posts\/1\.html in the zip file unpacks to 1000 MB/);
  });

  it("reads an audience upload off the thread", async () => {
    expect(await decodeSourceUploadOffThread("herald", strToU8("email\na@example.com\n"))).toBe(
      "email\na@example.com\n",
    );
    const error = await decodeSourceUploadOffThread(
      "substack",
      zipBomb("email_list.csv", 1000),
    ).catch((caught: Error) => caught);
    expect(error).toBeInstanceOf(ImportFileError);
  });

  it("draws a social image off the thread, and says when its text cannot be set", async () => {
    const branding = {
      primaryColor: "#1d3557",
      secondaryColor: "#e63946",
      backgroundColor: "#ffffff",
      companyName: "Key Discovery",
    };
    const content = { title: "Five things about tar", site: "keydiscovery.com/newsletter" };
    const png = await renderSocialImageOffThread("square", content, branding);
    expect(Buffer.isBuffer(png)).toBe(true);
    expect(png.subarray(1, 4).toString()).toBe("PNG");
    const error = await renderSocialImageOffThread(
      "quote",
      { ...content, quote: "a very long quote ".repeat(50_000) },
      branding,
    ).catch((caught: Error) => caught);
    expect(error).toBeInstanceOf(TextTooLongError);
  });

  it("reads an import's CSV rows off the thread", async () => {
    const news = {
      id: 7,
      key: "news",
      name: "News",
      description: "",
      visibility: "public" as const,
      archived: false,
    };
    const herald = await readImportRowsOffThread(
      "email,lists\na@example.com,news\nnot-an-email\n",
      [news],
    );
    expect(herald.rows.map((row) => [row.email, row.lists?.map((list) => list.key)])).toEqual([
      ["a@example.com", ["news"]],
    ]);
    expect(herald.refused).toHaveLength(1);
    const ghost = await readSourceRowsOffThread(
      "ghost",
      "email,name,subscribed_to_emails\nb@example.com,Bea,true\n",
    );
    expect(ghost.rows.map((row) => [row.email, row.name, row.status])).toEqual([
      ["b@example.com", "Bea", "active"],
    ]);
  });
});
