import { createContext, useContext } from "react";
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
function anchorProps<T extends LinkProps>(props: T) {
  const {
    to: _to,
    discover: _discover,
    prefetch: _prefetch,
    reloadDocument: _reloadDocument,
    replace: _replace,
    state: _state,
    preventScrollReset: _preventScrollReset,
    relative: _relative,
    viewTransition: _viewTransition,
    ...anchor
  } = props;
  return anchor;
}

/**
 * React Router's Link where the page has scripts (client navigation, prefetching); a plain <a>
 * where it has none, since there a Link only costs its render (resolving its path against the
 * route tree) to produce the same href. Paths must be absolute for the plain form.
 */
export function Link(props: LinkProps) {
  const scripts = useContext(PageScriptsContext);
  if (scripts || typeof props.to !== "string" || !props.to.startsWith("/")) {
    return <RouterLink {...props} />;
  }
  return <a href={props.to} {...anchorProps(props)} />;
}

/** NavLink, likewise: on a page without scripts, active when the path is the link's (or under it). */
export function NavLink(props: NavLinkProps) {
  const scripts = useContext(PageScriptsContext);
  const { pathname } = useLocation();
  if (scripts || typeof props.to !== "string" || !props.to.startsWith("/")) {
    return <RouterNavLink {...props} />;
  }
  const { className, style, children, end, caseSensitive: _caseSensitive, ...rest } = props;
  const to = props.to;
  const isActive =
    pathname === to || (!end && to !== "/" && pathname.startsWith(`${to.replace(/\/$/, "")}/`));
  const state = { isActive, isPending: false, isTransitioning: false };
  return (
    <a
      {...anchorProps({ ...rest, to })}
      href={to}
      aria-current={isActive ? "page" : undefined}
      className={typeof className === "function" ? className(state) : className}
      style={typeof style === "function" ? style(state) : style}
    >
      {typeof children === "function" ? children(state) : children}
    </a>
  );
}
