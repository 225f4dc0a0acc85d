import { ArchiveSection } from "../../components/newsletter-archive";
import { SubscribeBox } from "../../components/subscribe-box";
import { Container, PageHero, TextCards } from "../../components/ui/layout";
import { archiveListMeta } from "../../lib/meta";
import type { Route } from "./+types/index";

export { loader } from "./index.server";

export const meta: Route.MetaFunction = (args) =>
  archiveListMeta(args, {
    title: "The newsletter",
    description:
      "A weekly briefing on eDiscovery, defensible AI-assisted review and legal-technology strategy, written for general counsel and litigation-support leaders.",
    page: args.loaderData?.page ?? 1,
  });

const PROMISES = [
  {
    title: "What you get",
    text: "One issue a week: a lead essay, three developments worth your attention, and one practical takeaway your team can use on Monday.",
  },
  {
    title: "Who writes it",
    text: "Practitioners who have run reviews, negotiated ESI protocols and built the workflows they write about.",
  },
  {
    title: "Your inbox, your rules",
    text: "Choose the lists you want and change or cancel your subscription at any time from the link in every email.",
  },
];

export default function NewsletterIndex({ loaderData }: Route.ComponentProps) {
  return (
    <main>
      <PageHero
        eyebrow="Newsletter"
        title="Insights on legal technology, every week"
        lead="Practical analysis of eDiscovery, AI-assisted review, information governance and the rules that shape them — in five minutes a week."
      />
      <Container className="py-14">
        <h2 className="sr-only">What you get</h2>
        <TextCards items={PROMISES} columns="md:grid-cols-3" />
        <div className="mt-14">
          <ArchiveSection
            heading="Latest issues"
            archive={loaderData}
            path="/newsletter"
            aside={<SubscribeBox signup={loaderData.signup} />}
            empty="No newsletters have been published yet."
          />
        </div>
      </Container>
    </main>
  );
}
