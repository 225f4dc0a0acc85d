import { describe, expect, it } from "vitest";
import { formatCount, formatDate, plural } from "./format";

describe("formatDate", () => {
  it("reads a stored time as its UTC day, the same on every call", () => {
    expect(formatDate("2026-11-22T23:30:00.000Z")).toBe("November 22, 2026");
    expect(formatDate("2026-11-22T23:30:00.000Z")).toBe("November 22, 2026");
    expect(formatDate("2026-11-23T00:30:00.000Z")).toBe("November 23, 2026");
  });

  it("stays right past the bound of kept texts", () => {
    const start = Date.UTC(2020, 0, 1);
    for (let day = 0; day < 2_500; day++) {
      const iso = new Date(start + day * 86_400_000).toISOString();
      expect(formatDate(iso)).toBe(
        new Date(iso).toLocaleDateString("en-US", {
          year: "numeric",
          month: "long",
          day: "numeric",
          timeZone: "UTC",
        }),
      );
    }
  });

  it("refuses a time that is not one", () => {
    expect(() => formatDate("not a date")).toThrow(RangeError);
  });
});

describe("counts", () => {
  it("separate thousands the US way, and say one or many", () => {
    expect(formatCount(1234567)).toBe("1,234,567");
    expect(plural(1, "view")).toBe("1 view");
    expect(plural(12345, "view")).toBe("12,345 views");
    expect(plural(0, "reply", "replies")).toBe("0 replies");
  });

  it("write every count as Intl does, whole or not", () => {
    const intl = new Intl.NumberFormat("en-US");
    for (const count of [
      0,
      7,
      999,
      1000,
      1001,
      12345,
      999999,
      1000000,
      1234567,
      -1,
      -999,
      -1000,
      -1234567,
      Number.MAX_SAFE_INTEGER,
      -Number.MAX_SAFE_INTEGER,
      2.5,
      999.5,
      1234.5678,
      1e21,
    ]) {
      expect(formatCount(count)).toBe(intl.format(count));
    }
    // Except minus zero, which Intl writes "-0": no count is below nothing.
    expect(formatCount(-0)).toBe("0");
  });
});
