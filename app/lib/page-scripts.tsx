import { createContext, createElement, type ReactNode, useContext } from "react";
import {
  type LinkProps,
  type NavLinkProps,
  Link as RouterLink,
  NavLink as RouterNavLink,
  useLocation,
  useMatches,
} from "react-router";

/**
 * Pages that are pure content — the marketing pages, the reading room, the sign-up page — ship no
 * JavaScript (issue 17, target 4): their forms are plain HTML forms that work without it, the
 * header's menu is a <details>, and a reader's phone need not download and run React to read. A
 * route says so with `export const handle = withoutScripts;` (its children inherit it); the root
 * then renders neither the module scripts nor the scroll restoration.
 */
export const withoutScripts = { scripts: false } as const;

/**
 * A page without the app's JavaScript whose forms have a few behaviours beyond HTML (a busy label,
 * a button disabled while a field is blank, a password toggle): the root inlines the small script
 * app/lib/form-enhancements.js for them instead of React (decision 023).
 */
export const withFormEnhancements = { scripts: false, formEnhancements: true } as const;

interface PageScriptsHandle {
  scripts?: boolean;
  formEnhancements?: boolean;
}

function handles(matches: ReturnType<typeof useMatches>): PageScriptsHandle[] {
  return matches.map((match) => (match.handle ?? {}) as PageScriptsHandle);
}

/** Whether this page loads the app's JavaScript (false when a matched route opts out). */
export function usePageScripts(): boolean {
  return !handles(useMatches()).some((handle) => handle.scripts === false);
}

/** Whether this page inlines the form enhancements (a matched route asks for them). */
export function useFormEnhancements(): boolean {
  return handles(useMatches()).some((handle) => handle.formEnhancements === true);
}

/** Set once by the root layout from usePageScripts, for the links below. */
export const PageScriptsContext = createContext(true);

/** What a plain <a> cannot use: React Router's client-navigation options. */
const ROUTER_ONLY = new Set<string>([
  "to",
  "discover",
  "prefetch",
  "reloadDocument",
  "replace",
  "state",
  "preventScrollReset",
  "relative",
  "viewTransition",
]);

/**
 * A link's props without the router's (nor `without`), in their order, added to `anchor`, which
 * the caller hands to React as is. Not `{ to, ...rest } = props` (V8 copies a rest with excluded
 * keys in a slow runtime call) nor `{ ...anchorProps(props), href }` (spreading an object built
 * key by key takes V8's slow path too: 4 µs a link, 5% of a page of cards).
 */
function anchorProps(
  props: LinkProps | NavLinkProps,
  anchor: Record<string, unknown>,
  without: readonly string[] = [],
): Record<string, unknown> {
  for (const key in props) {
    if (!ROUTER_ONLY.has(key) && !without.includes(key)) {
      anchor[key] = props[key as keyof typeof props];
    }
  }
  return anchor;
}

/** What decides how a link renders. */
type LinkTarget = Pick<LinkProps, "to" | "prefetch" | "discover"> & { mask?: unknown };

/**
 * How a link renders. In the browser of a page with scripts: React Router's Link (client
 * navigation). On a page without scripts: a plain <a>. On the server for a page with scripts: the
 * very markup React Router's Link renders for an absolute path (`data-discover` included), without
 * the hooks it runs to resolve that path against the route tree; the browser then hydrates it as
 * React Router's Link. Anything else (relative paths, objects, prefetching, masks) is React
 * Router's own.
 */
function linkForm(props: LinkTarget, scripts: boolean): "router" | "plain" | "server" {
  const { to } = props;
  if (typeof to !== "string" || !to.startsWith("/") || to.startsWith("//")) return "router";
  if (!scripts) return "plain";
  const simple = (props.prefetch ?? "none") === "none" && !props.mask;
  return import.meta.env.SSR && simple ? "server" : "router";
}

/** `data-discover` as React Router's Link sets it for a path on this site. */
function discoverAttribute(props: LinkTarget): "true" | undefined {
  return (props.discover ?? "render") === "render" ? "true" : undefined;
}

export function Link(props: LinkProps) {
  const form = linkForm(props, useContext(PageScriptsContext));
  if (form === "router") return <RouterLink {...props} />;
  const to = props.to as string;
  if (form === "plain") return createElement("a", anchorProps(props, { href: to }));
  // Attributes in React Router's order, so the markup is byte for byte the same.
  const anchor = anchorProps(props, {}, ["target"]);
  anchor.href = to;
  anchor.target = props.target;
  anchor["data-discover"] = discoverAttribute(props);
  return createElement("a", anchor);
}

/**
 * React Router's rule for an active NavLink: the location is the link's path, or (unless `end`)
 * a path under it; case-insensitive unless asked.
 */
