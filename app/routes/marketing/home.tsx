import { scopeOf } from "../../../server/http/context";
import { latestIssue } from "../../../server/newsletters/latest-issue";
import { signupFormData } from "../../../server/subscribers/signup-form-data";
import { HeroIssue } from "../../components/hero-issue";
import { SignupForm } from "../../components/signup-form";
import {
  BulletList,
  ButtonLink,
  CallToAction,
  Card,
  Container,
  Section,
  TextCards,
} from "../../components/ui/layout";
import { MARKETING_PAGES } from "../../content/marketing-pages";
import { pageMeta } from "../../lib/meta";
import { Kept } from "../../lib/page-scripts";
import { useRenderOnly } from "../../lib/render-only";
import { renderOnly } from "../../lib/render-only.server";
import type { Route } from "./+types/home";

export const meta: Route.MetaFunction = (args) => pageMeta(args, MARKETING_PAGES.home);

const METRICS = [
  { value: "20%", label: "month-over-month audience growth" },
  { value: "89%", label: "lower acquisition cost" },
  { value: "300%", label: "more qualified leads" },
  { value: "40%", label: "higher engagement" },
] as const;

/**
 * The lists for the hero's sign-up form, the newest issue beside it and whether the tenant shows
 * the banner; the page is kept by the page cache (a new issue shows within its 60 s, a settings
 * change at once).
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const scope = scopeOf(context);
  const [signup, issue] = await Promise.all([signupFormData(context), latestIssue(scope)]);
  // The page has no scripts: what only its render reads stays out of the hydration data.
  return {
    signup: renderOnly({ request, context }, signup),
    issue: renderOnly({ request, context }, issue),
    showBanner: scope.tenant.features.showBusyBanner,
  };
}

const CHALLENGE = [
  "Your best thinking lives in partners' heads and in matter files, not in the market.",
  "Thought leadership happens in bursts before conferences, then goes quiet for months.",
  "Agencies write generic content that a general counsel spots in one paragraph.",
  "Leads arrive unqualified, and follow-up depends on who remembers to do it.",
];
const SOLUTION = [
  "A voice model trained on your leaders' writing, talks and interviews, reviewed by them.",
  "A weekly newsletter on defensible review, AI-assisted discovery and the rules that matter.",
  "Distribution by email and LinkedIn, plus a ready-to-post social pack each week.",
  "Automated nurture that routes engaged readers to the right person on your team.",
];

const CUSTOMERS = [
  {
    title: "eDiscovery and litigation-support providers",
    text: "Firms from ten to five hundred people who compete on defensibility, turnaround and price, and need buyers to know their name before an RFP lands.",
  },
  {
    title: "Legal-technology vendors",
    text: "Review-platform, information-governance and contract-analytics companies whose founders and product leaders have a point of view worth hearing every week.",
  },
  {
    title: "Law-firm innovation and practice-support teams",
    text: "Teams that want to show clients how they use technology responsibly, without adding a second job for their attorneys.",
  },
];

export default function Home({ loaderData }: Route.ComponentProps) {
  const signup = useRenderOnly(loaderData.signup);
  const issue = useRenderOnly(loaderData.issue);
  return (
    <main>
      {loaderData.showBanner ? (
        <div
          role="status"
          className="bg-secondary px-4 py-2 text-center text-sm font-medium text-on-secondary"
        >
          We are busy shipping new features — thank you for your patience while we build.
        </div>
      ) : null}

      <section className="bg-brand/10 py-16 sm:py-24">
        <Container className="grid items-center gap-12 lg:grid-cols-[minmax(0,1fr)_26rem]">
          <div className="min-w-0">
            <p className="text-sm font-semibold uppercase tracking-wider text-brand-strong">
              The weekly newsletter system for legal technology leaders
            </p>
            <h1 className="mt-3 max-w-3xl text-4xl font-bold leading-tight sm:text-5xl">
              Your leaders' voice, in front of the right buyers, every week.
            </h1>
            <p className="mt-6 max-w-2xl text-lg leading-relaxed sm:text-xl">
              We build a digital clone of your executives' voice and use it to publish a weekly
              newsletter by email and on LinkedIn — with a social pack for the week — so general
              counsel, litigation-support managers and eDiscovery buyers hear from you consistently,
              without taking your partners away from clients.
            </p>
            <div className="mt-8 flex flex-wrap gap-4">
              <ButtonLink to="/newsletter">Join our newsletter</ButtonLink>
              <ButtonLink to="/services" variant="secondary">
                See how it works
              </ButtonLink>
            </div>
            <div className="mt-8 max-w-xl">
              <p id="hero-signup" className="mb-2 font-semibold">
                Or get the weekly issue straight to your inbox:
              </p>
              <SignupForm {...signup} compact />
            </div>
          </div>
          <Kept as="div" props={NO_PROPS} part={HeroIssue} data={{ issue }} />
        </Container>
      </section>

      <Kept as="div" props={NO_PROPS} part={HomeSections} data={NO_DATA} />
    </main>
  );
}

const NO_PROPS = {};
const NO_DATA = {};

/**
 * Everything below the hero: the same for every visitor and tenant (the tenant's colours come from
 * the stylesheet), so it is rendered once and kept (a <Kept> part, app/lib/page-scripts.tsx).
 */
function HomeSections() {
  return (
    <>
      <section aria-labelledby="results-heading" className="py-14 sm:py-16">
        <Container>
          <h2 id="results-heading" className="text-2xl font-bold sm:text-3xl">
            What our clients see within two quarters
          </h2>
          <dl className="mt-8 grid grid-cols-2 gap-4 lg:grid-cols-4">
            {METRICS.map((metric) => (
              <div
                key={metric.value}
                className="rounded-brand border-t-4 border-accent bg-surface p-5 shadow-sm ring-1 ring-black/5"
              >
                <dt className="text-sm leading-snug">{metric.label}</dt>
                <dd className="order-first text-4xl font-bold text-brand-strong">{metric.value}</dd>
              </div>
            ))}
          </dl>
        </Container>
      </section>

      <Section
        id="challenge"
        tone="tinted"
        title="The challenge, and how we solve it"
        intro="Legal-technology buying is slow, referral-driven and crowded with vendors who all claim defensibility and speed. Trust is earned by showing expertise, week after week."
      >
        <div className="grid gap-6 md:grid-cols-2">
          <Card title="The challenge">
            <BulletList items={CHALLENGE} />
          </Card>
          <Card title="Our solution">
            <BulletList items={SOLUTION} />
          </Card>
        </div>
      </Section>

      <Section
        id="customers"
        title="Who we work with"
        intro="Our clients sell expertise to legal departments and law firms, where credibility decides the deal."
      >
        <TextCards items={CUSTOMERS} columns="md:grid-cols-3" />
      </Section>

      <CallToAction
        title="See what a quarter of consistent publishing could do for you"
        text="Book a 30-minute call. We will review your current content, your buyers and your pipeline, and tell you honestly whether a weekly newsletter is the right lever."
        label="Book a call"
      />
    </>
  );
}
