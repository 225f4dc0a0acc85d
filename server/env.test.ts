import { describe, expect, it } from "vitest";
import { parseEnv } from "./env";

/** The shared-state settings (issue 14, part 6): refused with a line that says why. */
describe("REDIS_* and S3_* settings", () => {
  const problemsOf = (variables: Record<string, string>) => {
    const result = parseEnv(variables);
    return result.ok ? [] : result.problems;
  };

  it("take a full S3 setup and Redis, with the defaults filled in", () => {
    const result = parseEnv({
      REDIS_URL: "redis://127.0.0.1:6379/2",
      S3_BUCKET: "herald-uploads",
      S3_ENDPOINT: "http://127.0.0.1:9000",
      S3_ACCESS_KEY_ID: "key",
      S3_SECRET_ACCESS_KEY: "secret",
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.env.REDIS_KEY_PREFIX).toBe("herald:");
    expect(result.env.S3_REGION).toBe("us-east-1");
    expect(result.env.S3_FORCE_PATH_STYLE).toBe("false");
  });

  it("count empty values as unset", () => {
    const result = parseEnv({ REDIS_URL: "", S3_BUCKET: "", S3_ENDPOINT: "" });
    expect(result.ok && [result.env.REDIS_URL, result.env.S3_BUCKET]).toEqual([
      undefined,
      undefined,
    ]);
  });

  it.each([
    [{ REDIS_URL: "http://127.0.0.1:6379" }, "REDIS_URL"],
    [{ REDIS_KEY_PREFIX: "has space" }, "REDIS_KEY_PREFIX"],
    [{ S3_BUCKET: "Upper_Case" }, "S3_BUCKET"],
    [{ S3_BUCKET: "ok-bucket", S3_ENDPOINT: "ftp://store" }, "S3_ENDPOINT"],
    [{ S3_BUCKET: "ok-bucket", S3_FORCE_PATH_STYLE: "yes" }, "S3_FORCE_PATH_STYLE"],
    // Settings without the bucket would be silently unused: uploads would go elsewhere.
    [{ S3_ENDPOINT: "http://127.0.0.1:9000" }, "S3_BUCKET: must be set when S3_ENDPOINT is"],
    [{ S3_BUCKET: "ok-bucket", S3_ACCESS_KEY_ID: "key" }, "give both or neither"],
    // /metrics: a token a scraper could guess is no protection; a port without one serves nothing.
    [{ METRICS_TOKEN: "short" }, "METRICS_TOKEN: must be at least 16 characters"],
    [{ METRICS_PORT: "9464" }, "METRICS_PORT: set METRICS_TOKEN too"],
    [{ METRICS_PORT: "http", METRICS_TOKEN: "0123456789abcdef" }, "METRICS_PORT"],
  ])("refuse %j", (variables, expected) => {
    const problems = problemsOf(variables);
    expect(problems.join("\n")).toContain(expected);
  });
});

/** Scheduled backups (issue 33): the directory turns them on; the rest is refused when wrong. */
describe("BACKUP_* settings", () => {
  const problemsOf = (variables: Record<string, string>) => {
    const result = parseEnv(variables);
    return result.ok ? [] : result.problems;
  };

  it("read durations and fill in one day and seven snapshots", () => {
    const read = (variables: Record<string, string>) => {
      const result = parseEnv(variables);
      if (!result.ok) throw new Error(result.problems.join("\n"));
      return [result.env.BACKUP_DIR, result.env.BACKUP_EVERY, result.env.BACKUP_KEEP];
    };
    expect(read({ BACKUP_DIR: "/backups" })).toEqual(["/backups", 86_400_000, 7]);
    expect(read({ BACKUP_DIR: "/b", BACKUP_EVERY: "6h", BACKUP_KEEP: "3" })).toEqual([
      "/b",
      6 * 3_600_000,
      3,
    ]);
    expect(read({ BACKUP_DIR: "/b", BACKUP_EVERY: "30m" })[1]).toBe(30 * 60_000);
    expect(read({ BACKUP_DIR: "/b", BACKUP_EVERY: "2d" })[1]).toBe(2 * 86_400_000);
    expect(read({ BACKUP_DIR: "", BACKUP_EVERY: "" })).toEqual([undefined, 86_400_000, 7]);
  });

  it.each([
    [{ BACKUP_DIR: "/b", BACKUP_EVERY: "6" }, 'BACKUP_EVERY: "6" is not a duration such as 30m'],
    [{ BACKUP_DIR: "/b", BACKUP_EVERY: "1w" }, "BACKUP_EVERY"],
    [{ BACKUP_DIR: "/b", BACKUP_EVERY: "0s" }, "from 1s to 30d"],
    [{ BACKUP_DIR: "/b", BACKUP_EVERY: "31d" }, "from 1s to 30d"],
    [{ BACKUP_DIR: "/b", BACKUP_KEEP: "0" }, "BACKUP_KEEP: must be a whole number from 1 to 1000"],
    [{ BACKUP_DIR: "/b", BACKUP_KEEP: "2.5" }, "BACKUP_KEEP"],
    [{ BACKUP_DIR: "/b", BACKUP_KEEP: "many" }, "BACKUP_KEEP"],
    [{ BACKUP_EVERY: "6h" }, "BACKUP_DIR: must be set when BACKUP_EVERY is"],
    [
      { BACKUP_KEEP: "3", BACKUP_EVERY: "1h" },
      "BACKUP_DIR: must be set when BACKUP_EVERY, BACKUP_KEEP are",
    ],
  ])("refuse %j", (variables, expected) => {
    expect(problemsOf(variables).join("\n")).toContain(expected);
  });
});

/** The page cache's bound (issue 34): MiB, a whole number; unset or empty takes the default. */
describe("PAGE_CACHE_MB", () => {
  it("takes a whole number of MiB, and leaves the default to the page cache when unset", () => {
    const set = parseEnv({ PAGE_CACHE_MB: "128" });
    expect(set.ok && set.env.PAGE_CACHE_MB).toBe(128);
    for (const unset of [{}, { PAGE_CACHE_MB: "" }]) {
      const result = parseEnv(unset);
      expect(result.ok && result.env.PAGE_CACHE_MB).toBeUndefined();
    }
  });

  it("refuses what is not a size, with a line naming the variable", () => {
    for (const value of ["0", "-5", "1.5", "lots", "99999"]) {
      const result = parseEnv({ PAGE_CACHE_MB: value });
      expect(result.ok, value).toBe(false);
      if (!result.ok) expect(result.problems.join("\n"), value).toContain("PAGE_CACHE_MB");
    }
  });
});
