import { ButtonLink, Card, Container, PageHero } from "../../components/ui/layout";
import { pageMeta } from "../../lib/meta";
import type { Route } from "./+types/index";

export const meta: Route.MetaFunction = (args) =>
  pageMeta(args, {
    title: "The newsletter",
    description:
      "A weekly briefing on eDiscovery, defensible AI-assisted review and legal-technology strategy, written for general counsel and litigation-support leaders.",
  });

/**
 * The reading room. Until publishing arrives (issue #3) and sign-up (issue #4), it says what the
 * newsletter is and where to ask for it.
 */
export default function NewsletterIndex() {
  return (
    <main>
      <PageHero
        eyebrow="Newsletter"
        title="Insights on legal technology, every week"
        lead="Practical analysis of eDiscovery, AI-assisted review, information governance and the rules that shape them — in five minutes a week."
      />
      <Container className="py-14">
        <div className="grid gap-6 md:grid-cols-3">
          <Card title="What you get">
            One issue a week: a lead essay, three developments worth your attention, and one
            practical takeaway your team can use on Monday.
          </Card>
          <Card title="Who writes it">
            Practitioners who have run reviews, negotiated ESI protocols and built the workflows
            they write about.
          </Card>
          <Card title="Your inbox, your rules">
            Choose the lists you want and change or cancel your subscription at any time from the
            link in every email.
          </Card>
        </div>
        <section aria-labelledby="issues-heading" className="mt-14">
          <h2 id="issues-heading" className="text-2xl font-bold">
            Latest issues
          </h2>
          <p className="mt-3 text-lg">
            Published issues appear here. Online subscription opens shortly; until then, ask us to
            add you to the list.
          </p>
          <div className="mt-6">
            <ButtonLink to="/contact">Ask to join the list</ButtonLink>
          </div>
        </section>
      </Container>
    </main>
  );
}
