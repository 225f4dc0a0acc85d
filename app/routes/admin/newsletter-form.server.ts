import { getZodConstraint, parseWithZod } from "@conform-to/zod/v4";
import { data, redirect } from "react-router";
import { requireTenantAccess } from "../../../server/auth/guards";
import { scopeOf } from "../../../server/http/context";
import {
  autosaveNewsletterDraft,
  createNewsletter,
  updateNewsletter,
} from "../../../server/newsletters/editing";
import {
  CoverImageNotFoundError,
  NewsletterNotFoundError,
  NewsletterSlugTakenError,
  ScheduleError,
} from "../../../server/newsletters/errors";
import { getNewsletter } from "../../../server/newsletters/listing";
import {
  estimateReadTime,
  newsletterInputSchema,
  readScheduleForm,
} from "../../../server/newsletters/newsletter-form";
import {
  deleteNewsletter,
  publishNewsletter,
  revokePreviewKey,
  scheduleNewsletter,
  unpublishNewsletter,
  unscheduleNewsletter,
} from "../../../server/newsletters/newsletters";
import { createPreviewLink } from "../../../server/newsletters/previews";
import { listTags, type Tag, tagsOfNewsletters } from "../../../server/newsletters/tags";
import { formatDateTime } from "../../../shared/format";
import { NEWSLETTER_NOT_FOUND as NOT_FOUND } from "../../../shared/newsletters";
import { utcToZonedLocal } from "../../../shared/time-zone";
import { z } from "../../../shared/zod";
import type { Route } from "./+types/newsletter-form";

const SAVE_FAILED = "Failed to save newsletter";

const NOTICES = {
  saved: "Newsletter saved",
  published: "Newsletter saved and published",
  unpublished: "Newsletter unpublished: it is a draft again",
  scheduled: "Newsletter saved and scheduled",
  unscheduled: "Schedule cancelled: the newsletter stays a draft",
  revoked: "Every share link of this newsletter stopped working",
} as const;
type Notice = keyof typeof NOTICES;

const intentSchema = z
  .enum([
    "save",
    "publish",
    "publish-send",
    "unpublish",
    "delete",
    "autosave",
    "schedule",
    "unschedule",
    "share",
    "revoke-share",
  ])
  .catch("save");

type Intent = z.infer<typeof intentSchema>;

const editPath = (id: string) => `/admin/newsletter/edit/${id}`;
const sendPath = (id: string) => `/admin/newsletter/send/${id}`;
const notFound = () => data({ message: NOT_FOUND }, { status: 404 });

export async function loader({ url, context, params }: Route.LoaderArgs) {
  requireTenantAccess(context);
  const scope = scopeOf(context);
  const search = url.searchParams;
  const id = "id" in params ? params.id : null;
  const newsletter = id ? await getNewsletter(scope, id) : null;
  if (id && !newsletter) throw notFound();
  const [tags, suggestions] = await Promise.all([
    newsletter ? tagsOfNewsletters(scope, [newsletter.id]) : new Map<string, Tag[]>(),
    listTags(scope),
  ]);
  const notice = search.get("notice");
  return {
    // The schema lives on the server; the browser gets its constraints (required, min, max…).
    constraint: getZodConstraint(newsletterInputSchema),
    newsletter: newsletter && {
      id: newsletter.id,
      slug: newsletter.slug,
      title: newsletter.title,
      excerpt: newsletter.excerpt,
      content: newsletter.content,
      // Blank in the form unless the writer set it: a counted read time follows the text.
      readTime:
        newsletter.readTime === estimateReadTime(newsletter.content) ? null : newsletter.readTime,
      status: newsletter.status,
      tags: (tags.get(newsletter.id) ?? []).map((tag) => tag.name).join(", "),
      coverImage: newsletter.coverImage ?? "",
      coverAlt: newsletter.coverAlt ?? "",
    },
    tagSuggestions: suggestions.map((tag) => tag.name),
    notice: notice && notice in NOTICES ? NOTICES[notice as Notice] : null,
    schedule: {
      timeZone: scope.tenant.timeZone,
      at: newsletter?.scheduledAt ?? null,
      atText: newsletter?.scheduledAt
        ? formatDateTime(newsletter.scheduledAt, scope.tenant.timeZone)
        : null,
      // The field's value: the scheduled time, else the next full hour, as the tenant's clock reads.
      local: utcToZonedLocal(
        newsletter?.scheduledAt ??
          new Date(Math.ceil(Date.now() / 3_600_000) * 3_600_000).toISOString(),
        scope.tenant.timeZone,
      ),
      send: newsletter?.scheduledSend ?? false,
      list: scope.tenant.emailGroups.default,
    },
    sharing: newsletter?.sharing ?? false,
    confirmDelete: Boolean(newsletter) && search.get("confirmDelete") === "1",
  };
}

