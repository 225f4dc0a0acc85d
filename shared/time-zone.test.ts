import { describe, expect, it } from "vitest";
import { formatDateTime } from "./format";
import { isTimeZone, utcToZonedLocal, zonedLocalToUtc } from "./time-zone";

describe("times in a tenant's time zone", () => {
  it("reads a wall-clock time in the zone as UTC, summer and winter", () => {
    expect(zonedLocalToUtc("2026-12-01T09:00", "Europe/Berlin")).toBe("2026-12-01T08:00:00.000Z");
    expect(zonedLocalToUtc("2026-07-01T09:00", "Europe/Berlin")).toBe("2026-07-01T07:00:00.000Z");
    expect(zonedLocalToUtc("2026-07-01T09:00", "America/New_York")).toBe(
      "2026-07-01T13:00:00.000Z",
    );
    expect(zonedLocalToUtc("2026-07-01T09:00", "UTC")).toBe("2026-07-01T09:00:00.000Z");
  });

  it("turns UTC back into the zone's wall-clock time", () => {
    for (const zone of ["Europe/Berlin", "America/New_York", "Asia/Kolkata", "UTC"]) {
      const utc = zonedLocalToUtc("2026-03-29T10:30", zone) ?? "";
      expect(utcToZonedLocal(utc, zone)).toBe("2026-03-29T10:30");
    }
    expect(formatDateTime("2026-12-01T08:00:00.000Z", "Europe/Berlin")).toBe(
      "Dec 1, 2026, 09:00 Europe/Berlin",
    );
    expect(formatDateTime("2026-12-01T08:00:00.000Z", "America/New_York")).toBe(
      "Dec 1, 2026, 03:00 America/New York",
    );
    expect(formatDateTime("2026-12-01T08:00:00.000Z")).toBe("Dec 1, 2026, 08:00 UTC");
  });

  it("refuses what is not a time or not a zone", () => {
    for (const bad of [
      "",
      "tomorrow",
      "2026-02-30T09:00",
      "2026-13-01T09:00",
      "2026-01-01T25:00",
    ]) {
      expect(zonedLocalToUtc(bad, "UTC"), bad).toBeNull();
    }
    expect(isTimeZone("Europe/Berlin")).toBe(true);
    expect(isTimeZone("Mars/Olympus_Mons")).toBe(false);
    expect(isTimeZone("")).toBe(false);
  });
});
