import { createElement, type ReactNode } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import {
  createStaticHandler,
  createStaticRouter,
  Link as RouterLink,
  NavLink as RouterNavLink,
  StaticRouterProvider,
} from "react-router";
import { describe, expect, it } from "vitest";
import { Link, NavLink, PageScriptsContext } from "./page-scripts";

/** Renders `element` on the server at `path`, as a page with or without the app's scripts. */
async function render(path: string, scripts: boolean, element: ReactNode): Promise<string> {
  const routes = [{ path: "*", element }];
  const handler = createStaticHandler(routes);
  const context = await handler.query(new Request(`http://herald.test${path}`));
  if (context instanceof Response) throw new Error("unexpected response");
  const router = createStaticRouter(handler.dataRoutes, context);
  return renderToStaticMarkup(
    createElement(
      PageScriptsContext,
      { value: scripts },
      createElement(StaticRouterProvider, { router, context, hydrate: false }),
    ),
  );
}

describe("links rendered on the server", () => {
  it("render React Router's own markup on a page with scripts (the browser hydrates it)", async () => {
    const cases = [
      { to: "/admin/campaigns", className: "font-semibold" },
      { to: "/admin/newsletter/abc/edit?tab=email", target: "_blank", rel: "noreferrer" },
      { to: "/newsletter", discover: "none" as const },
    ];
    for (const props of cases) {
      const ours = await render("/admin/dashboard", true, createElement(Link, props, "Go"));
      const theirs = await render("/admin/dashboard", true, createElement(RouterLink, props, "Go"));
      expect(ours).toBe(theirs);
    }
  });

  it("render NavLink's markup, active state and class included, on a page with scripts", async () => {
    const className = ({ isActive }: { isActive: boolean }) => (isActive ? "on" : "off");
    const cases: [string, { to: string; end?: boolean; caseSensitive?: boolean }][] = [
      ["/admin/campaigns", { to: "/admin/campaigns" }],
      ["/admin/campaigns/123", { to: "/admin/campaigns" }],
      ["/admin/campaigns/123", { to: "/admin/campaigns", end: true }],
      ["/Admin/Campaigns", { to: "/admin/campaigns" }],
      ["/Admin/Campaigns", { to: "/admin/campaigns", caseSensitive: true }],
      ["/admin/campaignsx", { to: "/admin/campaigns" }],
      ["/about", { to: "/" }],
      ["/", { to: "/" }],
      ["/admin/lists", { to: "/admin/lists/" }],
    ];
    for (const [path, props] of cases) {
      const ours = await render(
        path,
        true,
        createElement(NavLink, { ...props, className, target: "_self" }, "Campaigns"),
      );
      const theirs = await render(
        path,
        true,
        createElement(RouterNavLink, { ...props, className, target: "_self" }, "Campaigns"),
      );
      expect(ours, `${path} → ${JSON.stringify(props)}`).toBe(theirs);
    }
  });

  it("are plain anchors on a page without scripts, and React Router's for relative paths", async () => {
    const plain = await render(
      "/about",
      false,
      createElement(Link, { to: "/newsletter", className: "x" }, "Newsletter"),
    );
    expect(plain).toBe('<a href="/newsletter" class="x">Newsletter</a>');
    const relative = await render(
      "/newsletter/abc",
      true,
      createElement(Link, { to: "comments" }, "Comments"),
    );
    expect(relative).toContain('href="/newsletter/abc/comments"');
  });
});
