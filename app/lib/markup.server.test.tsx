import type { ReactNode } from "react";
import { renderToString } from "react-dom/server";
import { StaticRouter, useLoaderData } from "react-router";
import { describe, expect, it } from "vitest";
import { keptMarkup, type PageKeptParts, pageKeptParts } from "./markup.server";
import {
  Kept,
  KeptMarkupContext,
  keptPartKey,
  Link,
  NavLink,
  PageScriptsContext,
} from "./page-scripts";

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
    // Lists of 50,000 characters: about 100 KB each, so 16 MiB holds some 160 of them.
    const markup = (n: number) =>
      keptMarkup("bounded", [n], () => {
        renders += 1;
        return <p>{String(n).padEnd(50_000, ".")}</p>;
      });
    markup(0);
    for (let n = 1; n <= 400; n++) {
      markup(n);
      markup(0); // used again and again: kept
    }
    expect(renders).toBe(401);
    markup(400); // recently used: kept
    expect(renders).toBe(401);
    markup(1); // long unused: rendered again
    expect(renders).toBe(402);
  });
});

/** Rendered in a page it reads the page router's data; alone it cannot. */
function NeedsThePageRouter() {
  useLoaderData();
  return <p>data</p>;
}

let renders = 0;

function AboutLink({ label }: { label: string }) {
  renders += 1;
  return (
    <>
      <Link to="/about">{label}</Link>
      {"text"}
      {"next to text"}
    </>
  );
}

function Field({ name }: { name: string }) {
  renders += 1;
  return <input name={name} />;
}

/** Reads the location itself: kept alone it has none, so it is never kept. */
function ActiveLink() {
  return <NavLink to="/about">About</NavLink>;
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
    store?.keep((key) => failures.push(key));
    return { html, failures };
  }

  it("renders a part once per distinct data, then puts its markup in as React rendered it", () => {
    renders = 0;
    const label = `About & us ${Math.random()}`;
    const page = (text: string) => () => (
      <main>
        <Kept
          as="nav"
          props={{ className: "bar", "aria-label": "Main" }}
          part={AboutLink}
          data={{ label: text }}
        />
      </main>
    );
    const first = renderPage(page(label)).html;
    expect(renders).toBe(2); // in the page, and alone to be kept
    expect(first).toContain("About &amp; us");
    const second = renderPage(page(label)).html;
    expect(renders).toBe(2);
    expect(second).toBe(first);
    // Other data is another part: rendered, never the first one's markup.
    const other = renderPage(page(`${label}!`)).html;
    expect(renders).toBe(4);
    expect(other).toContain(`${label.replace("&", "&amp;")}!`);
  });

  it("renders afresh when not to be kept, and without a store (pages with scripts, browsers)", () => {
    renders = 0;
    const name = `x${Math.random()}`;
    const page = (keep: boolean) => () => (
      <Kept as="form" props={{ method: "post" }} part={Field} data={{ name }} keep={keep} />
    );
    renderPage(page(false));
    renderPage(page(false));
    expect(renders).toBe(2);
    renderPage(page(true), null);
    renderPage(page(true), null);
    expect(renders).toBe(4);
    expect(renderPage(page(true), null).html).toBe(
      `<form method="post"><input name="${name}"/></form>`,
    );
  });

  it("keeps a page with scripts' parts apart from a plain page's (their links differ)", () => {
    const data = { label: `kinds ${Math.random()}` };
    const plain = pageKeptParts(false);
    renderToString(
      <KeptMarkupContext value={plain}>
        <PageScriptsContext value={false}>
          <Kept as="p" props={{}} part={AboutLink} data={data} />
        </PageScriptsContext>
      </KeptMarkupContext>,
    );
    plain.keep(() => {});
    expect(plain.get(keptPartKey(AboutLink, data))).toBe(
      `<a href="/about">${data.label}</a>text<!-- -->next to text`,
    );
    const withScripts = pageKeptParts(true);
    expect(withScripts.get(keptPartKey(AboutLink, data))).toBeUndefined();
  });

  it("does not keep a part that reads the page (its router's data, its location), and says so", () => {
    const store = pageKeptParts(false);
    store.keepLater("needs-data", <NeedsThePageRouter />);
    const failures: string[] = [];
    store.keep((failedKey) => failures.push(failedKey));
    expect(failures).toEqual(["needs-data"]);
    expect(store.get("needs-data")).toBeUndefined();

    const page = renderPage(() => <Kept as="p" props={{}} part={ActiveLink} data={{}} />);
    expect(page.html).toContain('aria-current="page"');
    expect(page.failures).toEqual([keptPartKey(ActiveLink, {})]);
  });
});
