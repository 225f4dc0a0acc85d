import { Form } from "react-router";
import type { Comment } from "../../server/newsletters/comments";
import { formatDate } from "../../shared/format";

const moderationButton =
  "rounded-brand border border-black/20 px-3 py-1 text-sm font-medium hover:bg-black/5";

/** One comment: plain text (never HTML), line breaks kept; staff see moderation buttons. */
export function CommentItem({
  comment,
  moderation,
}: {
  comment: Comment;
  moderation: string | null;
}) {
  const action = `/admin/comments/${comment.id}`;
  return (
    <li
      id={`comment-${comment.id}`}
      className={`rounded-brand border bg-surface p-4 shadow-sm sm:p-5 ${
        comment.hidden ? "border-dashed border-black/30 opacity-80" : "border-black/10"
      }`}
    >
      <p className="flex flex-wrap items-center gap-x-2 text-sm">
        <span className="font-semibold">{comment.author}</span>
        <span aria-hidden="true">·</span>
        <time dateTime={comment.date}>{formatDate(comment.date)}</time>
        {comment.hidden ? (
          <span className="rounded-full bg-black/10 px-2 py-0.5 text-xs font-semibold uppercase tracking-wide">
            Hidden
          </span>
        ) : null}
      </p>
      <p className="mt-2 whitespace-pre-line break-words leading-relaxed">{comment.text}</p>
      {moderation ? (
        <div className="mt-3 flex flex-wrap items-start gap-2">
          <Form method="post" action={action}>
            <input type="hidden" name="redirectTo" value={moderation} />
            <button
              type="submit"
              name="intent"
              value={comment.hidden ? "unhide" : "hide"}
              className={moderationButton}
            >
              {comment.hidden ? "Unhide" : "Hide"}
              <span className="sr-only"> this comment</span>
            </button>
          </Form>
          <details className="group">
            <summary className={`${moderationButton} w-fit cursor-pointer list-none text-danger`}>
              <span className="group-open:hidden">Delete</span>
              <span className="hidden group-open:inline">Cancel delete</span>
              <span className="sr-only"> this comment</span>
            </summary>
            <Form method="post" action={action} className="mt-2 flex flex-wrap items-center gap-2">
              <input type="hidden" name="redirectTo" value={moderation} />
              <span className="text-sm">Delete this comment for good?</span>
              <button
                type="submit"
                name="intent"
                value="delete"
                className="rounded-brand bg-danger px-3 py-1 text-sm font-semibold text-white hover:opacity-90"
              >
                Confirm delete
              </button>
            </Form>
          </details>
        </div>
      ) : null}
    </li>
  );
}
