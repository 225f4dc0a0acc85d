import { requireTenantAccess } from "../../../server/auth/guards";
import { scopeOf } from "../../../server/http/context";
import { LlmError } from "../../../server/llm/client";
import {
  DRAFTS_RATE_LIMITED,
  draftLinkedInPost,
  suggestSubjectLines,
  takeDraftAllowance,
} from "../../../server/llm/drafts";
import { z } from "../../../shared/zod";
import type { Route } from "./+types/newsletter-assist";

const assistRequest = z.object({ intent: z.enum(["subject", "linkedin"]) });

const postOnly = () =>
  Response.json({ error: "Use POST." }, { status: 405, headers: { Allow: "POST" } });

/**
 * POST /admin/newsletter/assist/:id (a form with intent=subject|linkedin): drafts in the leader's
 * voice (decision 047). `{ suggestions: string[] }` or `{ draft: string }`; `{ error }` with a
 * plain sentence when drafting is off, the model fails or is slow, or the staff member asked for
 * too many. Nothing is saved: the page puts the text into its editable field.
 */
export async function action({ request, params, context }: Route.ActionArgs) {
  const user = requireTenantAccess(context);
  if (request.method !== "POST") return postOnly();
  const scope = scopeOf(context);
  const parsed = assistRequest.safeParse({ intent: (await request.formData()).get("intent") });
  if (!parsed.success) {
    return Response.json({ error: "Ask for subject or linkedin as intent." }, { status: 400 });
  }
  if (!(await takeDraftAllowance(scope.tenantId, user.id))) {
    return Response.json({ error: DRAFTS_RATE_LIMITED }, { status: 429 });
  }
  try {
    if (parsed.data.intent === "subject") {
      return Response.json({ suggestions: await suggestSubjectLines(scope, params.id) });
    }
    return Response.json({ draft: await draftLinkedInPost(scope, params.id) });
  } catch (error) {
    if (error instanceof LlmError) {
      scope.logger.info(
        { newsletterId: params.id, intent: parsed.data.intent, reason: error.message },
        "draft not made",
      );
      return Response.json({ error: error.message }, { status: error.status });
    }
    throw error;
  }
}

export function loader({ context }: Route.LoaderArgs) {
  requireTenantAccess(context);
  return postOnly();
}
