import { Form, useNavigation } from "react-router";
import { LINKEDIN_MAX, SHORT_MAX } from "../../../shared/schemas/social";
import { LinkedInDraftButton } from "../../components/admin/draft-assist";
import { PackImages, PostField } from "../../components/admin/social-pack";
import { AdminPage, AdminSection, BackLink } from "../../components/admin-header";
import { IntentButton } from "../../components/ui/confirm";
import { FormAlert, FormNotice, outlineLinkClass, SubmitButton } from "../../components/ui/form";
import { noindexMeta } from "../../lib/meta";
import type { Route } from "./+types/newsletter-social";

export { action, loader } from "./newsletter-social.server";

export const meta: Route.MetaFunction = ({ loaderData }) =>
  noindexMeta(loaderData ? `Social pack: ${loaderData.title}` : "Social pack");

export function headers() {
  return { "Cache-Control": "private, no-store" };
}

/** The two posts' fields. */
const POSTS = [
  {
    id: "social-linkedin",
    name: "linkedIn",
    label: "LinkedIn post",
    hint: "The hook, three points, the link (utm_source=linkedin) and hashtags from the tags.",
    max: LINKEDIN_MAX,
    rows: 14,
  },
  {
    id: "social-short",
    name: "short",
    label: "Short post",
    hint: "For X, Bluesky or Mastodon: the title, the link (utm_source=x) and two hashtags.",
    max: SHORT_MAX,
    rows: 4,
  },
] as const;

/**
 * A newsletter's social pack (issue 36): the LinkedIn post and the short post, editable, and the
 * images, with the whole pack as one zip. The posts' form posts intent=save with `linkedIn` and
 * `short`; "Reset to generated" posts intent=reset.
 */
export default function SocialPack({ loaderData, actionData }: Route.ComponentProps) {
  const busy = useNavigation().state === "submitting";
  const { id, texts, images } = loaderData;
  return (
    <AdminPage title="Social pack" width="wide" className="space-y-8">
      <BackLink to={`/admin/newsletter/edit/${id}`}>Back to the editor</BackLink>
      <div className="space-y-2">
        <h2 className="text-2xl font-bold">{loaderData.title}</h2>
        <p>
          Posts and pictures to share this newsletter, in your site's colours.
          {loaderData.status === "published"
            ? ""
            : " It is a draft: its link works once it is published."}
        </p>
        {/* Each link a block of its own: inline, a phone's narrow row broke them mid-button. */}
        <div className="flex flex-wrap gap-3 pt-2">
          <a href={`/admin/newsletter/social/${id}/pack.zip`} download className={outlineLinkClass}>
            Download the pack (.zip)
          </a>
          <a href={`/admin/linkedin?newsletter=${id}`} className={outlineLinkClass}>
            Post it on LinkedIn
          </a>
        </div>
      </div>
      <FormNotice message={actionData ? null : loaderData.notice} />
      <AdminSection id="social-posts-heading" title="Posts">
        <p className="mt-2">
          {texts.edited
            ? "Your own words, kept as you saved them."
            : "Made from the newsletter: its headings, tags and link. They follow the newsletter until you save your own words."}
        </p>
        {loaderData.llmOn ? (
          <div className="mt-3">
            <LinkedInDraftButton newsletterId={id} fieldId="social-linkedin" />
          </div>
        ) : null}
        <FormAlert errors={actionData?.errors} className="mt-3" />
        <Form method="post" className="mt-3 space-y-4" noValidate id="social-posts">
          <input type="hidden" name="intent" value="save" />
          {POSTS.map((post) => (
            <PostField
              // Remounted with the saved (or made again) text after a save or a reset.
              key={`${post.name}-${texts[post.name]}`}
              {...post}
              defaultValue={actionData?.[post.name] ?? texts[post.name]}
              invalid={Boolean(actionData?.invalid.includes(post.name))}
            />
          ))}
          <SubmitButton disabled={busy}>Save posts</SubmitButton>
        </Form>
        {texts.edited ? (
          <div className="mt-4">
            <IntentButton intent="reset">Reset to generated</IntentButton>
          </div>
        ) : null}
      </AdminSection>
      <AdminSection id="social-images-heading" title="Images">
        <p className="mt-2">
          Select an image to download it. Quote cards come from the newsletter's quotes.
        </p>
        <PackImages images={images} />
      </AdminSection>
    </AdminPage>
  );
}
