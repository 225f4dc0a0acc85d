import { requireTenantAccess } from "../../../server/auth/guards";
import {
  LINK_PREVIEWS_RATE_LIMITED,
  LinkPreviewError,
  readLinkPreview,
  takeLinkPreviewAllowance,
} from "../../../server/content/link-preview";
import { getEnv } from "../../../server/env";
import { scopeOf } from "../../../server/http/context";
import { z } from "../../../shared/zod";
import type { Route } from "./+types/link-preview";

const previewRequest = z.object({ url: z.string().trim().min(1).max(2048) });

/**
 * POST /admin/link-preview (a form with `url`): a page's title, description and image for a bookmark
 * card, `{ title, description, image }`, or `{ error }` when the page cannot be read (422) or the
 * staff member asked for too many (429: 60 per 10 minutes).
 */
export async function action({ request, context }: Route.ActionArgs) {
  const user = requireTenantAccess(context);
  const scope = scopeOf(context);
  if (request.method !== "POST") {
    return Response.json({ error: "Use POST." }, { status: 405, headers: { Allow: "POST" } });
  }
  const form = await request.formData();
  const parsed = previewRequest.safeParse({ url: form.get("url") });
  if (!parsed.success) {
    return Response.json(
      { error: "Send the page's web address (at most 2,048 characters) as url." },
      { status: 400 },
    );
  }
  if (!(await takeLinkPreviewAllowance(scope.tenantId, user.id))) {
    return Response.json({ error: LINK_PREVIEWS_RATE_LIMITED }, { status: 429 });
  }
  try {
    const preview = await readLinkPreview(parsed.data.url, {
      allowPrivate: getEnv().IMPORT_ALLOW_PRIVATE_HOSTS === "true",
    });
    return Response.json(preview);
  } catch (error) {
    if (error instanceof LinkPreviewError) {
      scope.logger.info({ url: parsed.data.url, reason: error.message }, "link preview refused");
      return Response.json({ error: error.message }, { status: 422 });
    }
    throw error;
  }
}

export function loader({ context }: Route.LoaderArgs) {
  requireTenantAccess(context);
  return Response.json({ error: "Use POST." }, { status: 405, headers: { Allow: "POST" } });
}
