import { data } from "react-router";
import { requireTenantAccess } from "../../../server/auth/guards";
import { scopeOf } from "../../../server/http/context";
import { getNewsletter } from "../../../server/newsletters/listing";
import { previewArticle } from "../../../server/newsletters/reading";
import { signupFormData } from "../../../server/subscribers/signup-form-data";
import { NEWSLETTER_NOT_FOUND as NOT_FOUND } from "../../../shared/newsletters";
import type { Route } from "./+types/newsletter-preview";

/** /admin/newsletter/preview/:id: the newsletter exactly as its public page will show it. */
export async function loader({ url, params, context }: Route.LoaderArgs) {
  requireTenantAccess(context);
  const scope = scopeOf(context);
  const newsletter = await getNewsletter(scope, params.id);
  if (!newsletter) throw data({ message: NOT_FOUND }, { status: 404 });
  return {
    id: newsletter.id,
    status: newsletter.status,
    article: await previewArticle(scope, newsletter),
    signup: await signupFormData(context),
    // ?frame=1: the page inside the phone-width frame, without the preview band.
    framed: url.searchParams.get("frame") === "1",
  };
}
