import { createContext, useContext } from "react";

/**
 * Render-only data: what a page without the app's scripts needs to render, kept out of React
 * Router's hydration data (decision 052).
 *
 * React Router encodes every document's loader data for hydration (turbo-stream) whether or not
 * the page has a `<Scripts>` to read it. On a page without scripts nobody ever does: an article's
 * body, its comment list and that list's markup were three quarters of the newsletter page's
 * encoding, about a sixth of its CPU. Such a page's route says so with the `pageWithoutScripts`
 * middleware beside its `handle`; a loader hands what only the render reads to `renderOnly`
 * (render-only.server.ts), which then keeps it beside the request and leaves a stand-in in the
 * loader data; the page reads it back with `useRenderOnly`. A page with scripts, and a data
 * request (a client navigation, rendered in the browser), get the values themselves.
 */
export interface RenderOnlyStandIn {
  readonly renderOnly: number;
}

/** A value, or on a document request the stand-in for it. */
export type RenderOnly<T> = T | RenderOnlyStandIn;

/** The values of this document's stand-ins, provided by app/entry.server.tsx. */
export const RenderOnlyContext = createContext<readonly unknown[]>([]);

function isStandIn(value: unknown): value is RenderOnlyStandIn {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as Partial<RenderOnlyStandIn>).renderOnly === "number" &&
    Object.keys(value).length === 1
  );
}

/** The value a loader handed to `renderOnly`: from the request, or from the data itself. */
export function useRenderOnly<T>(value: RenderOnly<T>): T {
  const values = useContext(RenderOnlyContext);
  if (!isStandIn(value)) return value;
  if (!(value.renderOnly in values)) {
    throw new Error("render-only data read outside the document render that holds it");
  }
  return values[value.renderOnly] as T;
}
