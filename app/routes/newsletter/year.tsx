import { NewsletterErrorPage } from "../../components/error-page";
import { ArchiveSection, yearPath } from "../../components/newsletter-archive";
import { SubscribeBox } from "../../components/subscribe-box";
import { Container, PageHero } from "../../components/ui/layout";
import { FEED_LINK, pageMeta } from "../../lib/meta";
import type { Route } from "./+types/year";

export { loader } from "./year.server";

export const meta: Route.MetaFunction = (args) => {
  const data = args.loaderData;
  if (!data) return [{ title: "No newsletters this year" }, { name: "robots", content: "noindex" }];
  return [
    ...pageMeta(args, {
      title: `Newsletters of ${data.year}${data.page > 1 ? ` — page ${data.page}` : ""}`,
      description: `Every newsletter issue published in ${data.year}.`,
      page: data.page,
    }),
    FEED_LINK,
  ];
};

export default function YearPage({ loaderData }: Route.ComponentProps) {
  const { year, total } = loaderData;
  return (
    <main>
      <PageHero
        eyebrow="Newsletter archive"
        title={`Newsletters of ${year}`}
        lead={`${total} ${total === 1 ? "issue" : "issues"} published in ${year}.`}
      />
      <Container className="py-14">
        <ArchiveSection
          heading={`Issues of ${year}`}
          archive={loaderData}
          path={yearPath(year)}
          currentYear={year}
          aside={<SubscribeBox signup={loaderData.signup} />}
          empty={`No issues were published in ${year}.`}
        />
      </Container>
    </main>
  );
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  return (
    <NewsletterErrorPage
      error={error}
      notFound={{
        title: "No newsletters this year",
        text: "No newsletter was published in that year.",
      }}
      failure="The list could not be loaded. Please try again later."
    />
  );
}
