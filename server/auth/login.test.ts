import { describe, expect, it } from "vitest";
import { waitAfterFailures } from "./login";

describe("the sign-in throttle", () => {
  it("lets five failures in a row through, then doubles the wait up to 15 minutes", () => {
    expect([1, 2, 3, 4].map(waitAfterFailures)).toEqual([0, 0, 0, 0]);
    expect([5, 6, 7, 8, 9].map(waitAfterFailures)).toEqual([60, 120, 240, 480, 900]);
    expect(waitAfterFailures(40)).toBe(900);
  });
});
