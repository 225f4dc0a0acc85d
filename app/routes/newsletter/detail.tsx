import { getFormProps, getTextareaProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import type { FormEvent } from "react";
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
import { COMMENT_MAX_LENGTH, commentFormSchema } from "../../../shared/schemas/comment";
import { CommentItem } from "../../components/comment-item";
import { useHydrated } from "../../components/subscription-page";
import { FieldErrors, Honeypot, SubmitButton, TextArea } from "../../components/ui/form";
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
  const hydrated = useHydrated();
  const reply = fetcher.data ?? actionData;

  // The list comes from whichever answer is newer: this page's load, or the last comment posted.
  const fresh = reply?.ok && reply.asOf > loaderData.asOf ? reply : null;
  const comments = fresh ? fresh.comments : loaderData.comments;
  const commentCount = fresh ? fresh.commentCount : newsletter.comments;
  const posting = fetcher.state !== "idle";

  const [form, fields] = useForm({
    lastResult: fetcher.state === "idle" ? reply?.result : null,
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: commentFormSchema }),
  });
  const formProps = getFormProps(form);
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    // One submission at a time: a double click must not post the comment twice.
    if (posting) {
      event.preventDefault();
      return;
    }
    formProps.onSubmit(event);
  };
  const hintId = `${fields.text.id}-hint`;

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
              <p className="flex gap-x-3">
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

      <section
        id="comments"
        aria-labelledby="comments-heading"
        className="scroll-mt-4 border-t border-black/10 bg-black/[0.03] py-12 sm:py-14"
      >
        <div className="mx-auto max-w-3xl px-4 sm:px-6">
          <h2 id="comments-heading" className="text-2xl font-bold">
            Comments <span className="font-normal opacity-80">({commentCount})</span>
          </h2>

          {comments.length === 0 ? (
            <p className="mt-4">No comments yet. Be the first to share your thoughts.</p>
          ) : (
            <ol className="mt-6 space-y-4">
              {comments.map((comment) => (
                <CommentItem
                  key={comment.id}
                  comment={comment}
                  moderation={canModerate ? `/newsletter/${newsletter.id}#comments` : null}
                />
              ))}
            </ol>
          )}
          {comments.length >= commentsShown ? (
            <p className="mt-4 text-sm">Showing the {commentsShown} most recent comments.</p>
          ) : null}

          <fetcher.Form
            method="post"
            action={`/newsletter/${newsletter.id}`}
            className="relative mt-10 rounded-brand border border-black/10 bg-surface p-5 shadow-sm sm:p-6"
            {...formProps}
            onSubmit={onSubmit}
          >
            <h3 className="text-lg font-semibold">Leave a comment</h3>
            {form.errors?.length ? (
              <div
                role="alert"
                id={form.errorId}
                className="mt-4 rounded-brand border-2 border-danger p-3 font-medium text-danger"
              >
                {form.errors.join(" ")}
              </div>
            ) : null}
            <label htmlFor={fields.text.id} className="sr-only">
              Your comment
            </label>
            <TextArea
              {...getTextareaProps(fields.text, { ariaDescribedBy: hintId })}
              rows={4}
              maxLength={COMMENT_MAX_LENGTH}
              placeholder="Share your thoughts..."
              className="mt-4"
            />
            <FieldErrors id={fields.text.errorId} errors={fields.text.errors} />
            <p id={hintId} className="mt-2 text-sm opacity-80">
              Comments are posted as Anonymous, up to {COMMENT_MAX_LENGTH.toLocaleString("en-US")}{" "}
              characters.
            </p>
            <Honeypot />
            {hydrated ? <input type="hidden" name="enhanced" value="1" /> : null}
            <div className="mt-4 flex flex-wrap items-center gap-4">
              <SubmitButton pending={posting}>Post Comment</SubmitButton>
              <p role="status" className="text-sm font-medium text-ok">
                {fetcher.state === "idle" && fresh?.posted ? "Your comment has been posted." : ""}
              </p>
            </div>
          </fetcher.Form>
        </div>
      </section>
    </main>
  );
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  const missing = isRouteErrorResponse(error) && error.status === 404;
  return (
    <main className="mx-auto max-w-2xl px-6 py-24 text-center">
      <p className="text-sm font-semibold uppercase tracking-wider text-brand-strong">
        {missing ? "404" : "Error"}
      </p>
      <h1 className="mt-2 text-3xl font-bold sm:text-4xl">
        {missing ? NOT_FOUND : "Something went wrong"}
      </h1>
      <p className="mt-4 text-lg">
        {missing
          ? "This newsletter does not exist, or it is not published."
          : "Failed to load newsletter. Please try again later."}
      </p>
      <p className="mt-8">
        <Link to="/newsletter" className="font-semibold">
          Back to all newsletters
        </Link>
      </p>
    </main>
  );
}
