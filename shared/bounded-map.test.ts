import { describe, expect, it } from "vitest";
import { BoundedMap } from "./bounded-map";

describe("a bounded map", () => {
  it("drops its oldest entry to make room, and only then", () => {
    const map = new BoundedMap<string, number>(2);
    map.set("a", 1).set("b", 2);
    map.set("b", 3); // an update makes no room
    expect([...map]).toEqual([
      ["a", 1],
      ["b", 3],
    ]);
    map.set("c", 4);
    expect([...map.keys()]).toEqual(["b", "c"]);
  });

  it("keeps what is recalled, and lets what is only read go first", () => {
    const map = new BoundedMap<string, number>(2);
    map.set("a", 1).set("b", 2);
    expect(map.recall("a")).toBe(1);
    map.set("c", 3);
    expect([...map.keys()]).toEqual(["a", "c"]);
    expect(map.get("a")).toBe(1);
    map.set("d", 4);
    expect([...map.keys()]).toEqual(["c", "d"]);
    expect(map.recall("missing")).toBeUndefined();
  });
});
