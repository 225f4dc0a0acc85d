import { formatDate } from "../../../shared/format";
import { PREVIEW_GONE } from "../../../shared/newsletters";
import { NewsletterErrorPage } from "../../components/error-page";
import { PreviewBar, PreviewedNewsletter } from "../../components/preview-bar";
import { noindexMeta } from "../../lib/meta";
import { Link } from "../../lib/page-scripts";
import type { Route } from "./+types/preview";

export { loader } from "./preview.server";

export const meta: Route.MetaFunction = ({ loaderData }) =>
  noindexMeta(loaderData ? `Preview: ${loaderData.article.title}` : PREVIEW_GONE);

export function headers() {
  // The link is the key: never kept by a shared cache, never sent on as a referrer.
  return { "Cache-Control": "private, no-store", "Referrer-Policy": "no-referrer" };
}

export default function SharedPreview({ loaderData }: Route.ComponentProps) {
  const { published } = loaderData;
  return (
    <>
      <PreviewBar>
        <p>
          <span className="font-semibold">
            {published ? "Preview of a published newsletter. " : "Preview of a draft. "}
          </span>
          {published ? (
            <Link to={`/newsletter/${published}`} className="font-semibold text-surface">
              Read it on its page
            </Link>
          ) : (
            `It is not published yet; this link works until ${formatDate(loaderData.expiresAt)}.`
          )}
        </p>
      </PreviewBar>
      <PreviewedNewsletter article={loaderData.article} signup={loaderData.signup} />
    </>
  );
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  return (
    <NewsletterErrorPage
      error={error}
      notFound={{
        title: PREVIEW_GONE,
        text: "Preview links work for 7 days. Ask whoever sent it for a new one.",
      }}
      failure="The preview could not be loaded. Please try again later."
      back="Read the published newsletters"
    />
  );
}
