import {
  BulletList,
  ButtonLink,
  CallToAction,
  Card,
  PageHero,
  Section,
} from "../../components/ui/layout";
import { MARKETING_PAGES } from "../../content/marketing-pages";
import { pageMeta } from "../../lib/meta";
import type { Route } from "./+types/products";

export const meta: Route.MetaFunction = (args) => pageMeta(args, MARKETING_PAGES.products);

interface Product {
  id: string;
  name: string;
  shortName: string;
  description: string;
  details: string;
  audience: readonly string[];
  features: readonly string[];
}

const PRODUCTS: readonly Product[] = [
  {
    id: "newsletter-platform",
    name: "Multi-Tenant Newsletter Platform",
    shortName: "the Multi-Tenant Newsletter Platform",
    description:
      "The platform behind our executive-voice newsletters. Run one newsletter or several, for different brands, practice groups or product lines, each with its own branding, domain, sender and subscriber lists, all managed from one place.",
    details:
      "Each week it turns your leaders' voice model into a draft issue for their review, sends the approved issue by email, publishes it on LinkedIn and prepares a social pack of ready-to-post copy for the days that follow.",
    audience: [
      "eDiscovery providers and legal-technology vendors with more than one brand or audience",
      "Firms that want the weekly newsletter service without running the tooling themselves",
      "Agencies and consultancies publishing for several legal-sector clients",
    ],
    features: [
      "Separate branding, domain and sender identity for every newsletter",
      "Double opt-in, topic-based subscription groups and a self-service preference center",
      "Approval step so your leaders review every issue before it is sent",
      "Email and LinkedIn publishing, plus a weekly social pack",
      "Bounce handling and list hygiene to protect deliverability",
    ],
  },
  {
    id: "reader-first-insights",
    name: "Reader-First Insights (RFI)",
    shortName: "Reader-First Insights",
    description:
      "Open rates say little about whether a general counsel is ready to talk. RFI looks at what readers actually do: which topics they read, what they click, forward and reply to, and how their engagement changes over time.",
    details:
      "It turns that behavior into decisions you can act on: which subjects to write about next, which accounts are warming up, and which readers your team should call this week. Like the RFI that opens a procurement, it tells you what your market wants before it asks.",
    audience: [
      "Marketing and business-development leaders at eDiscovery and legal-technology companies",
      "Managing partners and innovation leaders who must show the return on thought leadership",
      "Sales teams who want to know which contacts are engaged before they pick up the phone",
    ],
    features: [
      "Topic-level engagement reports, segmented by role and type of organization",
      "Reader and account engagement scores, with alerts when interest rises",
      "A short weekly summary in plain language instead of another dashboard",
      "Hand-off of engaged readers to the right owner in your CRM",
      "Respects every unsubscribe and preference choice your readers make",
    ],
  },
  {
    id: "custom-automation",
    name: "Custom Automation Solutions",
    shortName: "Custom Automation Solutions",
    description:
      "Automation designed around how your team already works, not around what a generic tool expects. We build and maintain workflows that remove the repetitive work around intake, reporting, proposals and client communication.",
    details:
      "Every workflow is documented, tested and monitored, and handed over with everything your team needs to run it, so you are never locked in to us.",
    audience: [
      "Litigation-support and eDiscovery operations managers",
      "Law-firm innovation and practice-support teams",
      "Vendor teams handling a high volume of RFPs, security questionnaires or status reports",
    ],
    features: [
      "Request and new-matter intake that collects the right details and routes the work",
      "Scheduled status and volume reports assembled from your platforms' exports",
      "RFP and security-questionnaire answer libraries with drafting assistance",
      "Integrations between your CRM, billing, email and review-platform tools",
      "Documentation, monitoring and a clean handover for every workflow",
    ],
  },
];

export default function Products() {
  return (
    <main>
      <PageHero
        eyebrow="Products"
        title="Products built for legal-technology marketing and operations"
        lead="Three ways to work with us: a platform that publishes your leaders' newsletter across every brand, insights that show what your readers value, and automation built around your workflows."
      />

      {PRODUCTS.map((product, index) => (
        <Section
          key={product.id}
          id={product.id}
          tone={index % 2 === 1 ? "tinted" : "plain"}
          title={product.name}
          intro={product.description}
        >
          <p className="max-w-3xl leading-relaxed">{product.details}</p>
          <div className="mt-8 grid gap-6 md:grid-cols-2">
            <Card title="Who it is for">
              <BulletList items={product.audience} />
            </Card>
            <Card title="Key features">
              <BulletList items={product.features} />
            </Card>
          </div>
          <div className="mt-8">
            <ButtonLink to="/contact">Talk to us about {product.shortName}</ButtonLink>
          </div>
        </Section>
      ))}

      <CallToAction
        title="Not sure which product fits?"
        text="Most clients start with one product and add the others as their audience grows. Tell us where you are today and we will recommend a sensible starting point."
        label="Contact us"
      />
    </main>
  );
}