export async function action({ request, context, params }: Route.ActionArgs) {
  const user = requireTenantAccess(context);
  const scope = scopeOf(context);
  const id = "id" in params ? params.id : null;
  const formData = await request.formData();
  const intent: Intent = intentSchema.parse(formData.get("intent"));
  const submission = parseWithZod(formData, { schema: newsletterInputSchema });

  try {
    // Every query below is scoped to this site's tenant: another tenant's id is "not found".
    const existing = id ? await getNewsletter(scope, id) : null;
    if (id && !existing) throw new NewsletterNotFoundError(id);

    if (intent === "share" || intent === "revoke-share" || intent === "unschedule") {
      if (!id) return data({ error: "Save the newsletter first." }, { status: 400 });
      if (intent === "unschedule") {
        await unscheduleNewsletter(scope, id);
        return redirect(`${editPath(id)}?notice=unscheduled`);
      }
      if (intent === "revoke-share") {
        await revokePreviewKey(scope, id);
        return redirect(`${editPath(id)}?notice=revoked`);
      }
      const link = await createPreviewLink(scope, id);
      if (!link) throw new NewsletterNotFoundError(id);
      return { share: { url: `${scope.origin}${link.path}`, expiresAt: link.expiresAt } };
    }

    if (intent === "unpublish" || intent === "delete") {
      if (!id) return data({ error: "Save the newsletter first." }, { status: 400 });
      if (intent === "delete") {
        await deleteNewsletter(scope, id);
        scope.logger.info({ newsletterId: id }, "newsletter deleted");
        return redirect("/admin/dashboard");
      }
      await unpublishNewsletter(scope, id);
      return redirect(`${editPath(id)}?notice=unpublished`);
    }

    if (intent === "autosave") {
      if (!id) return data({ autosave: { status: "error" as const } }, { status: 400 });
      // Invalid input is never stored: the page says what is missing instead.
      if (submission.status !== "success") {
        const errors = Object.values(submission.error ?? {}).flatMap((messages) => messages ?? []);
        return data({ autosave: { status: "invalid" as const, errors } }, { status: 400 });
      }
      return { autosave: { status: await autosaveNewsletterDraft(scope, id, submission.value) } };
    }

    if (submission.status !== "success") {
      return data({ result: submission.reply() }, { status: 400 });
    }
    // A schedule is checked before anything is saved: a refused one changes nothing.
    const schedule =
      intent === "schedule"
        ? readScheduleForm(formData, scope.tenant.timeZone, existing?.status ?? "draft")
        : null;
    if (schedule && "error" in schedule) {
      return data({ result: submission.reply(), scheduleError: schedule.error }, { status: 400 });
    }
    let newsletterId = id;
    if (newsletterId) {
      await updateNewsletter(scope, newsletterId, submission.value);
    } else {
      newsletterId = (await createNewsletter({ ...scope, authorId: user.id }, submission.value)).id;
      scope.logger.info({ newsletterId }, "newsletter created");
    }
    const publishing = intent === "publish" || intent === "publish-send";
    if (publishing) await publishNewsletter(scope, newsletterId);
    if (schedule) await scheduleNewsletter(scope, newsletterId, schedule);
    // Publish and send (issue 35): straight on to the send form; nothing is mailed before its review.
    if (intent === "publish-send") return redirect(sendPath(newsletterId));
    const done = publishing ? "published" : schedule ? "scheduled" : "saved";
    return redirect(`${editPath(newsletterId)}?notice=${done}`);
  } catch (error) {
    if (error instanceof NewsletterNotFoundError) throw notFound();
    if (error instanceof NewsletterSlugTakenError && submission.status === "success") {
      return data(
        { result: submission.reply({ fieldErrors: { slug: [error.message] } }) },
        { status: 400 },
      );
    }
    if (error instanceof ScheduleError) {
      return data({ result: submission.reply(), scheduleError: error.message }, { status: 400 });
    }
    if (error instanceof CoverImageNotFoundError && submission.status === "success") {
      if (intent === "autosave") {
        return data(
          { autosave: { status: "invalid" as const, errors: [error.message] } },
          { status: 400 },
        );
      }
      return data(
        { result: submission.reply({ fieldErrors: { coverImage: [error.message] } }) },
        { status: 400 },
      );
    }
    scope.logger.error({ err: error, newsletterId: id, intent }, "saving a newsletter failed");
    if (intent === "autosave") {
      return data({ autosave: { status: "error" as const } }, { status: 500 });
    }
    if (intent === "unpublish" || intent === "delete") {
      return data({ error: SAVE_FAILED }, { status: 500 });
    }
    // What was typed stays in the form for another try.
    return data({ result: submission.reply({ formErrors: [SAVE_FAILED] }) }, { status: 500 });
  }
}

/**
 * Autosave goes through the server action, but a failure it cannot report (the network is down)
 * must not replace the page, and the half-typed draft with it, by the error boundary.
 */
