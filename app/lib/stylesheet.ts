import { createContext, useContext } from "react";
// The stylesheet, inlined: a separate file would block the first paint.
import stylesheet from "../app.css?inline";

export { stylesheet };

/**
 * What the root's <style> holds: the stylesheet (in the browser), or on the server a marker that
 * app/entry.server.tsx replaces with the stylesheet's bytes, encoded once at start rather than on
 * every render.
 */
export const StylesheetContext = createContext(stylesheet);

export function useStylesheet(): string {
  return useContext(StylesheetContext);
}

export const STYLESHEET_MARKER = "/*herald:stylesheet*/";
