import type { SubmissionResult } from "@conform-to/react";
import { useId } from "react";
import type { Comment } from "../../server/newsletters/comments";
import { formatCount } from "../../shared/format";
import { COMMENT_MAX_LENGTH } from "../../shared/schemas/comment";
import { Kept } from "../lib/page-scripts";
import { CommentItem } from "./comment-item";
import { FieldErrors, FormAlert, Honeypot, SubmitButton, TextArea } from "./ui/form";
import { type SubmittedData, submitted, submittedData } from "./ui/submitted";

/** What the article's action answered to the last comment (app/routes/newsletter/detail.server.ts). */
type CommentReply = { result: SubmissionResult<string[]> };
type Comments = Comment[];

/** The items of the comment list; `moderation` is where staff's buttons return to. */
export function commentItems(comments: Comments, moderation: string | null) {
  return comments.map((comment) => (
    <CommentItem key={comment.id} comment={comment} moderation={moderation} />
  ));
}

/**
 * A newsletter's comments and the form to add one (SPEC §2 Newsletter detail). The article ships
 * no JavaScript (decision 021): the form posts the page, the action checks the comment, and the
 * page comes back with the new list, or with the errors beside what was typed. No form library:
 * it would render the same markup at a cost on every view of the article.
 */
export function CommentsSection({
  newsletterSlug,
  comments,
  commentCount,
  commentsShown,
  canModerate,
  reply,
  posted,
  listMarkup,
}: {
  /** the article's current slug: comments post to its page */
  newsletterSlug: string;
  comments: Comments;
  commentCount: number;
  commentsShown: number;
  canModerate: boolean;
  reply: CommentReply | undefined;
  /** the last answer is a comment just posted */
  posted: boolean;
  /** the list's items already rendered, for these comments (app/lib/markup.server.ts) */
  listMarkup: string | null;
}) {
  const id = useId();

  return (
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
        ) : listMarkup !== null ? (
          <ol
            className="mt-6 space-y-4"
            // biome-ignore lint/security/noDangerouslySetInnerHtml: React's own markup of these comments
            dangerouslySetInnerHTML={{ __html: listMarkup }}
          />
        ) : (
          <ol className="mt-6 space-y-4">
            {commentItems(comments, canModerate ? `/newsletter/${newsletterSlug}#comments` : null)}
          </ol>
        )}
        {comments.length >= commentsShown ? (
          <p className="mt-4 text-sm">Showing the {commentsShown} most recent comments.</p>
        ) : null}

        <Kept
          as="form"
          props={{
            method: "post",
            action: `/newsletter/${newsletterSlug}`,
            id,
            // The action's messages are the contract (SPEC's texts), not the browser's: it checks.
            noValidate: true,
            className:
              "relative mt-10 rounded-brand border border-black/10 bg-surface p-5 shadow-sm sm:p-6",
          }}
          part={CommentFormFields}
          data={{ id, result: submittedData(reply?.result), posted }}
          // Until someone submits it, the form is the same for every reader of every article.
          keep={!reply && !posted}
        />
      </div>
    </section>
  );
}

/** The comment form's fields: its id, what was sent and whether it was posted are all it shows. */
function CommentFormFields({
  id,
  result,
  posted,
}: {
  id: string;
  result: SubmittedData | null;
  posted: boolean;
}) {
  const { errors, field, value, formErrorId } = submitted(id, result);
  const text = field("text", { hint: true });
  return (
    <>
      <h3 className="text-lg font-semibold">Leave a comment</h3>
      <FormAlert id={formErrorId} errors={errors("")} className="mt-4" />
      <label htmlFor={text.id} className="sr-only">
        Your comment
      </label>
      <TextArea
        {...text}
        defaultValue={value("text")}
        rows={4}
        maxLength={COMMENT_MAX_LENGTH}
        placeholder="Share your thoughts..."
        className="mt-4"
      />
      <FieldErrors id={`${text.id}-error`} errors={errors("text")} />
      <p id={`${text.id}-hint`} className="mt-2 text-sm opacity-80">
        Comments are posted as Anonymous, up to {formatCount(COMMENT_MAX_LENGTH)} characters.
      </p>
      <Honeypot />
      <div className="mt-4 flex flex-wrap items-center gap-4">
        <SubmitButton>Post Comment</SubmitButton>
        <p role="status" className="text-sm font-medium text-ok">
          {posted ? "Your comment has been posted." : ""}
        </p>
      </div>
    </>
  );
}
