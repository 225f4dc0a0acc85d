import type { IssueSummary } from "../../server/newsletters/archive";
import { formatDate } from "../../shared/format";
import { Link } from "../lib/page-scripts";
import { ResponsivePicture } from "./newsletter-archive";

/** What a weekly issue holds, for the hero before the first issue is published. */
const SAMPLE_SECTIONS = [
  "Lead essay: defensible AI-assisted review, in your leader's voice",
  "Three developments worth a general counsel's attention",
  "One practical takeaway for Monday",
  "The week's social pack, ready to post",
];

/**
 * The home hero's right half (issue 35): the newest published issue, or — before there is one —
 * a picture of what each week's issue holds.
 */
export function HeroIssue({ issue }: { issue: IssueSummary | null }) {
  if (!issue) {
    return (
      <figure className="rounded-brand border border-black/10 bg-surface p-6 shadow-lg">
        <div className="flex items-center gap-3 border-b border-black/10 pb-4">
          <span
            aria-hidden="true"
            className="grid size-10 place-items-center rounded-full bg-brand text-on-brand"
          >
            ✉
          </span>
          <div>
            <p className="font-semibold">Your weekly issue</p>
            <p className="text-sm opacity-80">Every week, by email and on LinkedIn</p>
          </div>
        </div>
        <ul className="mt-4 space-y-3">
          {SAMPLE_SECTIONS.map((section) => (
            <li key={section} className="flex gap-3">
              <span aria-hidden="true" className="mt-2 size-2 shrink-0 rounded-full bg-accent" />
              <span>{section}</span>
            </li>
          ))}
        </ul>
        <figcaption className="mt-4 text-sm opacity-80">What each issue holds.</figcaption>
      </figure>
    );
  }
  return (
    <article
      aria-labelledby="hero-issue-title"
      className="overflow-hidden rounded-brand border border-black/10 bg-surface shadow-lg"
    >
      {issue.cover ? (
        <ResponsivePicture
          picture={issue.cover}
          sizes="(min-width: 64rem) 26rem, 100vw"
          className="aspect-[16/9] w-full object-cover"
          eager
        />
      ) : (
        <div aria-hidden="true" className="h-3 bg-brand" />
      )}
      <div className="p-6">
        <p className="text-sm font-semibold uppercase tracking-wider text-brand-strong">
          The latest issue
        </p>
        <h2 id="hero-issue-title" className="mt-2 text-2xl font-bold leading-snug">
          {issue.title}
        </h2>
        <p className="mt-1 text-sm opacity-90">
          <time dateTime={issue.date}>{formatDate(issue.date)}</time>
          {` · ${issue.readTime} min read`}
        </p>
        <p className="mt-3 line-clamp-4 leading-relaxed">{issue.excerpt}</p>
        <Link to={`/newsletter/${issue.slug}`} className="mt-4 inline-block font-semibold">
          Read the issue<span className="sr-only">: {issue.title}</span> →
        </Link>
      </div>
    </article>
  );
}
