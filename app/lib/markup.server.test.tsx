import { describe, expect, it } from "vitest";
import { keptMarkup } from "./markup.server";

describe("markup kept per distinct data", () => {
  const list = (items: string[]) => items.map((item) => <li key={item}>{item}</li>);

  it("renders once for the same data, again when the data changes", () => {
    let renders = 0;
    const markup = (items: string[]) =>
      keptMarkup("test-list", items, () => {
        renders += 1;
        return list(items);
      });
    expect(markup(["a & b", "<c>"])).toBe("<li>a &amp; b</li><li>&lt;c&gt;</li>");
    expect(markup(["a & b", "<c>"])).toBe("<li>a &amp; b</li><li>&lt;c&gt;</li>");
    expect(renders).toBe(1);
    expect(markup(["a & b", "<c>", "d"])).toBe("<li>a &amp; b</li><li>&lt;c&gt;</li><li>d</li>");
    expect(renders).toBe(2);
  });

  it("tells lists apart by name, and equal lists in new objects by their content", () => {
    let renders = 0;
    const render = (items: string[]) => () => {
      renders += 1;
      return list(items);
    };
    const items = ["x"];
    keptMarkup("first", items, render(items));
    keptMarkup("second", items, render(items));
    expect(renders).toBe(2);
    keptMarkup("first", ["x"], render(["x"]));
    keptMarkup("first", items, render(items));
    expect(renders).toBe(2);
  });

  it("keeps a bounded number of lists, the least recently used going first", () => {
    let renders = 0;
    const markup = (n: number) =>
      keptMarkup("bounded", [n], () => {
        renders += 1;
        return <p>{n}</p>;
      });
    markup(0);
    for (let n = 1; n <= 150; n++) {
      markup(n);
      markup(0); // used again and again: kept
    }
    expect(renders).toBe(151);
    markup(1); // long unused: rendered again
    expect(renders).toBe(152);
  });
});
