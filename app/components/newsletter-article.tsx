import type { ReactNode } from "react";
import type { Picture } from "../../server/files/stored-images";
import type { Tag } from "../../server/newsletters/tags";
import { formatDate } from "../../shared/format";
import { Link } from "../lib/page-scripts";
import { ResponsivePicture, TagLinks } from "./newsletter-archive";

/** What the article shows: the public page, the staff preview and the shared preview alike. */
export interface ArticleView {
  title: string;
  excerpt: string;
  date: string;
  readTime: number;
  /** sanitised content, safe for dangerouslySetInnerHTML */
  html: string;
  author: string | null;
  tags: Tag[];
  cover: (Picture & { alt: string }) | null;
}

/** Typography for the newsletter's own HTML (headings, lists, quotes, links, images, code, tables). */
const ARTICLE_BODY = [
  // the editor's blocks: app/app.css
  "content-blocks text-lg leading-relaxed break-words",
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
  "[&_mark]:bg-secondary/25 [&_mark]:px-0.5",
].join(" ");

/**
 * A newsletter as readers see it. Previews render this same component, so a draft looks exactly as
 * it will once published; `stats` (views, comments) is the public page's alone.
 */
export function NewsletterArticle({ article, stats }: { article: ArticleView; stats?: ReactNode }) {
  return (
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
            {article.title}
          </h1>
          <p className="mt-5 text-lg leading-relaxed sm:text-xl">{article.excerpt}</p>
          <div className="mt-6 flex flex-wrap items-center gap-x-3 gap-y-1 text-sm font-medium">
            <p className="flex flex-wrap gap-x-3">
              {article.author ? (
                <>
                  <span data-testid="byline">{`By ${article.author}`}</span>
                  <span aria-hidden="true">·</span>
                </>
              ) : null}
              <time dateTime={article.date}>{formatDate(article.date)}</time>
              <span aria-hidden="true">·</span>
              <span>{article.readTime} min read</span>
            </p>
            {stats ? (
              <>
                <span aria-hidden="true" className="hidden sm:inline">
                  ·
                </span>
                {stats}
              </>
            ) : null}
          </div>
          <TagLinks tags={article.tags} className="mt-5" />
        </div>
      </header>
      {article.cover ? (
        <div className="mx-auto max-w-4xl px-4 pt-8 sm:px-6 sm:pt-10">
          <ResponsivePicture
            picture={article.cover}
            sizes="(min-width: 56rem) 56rem, 100vw"
            className="h-auto w-full rounded-brand"
            eager
          />
        </div>
      ) : null}
      <div className="mx-auto max-w-3xl px-4 py-10 sm:px-6 sm:py-14">
        <div
          className={ARTICLE_BODY}
          // Sanitised on save and again on the server before this render (DESIGN.md §8).
          // biome-ignore lint/security/noDangerouslySetInnerHtml: newsletter content is sanitised HTML
          dangerouslySetInnerHTML={{ __html: article.html }}
        />
      </div>
    </article>
  );
}
