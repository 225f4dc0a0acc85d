import type { ReactNode } from "react";
import { renderToString } from "react-dom/server";
import { StaticRouter, useLoaderData } from "react-router";
import { describe, expect, it } from "vitest";
import { keptMarkup, type PageKeptParts, pageKeptParts } from "./markup.server";
import { Kept, KeptMarkupContext, NavLink, PageScriptsContext } from "./page-scripts";

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

/** Rendered in a page it reads the page router's data; alone it cannot. */
function NeedsThePageRouter() {
  useLoaderData();
  return <p>data</p>;
}

describe("parts kept on pages without scripts (<Kept>)", () => {
  // A page as app/entry.server.tsx renders one: the store around it, the parts kept afterwards.
  function renderPage(page: () => ReactNode, store: PageKeptParts | null = pageKeptParts(false)) {
    const html = renderToString(
      <KeptMarkupContext value={store}>
        <StaticRouter location="/about">
          <PageScriptsContext value={false}>{page()}</PageScriptsContext>
        </StaticRouter>
      </KeptMarkupContext>,
    );
    const failures: string[] = [];
    store?.keep(
      (content) => (
        <StaticRouter location="/about">
          <PageScriptsContext value={false}>{content}</PageScriptsContext>
        </StaticRouter>
      ),
      (key) => failures.push(key),
    );
    return { html, failures };
  }

  it("renders a part once, then puts its markup in as React rendered it", () => {
    let renders = 0;
    const key = `part-${Math.random()}`;
    const page = () => (
      <main>
        <Kept
          as="nav"
          props={{ className: "bar", "aria-label": "Main" }}
          keyOf={key}
          render={() => {
            renders += 1;
            return (
              <>
                <NavLink to="/about">About &amp; us</NavLink>
                {"text"}
                {"next to text"}
              </>
            );
          }}
        />
      </main>
    );
    const first = renderPage(page).html;
    expect(renders).toBe(1);
    expect(first).toContain('aria-current="page"');
    const second = renderPage(page).html;
    expect(renders).toBe(1);
    expect(second).toBe(first);
  });

  it("renders afresh when the key is null, and without a store (pages with scripts, browsers)", () => {
    let renders = 0;
    const page = (keyOf: string | null) => () => (
      <Kept
        as="form"
        props={{ method: "post" }}
        keyOf={keyOf}
        render={() => {
          renders += 1;
          return <input name="x" />;
        }}
      />
    );
    renderPage(page(null));
    renderPage(page(null));
    expect(renders).toBe(2);
    const key = `unkept-${Math.random()}`;
    renderPage(page(key), null);
    renderPage(page(key), null);
    expect(renders).toBe(4);
    expect(renderPage(page(key), null).html).toBe('<form method="post"><input name="x"/></form>');
  });

  it("keeps a page with scripts' parts apart from a plain page's (their links differ)", () => {
    const key = `kinds-${Math.random()}`;
    const part = () => (
      <Kept as="p" props={{}} keyOf={key} render={() => <NavLink to="/about">About</NavLink>} />
    );
    const plain = pageKeptParts(false);
    renderToString(
      <KeptMarkupContext value={plain}>
        <StaticRouter location="/about">
          <PageScriptsContext value={false}>{part()}</PageScriptsContext>
        </StaticRouter>
      </KeptMarkupContext>,
    );
    plain.keep(
      (content) => (
        <StaticRouter location="/about">
          <PageScriptsContext value={false}>{content}</PageScriptsContext>
        </StaticRouter>
      ),
      () => {},
    );
    expect(plain.get(key)).toBe('<a aria-current="page" href="/about">About</a>');
    const withScripts = pageKeptParts(true);
    expect(withScripts.get(key)).toBeUndefined();
  });

  it("does not keep a part that cannot render on its own, and says so", () => {
    const key = `failing-${Math.random()}`;
    const store = pageKeptParts(false);
    store.keepLater(key, <NeedsThePageRouter />);
    const failures: string[] = [];
    store.keep(
      (content) => content,
      (failedKey) => failures.push(failedKey),
    );
    expect(failures).toEqual([key]);
    expect(store.get(key)).toBeUndefined();
  });
});
