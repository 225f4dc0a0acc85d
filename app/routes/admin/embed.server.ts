// The loader and action of embed.tsx.
import { parseWithZod } from "@conform-to/zod/v4";
import { data, redirect } from "react-router";
import { requireTenantAccess } from "../../../server/auth/guards";
import { scopeOf } from "../../../server/http/context";
import { embedFormUrl, embedIframe, embedSnippet } from "../../../server/subscribers/embed";
import { signupFormData } from "../../../server/subscribers/signup-form-data";
import { saveEmbedSites } from "../../../server/tenants/admin";
import { EMBED_MESSAGES, embedSitesSchema } from "../../../shared/schemas/embed";
import type { Route } from "./+types/embed";

/** /admin/embed — the tenant's sign-up form for other sites: the code to paste, and where it may go. */
export async function loader({ url, context }: Route.LoaderArgs) {
  requireTenantAccess(context);
  const scope = scopeOf(context);
  const form = await signupFormData(context);
  return {
    sites: scope.tenant.embedOrigins,
    snippet: embedSnippet(scope, form),
    iframe: embedIframe(scope),
    // The frame as visitors see it, from this site (its frame-ancestors include 'self').
    preview: ((url) => `${url.pathname}${url.search}`)(new URL(embedFormUrl(scope))),
    notice: url.searchParams.get("saved") === "1" ? EMBED_MESSAGES.saved : null,
  };
}

export async function action({ request, context }: Route.ActionArgs) {
  const user = requireTenantAccess(context);
  const formData = await request.formData();
  const submission = parseWithZod(formData, { schema: embedSitesSchema });
  if (submission.status !== "success") {
    const errors = Object.values(submission.error ?? {}).flatMap((messages) => messages ?? []);
    return data({ errors, sites: String(formData.get("sites") ?? "") }, { status: 400 });
  }
  const { db, tenant, logger } = scopeOf(context);
  await saveEmbedSites(db, user.email, tenant.id, submission.value.sites);
  logger.info({ tenantId: tenant.id, actor: user.id }, "embed form sites saved");
  throw redirect("/admin/embed?saved=1", 303);
}
