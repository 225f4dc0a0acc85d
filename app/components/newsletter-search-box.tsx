import { Form } from "react-router";

/** Search the newsletter: a GET form, so it works without JavaScript and results have a URL. */
export function NewsletterSearchBox({ query = "" }: { query?: string }) {
  return (
    <Form method="get" action="/newsletter/search" role="search" className="flex gap-2">
      <label htmlFor="newsletter-search" className="sr-only">
        Search newsletters
      </label>
      <input
        id="newsletter-search"
        name="q"
        type="search"
        defaultValue={query}
        maxLength={200}
        placeholder="Search newsletters"
        className="min-w-0 flex-1 rounded-brand border border-black/30 bg-surface px-3 py-2 text-base text-ink"
      />
      <button
        type="submit"
        className="rounded-brand bg-brand-strong px-4 py-2 font-semibold text-on-brand-strong hover:opacity-90"
      >
        Search
      </button>
    </Form>
  );
}
