import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { RouterContextProvider } from "react-router";
import { describe, expect, it } from "vitest";
import { type RenderOnly, RenderOnlyContext, useRenderOnly } from "./render-only";
import { pageWithoutScripts, renderOnly, renderOnlyValuesOf } from "./render-only.server";

/** A document request's context, past a route whose page has no scripts. */
async function scriptFree(): Promise<RouterContextProvider> {
  const context = new RouterContextProvider();
  await pageWithoutScripts({ context } as never, (() => undefined) as never);
  return context;
}

function Body({ html }: { html: RenderOnly<string> }) {
  return createElement("article", null, useRenderOnly(html));
}

describe("render-only data", () => {
  it("leaves a stand-in in a document's loader data, and the page renders the value", async () => {
    const context = await scriptFree();
    const request = new Request("http://herald.test/newsletter/a?utm_source=x");
    const html = renderOnly({ request, context }, "The body.");
    const comments = renderOnly({ request, context }, [{ id: 1 }]);
    expect(html).toEqual({ renderOnly: 0 });
    expect(comments).toEqual({ renderOnly: 1 });
    expect(renderOnlyValuesOf(context)).toEqual(["The body.", [{ id: 1 }]]);
    const markup = renderToStaticMarkup(
      createElement(
        RenderOnlyContext,
        { value: renderOnlyValuesOf(context) },
        createElement(Body, { html }),
      ),
    );
    expect(markup).toBe("<article>The body.</article>");
  });

  it("hands a page with scripts the value itself", () => {
    const context = new RouterContextProvider();
    const request = new Request("http://herald.test/admin/dashboard");
    expect(renderOnly({ request, context }, "The body.")).toBe("The body.");
    expect(renderOnlyValuesOf(context)).toEqual([]);
  });

  it("hands a data request (a client navigation) the value itself", async () => {
    const context = await scriptFree();
    for (const url of ["http://herald.test/newsletter/a.data", "http://herald.test/a.data?x=1"]) {
      const request = new Request(url);
      expect(renderOnly({ request, context }, "The body.")).toBe("The body.");
    }
    expect(renderOnlyValuesOf(context)).toEqual([]);
    // In the browser there is no provider: the data holds the values.
    expect(renderToStaticMarkup(createElement(Body, { html: "The body." }))).toBe(
      "<article>The body.</article>",
    );
  });

  it("fails loudly on a stand-in without its values, rather than render nothing", () => {
    expect(() => renderToStaticMarkup(createElement(Body, { html: { renderOnly: 0 } }))).toThrow(
      /render-only data read outside/,
    );
  });

  it("is allowed by every route whose page has no scripts, and by no other", () => {
    const routes = path.join(import.meta.dirname, "../routes");
    const files = readdirSync(routes, { recursive: true, encoding: "utf8" }).filter((file) =>
      /\.tsx?$/.test(file),
    );
    const withoutScripts: string[] = [];
    for (const file of files) {
      const source = readFileSync(path.join(routes, file), "utf8");
      const handle = /export const handle = (withoutScripts|withFormEnhancements);/.test(source);
      const middleware = source.includes("[pageWithoutScripts]");
      expect({ file, middleware }).toEqual({ file, middleware: handle });
      if (handle) withoutScripts.push(file);
    }
    expect(withoutScripts.length).toBeGreaterThan(3);
  });
});
