import { useMatches } from "react-router";

/**
 * Pages that are pure content — the marketing pages, the reading room, the sign-up page — ship no
 * JavaScript (issue 17, target 4): their forms are plain HTML forms that work without it, the
 * header's menu is a <details>, and a reader's phone need not download and run React to read. A
 * route says so with `export const handle = withoutScripts;` (its children inherit it); the root
 * then renders neither the module scripts nor the scroll restoration.
 */
export const withoutScripts = { scripts: false } as const;

/** Whether this page loads the app's JavaScript (false when a matched route opts out). */
export function usePageScripts(): boolean {
  return !useMatches().some(
    (match) => (match.handle as { scripts?: boolean } | undefined)?.scripts === false,
  );
}
