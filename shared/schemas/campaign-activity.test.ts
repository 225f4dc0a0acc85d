import { describe, expect, it } from "vitest";
import { readActivityQuery } from "./campaign-activity";

describe("the recipient list's query string", () => {
  const read = (search: string) => readActivityQuery(new URLSearchParams(search));

  it("reads a filter, a search and a page key", () => {
    expect(read("filter=not-opened&q=%20Ada%20&after=42")).toEqual({
      filter: "not-opened",
      q: "Ada",
      after: 42,
      before: undefined,
    });
  });

  it("falls back to everyone, first page, for anything it cannot read", () => {
    const first = { filter: "all", q: "", after: undefined, before: undefined };
    expect(read("")).toEqual(first);
    expect(read("filter=<script>&after=x&before=-1")).toEqual(first);
    expect(read("after=1.5&before=1e400")).toEqual(first);
    expect(read(`q=${"a".repeat(201)}`)).toEqual(first);
  });

  it("goes one way at a time: before wins over after", () => {
    expect(read("after=3&before=9")).toMatchObject({ after: undefined, before: 9 });
  });
});
