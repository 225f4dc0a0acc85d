import { useState } from "react";
import { PreviewBar, PreviewedNewsletter } from "../../components/preview-bar";
import { noindexMeta } from "../../lib/meta";
import { Link } from "../../lib/page-scripts";
import type { Route } from "./+types/newsletter-preview";

export { loader } from "./newsletter-preview.server";

export const meta: Route.MetaFunction = ({ loaderData }) =>
  noindexMeta(loaderData ? `Preview: ${loaderData.article.title}` : "Preview");

export function headers() {
  return { "Cache-Control": "private, no-store" };
}

/**
 * Staff preview of a newsletter, draft or published: the article as readers will see it, at desktop
 * width or in a phone-sized frame (a real 390 px viewport, so the page's own phone layout applies).
 */
export default function NewsletterPreview({ loaderData }: Route.ComponentProps) {
  const [width, setWidth] = useState<"desktop" | "phone">("desktop");
  if (loaderData.framed)
    return <PreviewedNewsletter article={loaderData.article} signup={loaderData.signup} />;
  const editUrl = `/admin/newsletter/edit/${loaderData.id}`;
  const toggle = (value: "desktop" | "phone", label: string) => (
    <button
      type="button"
      aria-pressed={width === value}
      onClick={() => setWidth(value)}
      className={`rounded-brand px-3 py-1 font-semibold ${
        width === value ? "bg-surface text-ink" : "text-surface underline"
      }`}
    >
      {label}
    </button>
  );
  return (
    <>
      <PreviewBar>
        <p className="font-semibold">
          {loaderData.status === "published"
            ? "Preview of a published newsletter"
            : "Preview of a draft: readers cannot see it yet"}
        </p>
        <fieldset className="flex gap-1">
          <legend className="sr-only">Preview width</legend>
          {toggle("desktop", "Desktop")}
          {toggle("phone", "Phone")}
        </fieldset>
        <Link to={editUrl} className="ml-auto font-semibold text-surface">
          Back to the editor
        </Link>
      </PreviewBar>
      {width === "phone" ? (
        <div className="flex justify-center bg-black/5 py-8">
          <iframe
            title="The newsletter at phone width"
            src={`/admin/newsletter/preview/${loaderData.id}?frame=1`}
            width={390}
            height={780}
            className="rounded-[2rem] border-[10px] border-ink bg-surface shadow-xl"
          />
        </div>
      ) : (
        <PreviewedNewsletter article={loaderData.article} signup={loaderData.signup} />
      )}
    </>
  );
}
