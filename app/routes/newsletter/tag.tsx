import { NewsletterErrorPage } from "../../components/error-page";
import { ArchiveSection, tagPath } from "../../components/newsletter-archive";
import { SubscribeBox } from "../../components/subscribe-box";
import { Container, PageHero } from "../../components/ui/layout";
import { FEED_LINK, pageMeta } from "../../lib/meta";
import type { Route } from "./+types/tag";

export { loader } from "./tag.server";

export const meta: Route.MetaFunction = (args) => {
  const data = args.loaderData;
  if (!data) return [{ title: "Tag not found" }, { name: "robots", content: "noindex" }];
  const title = `${data.tag.name}${data.page > 1 ? ` — page ${data.page}` : ""}`;
  return [
    ...pageMeta(args, {
      title,
      description: `Newsletter issues about ${data.tag.name}.`,
      page: data.page,
    }),
    FEED_LINK,
  ];
};

export default function TagPage({ loaderData }: Route.ComponentProps) {
  const { tag, total } = loaderData;
  return (
    <main>
      <PageHero
        eyebrow="Newsletter tag"
        title={tag.name}
        lead={`${total} ${total === 1 ? "issue" : "issues"} about ${tag.name}.`}
      />
      <Container className="py-14">
        <ArchiveSection
          heading={`Issues tagged “${tag.name}”`}
          archive={loaderData}
          path={tagPath(tag.slug)}
          currentTag={tag.slug}
          aside={<SubscribeBox signup={loaderData.signup} />}
          empty="No published issues have this tag."
        />
      </Container>
    </main>
  );
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  return (
    <NewsletterErrorPage
      error={error}
      notFound={{ title: "Tag not found", text: "No published newsletter has this tag." }}
      failure="The list could not be loaded. Please try again later."
    />
  );
}
