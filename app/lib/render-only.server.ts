import { createContext, type MiddlewareFunction, type RouterContextProvider } from "react-router";
import type { RenderOnly } from "./render-only";

/** Set by `pageWithoutScripts`: this request's page, whatever its leaf, ships no scripts. */
const withoutScriptsContext = createContext<boolean>(false);

/** The render-only values of this request, in the order their stand-ins number them. */
const renderOnlyValues = createContext<unknown[] | null>(null);

/**
 * The middleware of every route whose `handle` is `withoutScripts` or `withFormEnhancements`
 * (app/lib/page-scripts.tsx; a test holds the two together): a page under it has no `<Scripts>`,
 * so its loaders' render-only values may stay out of its hydration data. Middleware runs before
 * any loader, so the root's loader knows it too.
 */
export const pageWithoutScripts: MiddlewareFunction<Response> = ({ context }) => {
  context.set(withoutScriptsContext, true);
};

/**
 * `value` for a loader's data, or, on a document request for a page without scripts, a stand-in
 * for it, the value kept beside the request for `useRenderOnly` (app/lib/render-only.tsx). On a
 * page with scripts, and on a data request (a client navigation, rendered in the browser), the
 * value itself. app/entry.server.tsx refuses to render a page with scripts whose data holds
 * stand-ins, since its hydration would miss them.
 *
 * `request` is React Router's raw request (future.v8_passThroughRequests): a data request's path
 * ends in `.data` (React Router's single fetch).
 */
export function renderOnly<T>(
  { request, context }: { request: Request; context: Readonly<RouterContextProvider> },
  value: T,
): RenderOnly<T> {
  if (!context.get(withoutScriptsContext) || isDataRequest(request)) return value;
  let values = context.get(renderOnlyValues);
  if (values === null) {
    values = [];
    context.set(renderOnlyValues, values);
  }
  values.push(value);
  return { renderOnly: values.length - 1 };
}

/** The values a document's loaders kept for its render (none: an empty list). */
export function renderOnlyValuesOf(context: Readonly<RouterContextProvider>): readonly unknown[] {
  return context.get(renderOnlyValues) ?? [];
}

function isDataRequest(request: Request): boolean {
  const url = request.url;
  const query = url.indexOf("?");
  return (query === -1 ? url : url.slice(0, query)).endsWith(".data");
}