export function isActivePath(
  pathname: string,
  to: string,
  { end = false, caseSensitive = false }: { end?: boolean; caseSensitive?: boolean } = {},
): boolean {
  const here = caseSensitive ? pathname : pathname.toLowerCase();
  const path = caseSensitive ? to : to.toLowerCase();
  return here === path || (!end && path !== "/" && here.startsWith(`${path.replace(/\/$/, "")}/`));
}

/** NavLink, likewise: active when the location is the link's path (or under it, unless `end`). */
export function NavLink(props: NavLinkProps) {
  const form = linkForm(props, useContext(PageScriptsContext));
  const { pathname } = useLocation();
  if (form === "router") return <RouterNavLink {...props} />;
  const { className, style, children, end, caseSensitive } = props;
  const to = props.to as string;
  const isActive = isActivePath(pathname, to, { end, caseSensitive });
  const state = { isActive, isPending: false, isTransitioning: false };
  const anchor = anchorProps(props, {}, NAV_LINK_ONLY);
  anchor["aria-current"] = isActive ? "page" : undefined;
  anchor.className = typeof className === "function" ? className(state) : className;
  anchor.style = typeof style === "function" ? style(state) : style;
  anchor.href = to;
  anchor.target = props.target;
  anchor["data-discover"] = form === "server" ? discoverAttribute(props) : undefined;
  return createElement("a", anchor, typeof children === "function" ? children(state) : children);
}

/** NavLink's own props, and the target it puts last. */
const NAV_LINK_ONLY = ["className", "style", "children", "end", "caseSensitive", "target"];

/**
 * Kept markup (decision 022, "Fifth pass"). A part of a page that comes out the same for many
 * requests — the header, the footer, a form nobody has submitted yet, a newsletter's card — need
 * not be rendered by React each time: the first render of it is kept, and later pages put that
 * markup in as it is. The bytes are the ones React renders, so a browser that hydrates the page
 * finds what it would have found (and renders the part itself from then on).
 * app/entry.server.tsx provides the store; in the browser a <Kept> renders its part like any
 * element.
 *
 * Nobody writes a key (issue 34): a part is a component that renders from `data` alone, and it is
 * kept under the component and the data itself (keptPartKey), so a value put into `data` — a
 * signed-in name, a token — makes its own entry and can never reach a page with other data. The
 * kept copy is rendered apart from the page, with no router and no request around it (only
 * whether the page has scripts, which is in the store's key): a part that reads the location, the
 * route's data or anything else of the request fails there and is not kept at all.
 */
export interface KeptMarkupStore {
  /** the markup kept under `key`, if any */
  get(key: string): string | undefined;
  /** `content` is to be rendered on its own and kept under `key` once the page's render is over */
  keepLater(key: string, content: ReactNode): void;
}

export const KeptMarkupContext = createContext<KeptMarkupStore | null>(null);

/** What a kept part may be given: plain data, all of which is its key (no functions, no dates). */
export type KeptData =
  | string
  | number
  | boolean
  | null
  | undefined
  | readonly KeptData[]
  | { readonly [key: string]: KeptData };

type KeptPart<D> = (data: D) => ReactNode;

// Each part component's id, for the key: two components of one name stay apart.
const partIds = new WeakMap<KeptPart<never>, string>();
let lastPartId = 0;

/** The key a part is kept under: which component, and all of the data it renders. */
export function keptPartKey<D extends { readonly [key: string]: KeptData }>(
  part: KeptPart<D>,
  data: D,
): string {
  let id = partIds.get(part);
  if (id === undefined) {
    lastPartId += 1;
    id = `${part.name || "part"}#${lastPartId}`;
    partIds.set(part, id);
  }
  return `${id}\u0000${JSON.stringify(data)}`;
}

interface KeptProps<D extends { readonly [key: string]: KeptData }> {
  /** the element around the kept part, rendered every time with `props` */
  as: string;
  props: Record<string, unknown>;
  /**
   * A component of module scope (not one made during the render) that shows `data` and nothing
   * else: no hooks that read the page (location, route data, useId — ids come in `data`), no
   * clock, nothing of the request.
   */
  part: KeptPart<D>;
  data: D;
  /** false: rendered afresh and not kept (a form showing what was just submitted) */
  keep?: boolean;
}

export function Kept<D extends { readonly [key: string]: KeptData }>({
  as,
  props,
  part,
  data,
  keep = true,
}: KeptProps<D>) {
  const store = useContext(KeptMarkupContext);
  if (store === null || !keep) return createElement(as, props, createElement(part, data));
  const key = keptPartKey(part, data);
  const markup = store.get(key);
  if (markup !== undefined) {
    // Built key by key: a spread into a literal takes V8's slow path (microseconds a part).
    const element: Record<string, unknown> = { dangerouslySetInnerHTML: { __html: markup } };
    for (const name in props) element[name] = props[name];
    return createElement(as, element);
  }
  const content = createElement(part, data);
  store.keepLater(key, content);
  return createElement(as, props, content);
}
