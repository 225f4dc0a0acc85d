import { getFormProps, getTextareaProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import type { FormEvent } from "react";
import type { useFetcher } from "react-router";
import { COMMENT_MAX_LENGTH, commentFormSchema } from "../../shared/schemas/comment";
import type { action } from "../routes/newsletter/detail.server";
import { CommentItem } from "./comment-item";
import { useHydrated } from "./subscription-page";
import { FieldErrors, FormAlert, Honeypot, SubmitButton, TextArea } from "./ui/form";

type CommentFetcher = ReturnType<typeof useFetcher<typeof action>>;
type CommentReply = NonNullable<CommentFetcher["data"]>;
type Comments = Extract<CommentReply, { ok: true }>["comments"];

/**
 * A newsletter's comments and the form to add one (SPEC §2 Newsletter detail). Posting goes
 * through `fetcher` (the page keeps its place and shows the new list); without JavaScript the
 * form posts the page and the answer comes back as `reply` all the same.
 */
export function CommentsSection({
  newsletterSlug,
  comments,
  commentCount,
  commentsShown,
  canModerate,
  fetcher,
  reply,
  posted,
}: {
  /** the article's current slug: comments post to its page */
  newsletterSlug: string;
  comments: Comments;
  commentCount: number;
  commentsShown: number;
  canModerate: boolean;
  fetcher: CommentFetcher;
  reply: CommentReply | undefined;
  /** the last answer is a comment just posted */
  posted: boolean;
}) {
  const hydrated = useHydrated();
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
                moderation={canModerate ? `/newsletter/${newsletterSlug}#comments` : null}
              />
            ))}
          </ol>
        )}
        {comments.length >= commentsShown ? (
          <p className="mt-4 text-sm">Showing the {commentsShown} most recent comments.</p>
        ) : null}

        <fetcher.Form
          method="post"
          action={`/newsletter/${newsletterSlug}`}
          className="relative mt-10 rounded-brand border border-black/10 bg-surface p-5 shadow-sm sm:p-6"
          {...formProps}
          onSubmit={onSubmit}
        >
          <h3 className="text-lg font-semibold">Leave a comment</h3>
          <FormAlert id={form.errorId} errors={form.errors} className="mt-4" />
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
              {fetcher.state === "idle" && posted ? "Your comment has been posted." : ""}
            </p>
          </div>
        </fetcher.Form>
      </div>
    </section>
  );
}
