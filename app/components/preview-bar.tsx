import type { ComponentProps, ReactNode } from "react";
import { type ArticleView, NewsletterArticle } from "./newsletter-article";
import { SubscribeBox } from "./subscribe-box";

/** The band above a previewed newsletter: what this page is, and what can be done from it. */
export function PreviewBar({ children }: { children: ReactNode }) {
  return (
    <section
      aria-label="Preview"
      className="sticky top-0 z-30 border-b-4 border-secondary bg-ink text-surface"
    >
      <div className="mx-auto flex max-w-6xl flex-wrap items-center gap-x-4 gap-y-2 px-4 py-3 text-sm sm:px-6">
        {children}
      </div>
    </section>
  );
}

/**
 * A previewed newsletter under the bar (the staff preview and the shared preview link): the
 * article and the sign-up box as the public page puts them together, without its comments.
 */
export function PreviewedNewsletter({
  article,
  signup,
}: {
  article: ArticleView;
  signup: ComponentProps<typeof SubscribeBox>["signup"];
}) {
  return (
    <main>
      <NewsletterArticle article={article} />
      <div className="mx-auto max-w-3xl px-4 pb-12 sm:px-6">
        <SubscribeBox signup={signup} title="Get the next issue by email" />
      </div>
    </main>
  );
}
