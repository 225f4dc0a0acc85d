import { data } from "react-router";
import { scopeOf } from "../../../server/http/context";
import { newsletterOfPreviewLink } from "../../../server/newsletters/previews";
import { previewArticle } from "../../../server/newsletters/reading";
import { signupFormData } from "../../../server/subscribers/signup-form-data";
import { PREVIEW_GONE } from "../../../shared/newsletters";
import type { Route } from "./+types/preview";

/** /newsletter/preview/{token}: a draft for a reviewer without an account (a signed, 7-day link). */
export async function loader({ params, context }: Route.LoaderArgs) {
  const scope = scopeOf(context);
  const found = await newsletterOfPreviewLink(scope, params.token);
  if (!found) throw data({ message: PREVIEW_GONE }, { status: 404 });
  return {
    article: await previewArticle(scope, found.newsletter),
    published: found.newsletter.status === "published" ? found.newsletter.slug : null,
    expiresAt: found.expiresAt,
    signup: await signupFormData(context),
  };
}
