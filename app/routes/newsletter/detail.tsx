import {
  isRouteErrorResponse,
  Link,
  type MetaDescriptor,
  type ShouldRevalidateFunctionArgs,
  useActionData,
  useFetcher,
} from "react-router";
import { formatDate, plural } from "../../../shared/format";
import { NEWSLETTER_NOT_FOUND as NOT_FOUND } from "../../../shared/newsletters";
import { ErrorPage } from "../../components/error-page";
import { CommentsSection } from "../../components/newsletter-comments";
import { SubscribeBox } from "../../components/subscribe-box";
import { pageMeta } from "../../lib/meta";
import type { Route } from "./+types/detail";
import type { action } from "./detail.server";

export { action, loader } from "./detail.server";

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
  return articleMeta(pageMeta(args, { title: newsletter.title, description: newsletter.excerpt }), {
    publishedTime: newsletter.date,
    modifiedTime: newsletter.updatedAt,
  });
};

/** pageMeta's tags for an article: og:type article, its times, and the feed. */
function articleMeta(
  tags: MetaDescriptor[],
  article: { publishedTime: string; modifiedTime: string },
): MetaDescriptor[] {
  return [
    ...tags.map((tag) =>
      "property" in tag && tag.property === "og:type"
        ? { property: "og:type", content: "article" }
        : tag,
    ),
    { property: "article:published_time", content: article.publishedTime },
    { property: "article:modified_time", content: article.modifiedTime },
    {
      tagName: "link",
      rel: "alternate",
      type: "application/rss+xml",
      title: "Newsletter RSS feed",
      href: "/newsletter/rss.xml",
    },
  ];
}

/** Typography for the newsletter's own HTML (headings, lists, quotes, links, images, code, tables). */
const ARTICLE_BODY = [
  "text-lg leading-relaxed break-words",
  "[&>*:first-child]:mt-0",
  "[&_h1]:mt-10 [&_h1]:text-3xl [&_h1]:font-bold [&_h1]:leading-tight",
  "[&_h2]:mt-10 [&_h2]:text-2xl [&_h2]:font-bold [&_h2]:leading-snug",
  "[&_h3]:mt-8 [&_h3]:text-xl [&_h3]:font-semibold",
  "[&_h4]:mt-6 [&_h4]:font-semibold",
  "[&_p]:mt-5",
  "[&_ul]:mt-5 [&_ul]:list-disc [&_ul]:space-y-2 [&_ul]:pl-6",
  "[&_ol]:mt-5 [&_ol]:list-decimal [&_ol]:space-y-2 [&_ol]:pl-6",
  "[&_li>p]:mt-0",
  "[&_blockquote]:mt-6 [&_blockquote]:border-l-4 [&_blockquote]:border-brand [&_blockquote]:bg-brand/5 [&_blockquote]:py-2 [&_blockquote]:pl-5 [&_blockquote]:pr-3 [&_blockquote]:italic",
  "[&_a]:font-medium [&_a]:underline [&_a]:underline-offset-2",
  "[&_img]:mt-6 [&_img]:h-auto [&_img]:max-w-full [&_img]:rounded-brand",
  "[&_figure]:mt-6 [&_figcaption]:mt-2 [&_figcaption]:text-sm [&_figcaption]:opacity-80",
  "[&_hr]:my-10 [&_hr]:border-black/10",
  "[&_code]:rounded [&_code]:bg-black/5 [&_code]:px-1.5 [&_code]:py-0.5 [&_code]:font-mono [&_code]:text-[0.9em]",
  "[&_pre]:mt-5 [&_pre]:overflow-x-auto [&_pre]:rounded-brand [&_pre]:bg-black/5 [&_pre]:p-4 [&_pre]:text-base",
  "[&_pre_code]:bg-transparent [&_pre_code]:p-0",
  "[&_table]:mt-6 [&_table]:block [&_table]:max-w-full [&_table]:overflow-x-auto [&_table]:border-collapse [&_table]:text-base",
  "[&_th]:border [&_th]:border-black/15 [&_th]:bg-black/5 [&_th]:px-3 [&_th]:py-2 [&_th]:text-left",
  "[&_td]:border [&_td]:border-black/15 [&_td]:px-3 [&_td]:py-2",
  "[&_mark]:bg-secondary/40 [&_mark]:px-0.5",
].join(" ");

