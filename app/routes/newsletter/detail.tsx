import {
  isRouteErrorResponse,
  type ShouldRevalidateFunctionArgs,
  useActionData,
} from "react-router";
import { plural } from "../../../shared/format";
import { NEWSLETTER_NOT_FOUND as NOT_FOUND } from "../../../shared/newsletters";
import { NewsletterErrorPage } from "../../components/error-page";
import { NewsletterArticle } from "../../components/newsletter-article";
import { CommentsSection } from "../../components/newsletter-comments";
import { SubscribeBox } from "../../components/subscribe-box";
import { articleMeta } from "../../lib/meta";
import { withoutScripts } from "../../lib/page-scripts";
import { useRenderOnly } from "../../lib/render-only";
import { pageWithoutScripts } from "../../lib/render-only.server";
import type { Route } from "./+types/detail";
import type { action } from "./detail.server";

export { action, loader } from "./detail.server";

/** Pure content: no JavaScript (app/lib/page-scripts.tsx). */
export const handle = withoutScripts;
/** Its render-only data stays out of the hydration data (app/lib/render-only.tsx). */
export const middleware: Route.MiddlewareFunction[] = [pageWithoutScripts];

export function shouldRevalidate({
  formMethod,
  formAction,
  currentUrl,
  defaultShouldRevalidate,
}: ShouldRevalidateFunctionArgs) {
  if (formMethod?.toUpperCase() === "POST" && formAction) {
    if (new URL(formAction, currentUrl).pathname === currentUrl.pathname) return false;
  }
  return defaultShouldRevalidate;
}

export function headers() {
  return { "Cache-Control": "private, no-cache" };
}

export const meta: Route.MetaFunction = (args) => {
  const newsletter = args.loaderData?.newsletter;
  if (!newsletter) {
    const missing = isRouteErrorResponse(args.error) && args.error.status === 404;
    return [
      { title: missing ? NOT_FOUND : "Failed to load newsletter" },
      { name: "robots", content: "noindex" },
    ];
  }
  return articleMeta(args, newsletter);
};

export default function NewsletterDetail({ loaderData }: Route.ComponentProps) {
  const { newsletter, canModerate, commentsShown } = loaderData;
  // The page ships no script: a comment posts the page, and the answer comes back as action data.
  const reply = useActionData<typeof action>();
  const html = useRenderOnly(newsletter.html);
  const loadedComments = useRenderOnly(loaderData.comments);
  const loadedMarkup = useRenderOnly(loaderData.commentsMarkup);
  const signup = useRenderOnly(loaderData.signup);

  // The list comes from whichever answer is newer: this page's load, or the last comment posted.
  const fresh = reply?.ok && reply.asOf > loaderData.asOf ? reply : null;
  const comments = fresh ? fresh.comments : loadedComments;
  const commentCount = fresh ? fresh.commentCount : newsletter.comments;

  return (
    <main>
      <NewsletterArticle
        article={{ ...newsletter, html }}
        stats={
          <p className="flex gap-x-3">
            <span>{plural(newsletter.views, "view")}</span>
            <span aria-hidden="true">·</span>
            <a href="#comments">{plural(commentCount, "comment")}</a>
          </p>
        }
      />

      <div className="mx-auto max-w-3xl px-4 pb-4 sm:px-6">
        <SubscribeBox signup={signup} title="Get the next issue by email" />
      </div>

      <CommentsSection
        newsletterSlug={newsletter.slug}
        comments={comments}
        commentCount={commentCount}
        commentsShown={commentsShown}
        canModerate={canModerate}
        reply={reply}
        posted={Boolean(fresh?.posted)}
        listMarkup={fresh ? null : loadedMarkup}
      />
    </main>
  );
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  return (
    <NewsletterErrorPage
      error={error}
      notFound={{
        title: NOT_FOUND,
        text: "This newsletter does not exist, or it is not published.",
      }}
      failure="Failed to load newsletter. Please try again later."
    />
  );
}
