import { parseWithZod } from "@conform-to/zod/v4";
import { createContext, data, redirect } from "react-router";
import { canManageTenant } from "../../../server/auth/permissions";
import { scopeOf, userContext } from "../../../server/http/context";
import {
  type AddCommentResult,
  addComment,
  COMMENT_RATE_LIMITED,
  commentRateLimit,
  getCommentThread,
} from "../../../server/newsletters/comments";
import { getPublishedNewsletterBySlug } from "../../../server/newsletters/listing";
import { COMMENTS_SHOWN, readNewsletter } from "../../../server/newsletters/reading";
import { shareCardUrl } from "../../../server/newsletters/share-card";
import { currentSlugFor } from "../../../server/newsletters/slugs";
import {
  classifyView,
  noteViewSource,
  viewOriginOf,
} from "../../../server/newsletters/view-sources";
import { signupFormData } from "../../../server/subscribers/signup-form-data";
import { NEWSLETTER_NOT_FOUND as NOT_FOUND } from "../../../shared/newsletters";
import { commentFormSchema } from "../../../shared/schemas/comment";
import { z } from "../../../shared/zod";
import { commentItems } from "../../components/newsletter-comments";
import { keptMarkup } from "../../lib/markup.server";
import { renderOnly } from "../../lib/render-only.server";
import type { Route } from "./+types/detail";

/** A slug (or an old id); anything else is not found, unqueried. */
const newsletterParamSchema = z.string().regex(/^[A-Za-z0-9_-]{1,120}$/);

function notFound() {
  return data({ message: NOT_FOUND }, { status: 404 });
}

/**
 * Set by this route's action. Without JavaScript, a comment that fails validation is answered by
 * rendering the page again in the same request: the loader then runs (as a GET) after the action,
 * and that render is not a new view.
 */
const commentActionRan = createContext<boolean>(false);

/** An old address (an earlier slug, or the id URLs had before slugs) moves for good. */
async function notFoundOrMoved(
  scope: Parameters<typeof currentSlugFor>[0],
  param: string,
  search = "",
) {
  const current = await currentSlugFor(scope, param);
  // The query goes along: its utm_source still says where the reader came from.
  const kept = new URLSearchParams(search);
  for (const key of [...kept.keys()]) if (!key.startsWith("utm_")) kept.delete(key);
  const query = kept.size > 0 ? `?${kept}` : "";
  return current && current !== param
    ? redirect(`/newsletter/${current}${query}`, 301)
    : notFound();
}

export async function loader({ params, request, context }: Route.LoaderArgs) {
  const slug = newsletterParamSchema.safeParse(params.id);
  if (!slug.success) throw notFound();
  const scope = scopeOf(context);
  const canModerate = canManageTenant(context.get(userContext), scope.tenantId);
  // SPEC §4: each load of the page is one view. HEAD requests and renders after an action are not.
  // The host may have counted this view already, to serve the page from its cache (page-views.ts).
  const countView =
    request.method === "GET" && !context.get(commentActionRan) && !scope.countedView;
  const reading = await readNewsletter(scope, slug.data, { countView, includeHidden: canModerate });
  if (!reading) throw await notFoundOrMoved(scope, slug.data, new URL(request.url).search);
  if (countView) {
    const origin = viewOriginOf(new URL(request.url).searchParams, {
      referer: request.headers.get("referer"),
      host: request.headers.get("host"),
    });
    noteViewSource(scope.db, scope.tenantId, reading.newsletter.id, classifyView(origin));
  }
  const newsletter = scope.countedView
    ? {
        ...reading.newsletter,
        metrics: { ...reading.newsletter.metrics, views: scope.countedView.views },
      }
    : reading.newsletter;
  return {
    newsletter: {
      id: newsletter.id,
      slug: newsletter.slug,
      title: newsletter.title,
      excerpt: newsletter.excerpt,
      date: newsletter.date,
      updatedAt: newsletter.updatedAt,
      readTime: newsletter.readTime,
      views: newsletter.metrics.views,
      comments: newsletter.metrics.comments,
      // The page has no scripts: what only its render reads stays out of the hydration data.
      html: renderOnly({ request, context }, reading.html),
      author: reading.author,
      tags: reading.tags,
      cover: reading.cover,
      shareCard: shareCardUrl(scope.origin, newsletter, scope.tenant.branding),
    },
    signup: renderOnly({ request, context }, await signupFormData(context)),
    comments: renderOnly({ request, context }, reading.comments),
    // Readers all see the same list until a comment changes it: rendered once per list. Staff's
    // list has moderation forms, which need the page's router: rendered with the page.
    commentsMarkup: canModerate
      ? null
      : renderOnly(
          { request, context },
          keptMarkup("comments", reading.comments, () => commentItems(reading.comments, null)),
        ),
    canModerate,
    commentsShown: COMMENTS_SHOWN,
    asOf: Date.now(),
  };
}

/**
 * After a comment is posted with JavaScript, the action answers with the new comment list itself:
 * revalidating this loader would count the reader's view a second time.
 */

export async function action({ params, request, context }: Route.ActionArgs) {
  context.set(commentActionRan, true);
  const slug = newsletterParamSchema.safeParse(params.id);
  if (!slug.success) throw notFound();
  const scope = scopeOf(context);
  const found = await getPublishedNewsletterBySlug(scope, slug.data);
  if (!found) throw await notFoundOrMoved(scope, slug.data);
  const id = { data: found.id };
  const submission = parseWithZod(await request.formData(), { schema: commentFormSchema });
  if (submission.status !== "success") {
    return data({ ok: false as const, result: submission.reply() }, { status: 400 });
  }
  const { text, website, enhanced } = submission.value;
  if (!(await commentRateLimit.take(`${scope.tenantId}:${scope.clientAddress}`))) {
    return data(
      { ok: false as const, result: submission.reply({ formErrors: [COMMENT_RATE_LIMITED] }) },
      { status: 429 },
    );
  }
  // A filled honeypot is a bot: it is answered like a person, and nothing is stored.
  let outcome: AddCommentResult | null = null;
  if (!website) {
    try {
      outcome = await addComment(scope, { newsletterId: id.data, text });
    } catch (error) {
      // SPEC §8: a comment failure is logged; the reader keeps what they typed.
      scope.logger.error({ err: error, newsletterId: id.data }, "comment failed");
      return data({ ok: false as const, result: submission.reply() }, { status: 500 });
    }
  }
  if (outcome?.status === "not-found") throw notFound();
  if (outcome?.status === "added") {
    scope.logger.info({ commentId: outcome.comment.id, newsletterId: id.data }, "comment added");
  }
  if (!enhanced) return redirect(`/newsletter/${found.slug}#comments`);
  const canModerate = canManageTenant(context.get(userContext), scope.tenantId);
  const thread = await getCommentThread(scope, id.data, {
    includeHidden: canModerate,
    limit: COMMENTS_SHOWN,
  });
  return {
    ok: true as const,
    result: submission.reply({ resetForm: true }),
    posted: outcome?.status === "added" || Boolean(website),
    comments: thread.comments,
    commentCount: thread.count,
    asOf: Date.now(),
  };
}

/** Per-reader HTML (view counts, moderation tools): never shared by caches. */