export default function NewsletterDetail({ loaderData }: Route.ComponentProps) {
  const { newsletter, canModerate, commentsShown } = loaderData;
  const fetcher = useFetcher<typeof action>({ key: `comment-${newsletter.id}` });
  const actionData = useActionData<typeof action>();
  const reply = fetcher.data ?? actionData;

  // The list comes from whichever answer is newer: this page's load, or the last comment posted.
  const fresh = reply?.ok && reply.asOf > loaderData.asOf ? reply : null;
  const comments = fresh ? fresh.comments : loaderData.comments;
  const commentCount = fresh ? fresh.commentCount : newsletter.comments;

  return (
    <main>
      <article aria-labelledby="newsletter-title">
        <header className="bg-brand/10 py-10 sm:py-14">
          <div className="mx-auto max-w-3xl px-4 sm:px-6">
            <p>
              <Link to="/newsletter" className="text-sm font-semibold no-underline hover:underline">
                <span aria-hidden="true">←</span> All newsletters
              </Link>
            </p>
            <h1
              id="newsletter-title"
              className="mt-4 text-3xl font-bold leading-tight sm:text-5xl sm:leading-tight"
            >
              {newsletter.title}
            </h1>
            <p className="mt-5 text-lg leading-relaxed sm:text-xl">{newsletter.excerpt}</p>
            <div className="mt-6 flex flex-wrap items-center gap-x-3 gap-y-1 text-sm font-medium">
              <p className="flex flex-wrap gap-x-3">
                {newsletter.author ? (
                  <>
                    <span data-testid="byline">{`By ${newsletter.author}`}</span>
                    <span aria-hidden="true">·</span>
                  </>
                ) : null}
                <time dateTime={newsletter.date}>{formatDate(newsletter.date)}</time>
                <span aria-hidden="true">·</span>
                <span>{newsletter.readTime} min read</span>
              </p>
              <span aria-hidden="true" className="hidden sm:inline">
                ·
              </span>
              <p className="flex gap-x-3">
                <span>{plural(newsletter.views, "view")}</span>
                <span aria-hidden="true">·</span>
                <a href="#comments">{plural(commentCount, "comment")}</a>
              </p>
            </div>
          </div>
        </header>
        <div className="mx-auto max-w-3xl px-4 py-10 sm:px-6 sm:py-14">
          <div
            className={ARTICLE_BODY}
            // Sanitised on save and again on the server before this render (DESIGN.md §8).
            // biome-ignore lint/security/noDangerouslySetInnerHtml: newsletter content is sanitised HTML
            dangerouslySetInnerHTML={{ __html: newsletter.html }}
          />
        </div>
      </article>

      <div className="mx-auto max-w-3xl px-4 pb-4 sm:px-6">
        <SubscribeBox signup={loaderData.signup} title="Get the next issue by email" />
      </div>

      <CommentsSection
        newsletterSlug={newsletter.slug}
        comments={comments}
        commentCount={commentCount}
        commentsShown={commentsShown}
        canModerate={canModerate}
        fetcher={fetcher}
        reply={reply}
        posted={Boolean(fresh?.posted)}
      />
    </main>
  );
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  const missing = isRouteErrorResponse(error) && error.status === 404;
  return (
    <ErrorPage
      eyebrow={missing ? "404" : "Error"}
      title={missing ? NOT_FOUND : "Something went wrong"}
      text={
        missing
          ? "This newsletter does not exist, or it is not published."
          : "Failed to load newsletter. Please try again later."
      }
      back={
        <Link to="/newsletter" className="font-semibold">
          Back to all newsletters
        </Link>
      }
      documentTitle={false}
    />
  );
}
