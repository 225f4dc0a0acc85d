import { strFromU8, strToU8, zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { zerosDeflated, zipBomb, zipOf } from "../../tests/support/zip-bomb";
import { parseSubstackExport } from "../newsletters/substack-export";
import { decodeSourceUpload } from "../subscribers/import-sources";
import { unpackArchive } from "../tenants/move/archive";
import { UnzipError, unzipBounded } from "./unzip";

const LIMITS = { maxEntries: 10, maxEntryBytes: 10_000_000, maxTotalBytes: 20_000_000 };

/** The error `run` throws, and how much memory and time it took to throw it. */
function refusal(run: () => unknown) {
  const before = process.memoryUsage();
  const started = performance.now();
  let caught: unknown;
  try {
    run();
  } catch (error) {
    caught = error;
  }
  const after = process.memoryUsage();
  return {
    error: caught as Error,
    ms: performance.now() - started,
    grewBy: Math.max(after.rss - before.rss, after.arrayBuffers - before.arrayBuffers),
  };
}

describe("unzipBounded", () => {
  it("unpacks the wanted entries of an ordinary zip", () => {
    const zip = zipSync({
      "a.csv": strToU8("email\na@example.com\n"),
      "dir/b.html": strToU8("<p>hi</p>".repeat(1000)),
      "skip.bin": new Uint8Array(100),
    });
    const files = unzipBounded(zip, LIMITS, (name) => name !== "skip.bin");
    expect(Object.keys(files).sort()).toEqual(["a.csv", "dir/b.html"]);
    expect(strFromU8(files["a.csv"] as Uint8Array)).toBe("email\na@example.com\n");
    expect((files["dir/b.html"] as Uint8Array).length).toBe(9000);
  });

  it("the fixture really is a bomb: 1 MB of zip that unpacks to 1 GB", () => {
    const zip = zipBomb("email_list.csv", 1000);
    expect(zip.length).toBeLessThan(1_200_000);
    expect(zip.length).toBeGreaterThan(500_000);
    // Its first 30 MB inflate as zeros (not all of it: that is the point).
    const small = zipOf([{ name: "z", data: zerosDeflated(30), size: 30_000_000 }]);
    const files = unzipBounded(small, { ...LIMITS, maxEntryBytes: 40e6, maxTotalBytes: 40e6 });
    expect(files.z?.length).toBe(30_000_000);
    expect(files.z?.every((byte) => byte === 0)).toBe(true);
  });

  it("refuses a bomb by its declared size before inflating anything", () => {
    const zip = zipBomb("email_list.csv", 1000);
    const { error, ms, grewBy } = refusal(() => unzipBounded(zip, LIMITS));
    expect(error).toBeInstanceOf(UnzipError);
    expect(error.message).toBe(
      "email_list.csv in the zip file unpacks to 1000 MB; at most 10 MB is read per file.",
    );
    expect(ms).toBeLessThan(1000);
    expect(grewBy).toBeLessThan(50_000_000);
  });

  it("refuses a bomb that lies about its size once it inflates past what it declared", () => {
    const zip = zipBomb("email_list.csv", 1000, 5_000_000);
    const { error, ms, grewBy } = refusal(() => unzipBounded(zip, LIMITS));
    expect(error).toBeInstanceOf(UnzipError);
    expect(error.message).toBe(
      "email_list.csv in the zip file unpacks to more than the 5 MB it declares.",
    );
    expect(ms).toBeLessThan(3000);
    expect(grewBy).toBeLessThan(100_000_000);
  });

  it("refuses entries that together pass the total, and too many entries", () => {
    const five = () => ({ data: zerosDeflated(5), size: 5_000_000 });
    const many = zipOf(["a", "b", "c", "d", "e"].map((name) => ({ name, ...five() })));
    expect(() => unzipBounded(many, LIMITS)).toThrow("The zip file unpacks to more than 20 MB.");
    const crowd = zipOf(
      Array.from({ length: 11 }, (_, index) => ({
        name: `${index}.txt`,
        data: new Uint8Array(1),
        size: 1,
        stored: true,
      })),
    );
    expect(() => unzipBounded(crowd, LIMITS)).toThrow(
      "The zip file has 11 entries; at most 10 are read.",
    );
  });

  it("says a file that is not a zip is not one", () => {
    expect(() => unzipBounded(new Uint8Array([0x50, 0x4b, 3, 4, 1, 2]), LIMITS)).toThrow(
      /not a zip file this can read/,
    );
  });
});

describe("every reader of uploaded zips is bounded (issue 44, finding 1)", () => {
  it("Substack's members zip: refused fast, memory low, with a clear message", () => {
    const zip = zipBomb("export/email_list.my-letter.csv", 1000);
    const { error, ms, grewBy } = refusal(() => decodeSourceUpload("substack", zip));
    expect(error.message).toBe(
      "export/email_list.my-letter.csv in the zip file unpacks to 1000 MB; at most 10 MB is read per file. Upload the email list CSV from it (at most 10 MB).",
    );
    expect(ms).toBeLessThan(1000);
    expect(grewBy).toBeLessThan(50_000_000);
    const liar = zipBomb("email_list.csv", 1000, 1_000_000);
    expect(() => decodeSourceUpload("substack", liar)).toThrow(
      "email_list.csv in the zip file unpacks to more than the 1 MB it declares.",
    );
  });

  it("Substack's archive export: a post that unpacks to 1 GB", async () => {
    const zip = zipBomb("posts/1.huge.html", 1000);
    await expect(parseSubstackExport(zip)).rejects.toThrow(
      "posts/1.huge.html in the zip file unpacks to 1000 MB; at most 20 MB is read per file. Split the archive and import each part.",
    );
    const liar = zipBomb("posts/1.huge.html", 1000, 100);
    await expect(parseSubstackExport(liar)).rejects.toThrow(/more than the 100 bytes it declares/);
  });

  it("a tenant archive whose entry lies about its size", () => {
    const liar = zipBomb("manifest.json", 1000, 1000);
    expect(() => unpackArchive(liar)).toThrow(
      "manifest.json in the zip file unpacks to more than the 1 KB it declares.",
    );
  });
});
