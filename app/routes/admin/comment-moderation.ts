import { redirect } from "react-router";
import { requireTenantAccess } from "../../../server/auth/guards";
import { safeRedirectPath } from "../../../server/auth/permissions";
import { scopeOf } from "../../../server/http/context";
import { deleteComment, setCommentHidden } from "../../../server/newsletters/comments";
import { z } from "../../../shared/zod";
import type { Route } from "./+types/comment-moderation";

/** Comment ids are serial integers (PostgreSQL `serial`: at most 2^31 - 1). */
const commentIdSchema = z.coerce.number().int().min(1).max(2_147_483_647);

const moderationSchema = z.object({
  intent: z.enum(["hide", "unhide", "delete"]),
  redirectTo: z.string().max(2000).optional(),
});

/** POST only: the buttons on the newsletter page post here. */
export function loader() {
  return new Response("Method Not Allowed", { status: 405, headers: { Allow: "POST" } });
}

/** Staff hide, show again or delete a comment of this site's tenant (DESIGN.md §7.8). */
export async function action({ params, request, context }: Route.ActionArgs) {
  const user = requireTenantAccess(context);
  const scope = scopeOf(context);
  const form = moderationSchema.safeParse(Object.fromEntries(await request.formData()));
  if (!form.success) return new Response("Bad Request", { status: 400 });
  const id = commentIdSchema.safeParse(params.id);
  if (!id.success) return new Response("Comment not found", { status: 404 });
  const { intent, redirectTo } = form.data;
  const found =
    intent === "delete"
      ? await deleteComment(scope, id.data)
      : await setCommentHidden(scope, id.data, intent === "hide");
  if (!found) return new Response("Comment not found", { status: 404 });
  scope.logger.info({ commentId: id.data, intent, userId: user.id }, "comment moderated");
  return redirect(safeRedirectPath(redirectTo) ?? "/admin/dashboard");
}
