import { createContext, type RouterContextProvider } from "react-router";
import type { RenderOnly } from "./render-only";

/** The render-only values of this request, in the order their stand-ins number them. */
const renderOnlyValues = createContext<unknown[] | null>(null);

/**
 * `value` for a loader's data, or, on a document request, a stand-in for it, the value kept beside
 * the request for `useRenderOnly` (app/lib/render-only.tsx). Only for routes whose pages have no
 * scripts (`withoutScripts`): app/entry.server.tsx refuses to render a page with scripts whose
 * data holds stand-ins, since its hydration would miss them.
 *
 * `request` is React Router's raw request (future.v8_passThroughRequests): a data request's path
 * ends in `.data` (React Router's single fetch), and its data is rendered in the browser.
 */
export function renderOnly<T>(
  { request, context }: { request: Request; context: Readonly<RouterContextProvider> },
  value: T,
): RenderOnly<T> {
  if (isDataRequest(request)) return value;
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
