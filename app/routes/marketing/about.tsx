import { CallToAction, PageHero, Section, TextCards } from "../../components/ui/layout";
import { MARKETING_PAGES } from "../../content/marketing-pages";
import { pageMeta } from "../../lib/meta";
import type { Route } from "./+types/about";

export const meta: Route.MetaFunction = (args) => pageMeta(args, MARKETING_PAGES.about);

const VALUES = [
  {
    title: "Authenticity",
    text: "Everything we publish has to sound like your leaders and say what they actually think. Their voice model is trained on their own writing and talks, every issue is reviewed by them before it goes out, and we never attribute an opinion they do not hold.",
  },
  {
    title: "Strategic Focus",
    text: "We write for a defined audience and a defined commercial goal. Each topic, from proportionality disputes to generative AI in document review, earns its place because it matters to the buyers you want to reach, not because it is trending.",
  },
  {
    title: "Collaborative Partnership",
    text: "We work as an extension of your team, alongside your partners, marketing and business-development leads. Drafts, data and decisions are shared openly, and your feedback shapes the voice model week by week.",
  },
  {
    title: "Innovation",
    text: "We use AI and automation where they make the work faster and better, and keep people in charge wherever judgment matters. We test new formats, channels and tools so your team does not have to.",
  },
] as const;

const APPROACH = [
  {
    title: "Voice",
    text: "How your leaders speak: their vocabulary, their rhythm, and the way they explain a hard idea to a client. We capture it from interviews, articles, webinars and LinkedIn posts, and tune it until your leaders would sign every line.",
  },
  {
    title: "Vision",
    text: "Where your leaders believe the market is heading, from AI-assisted review and rising data volumes to cost pressure and new rules, and what that means for their clients. A clear point of view is what turns a news round-up into thought leadership.",
  },
  {
    title: "Values",
    text: "What your firm stands for and will not compromise on, such as defensibility, confidentiality and transparent pricing. Your values set the guardrails for every issue, so nothing goes out that you would not say to a client in person.",
  },
] as const;

export default function About() {
  return (
    <main>
      <PageHero
        eyebrow="About us"
        title="Legal-technology expertise deserves to be heard"
        lead="We are a consultancy for eDiscovery providers, legal-technology vendors and law-firm innovation teams. We turn your leaders' knowledge into a weekly conversation with the buyers who matter, and automate the work that follows."
      />

      <Section id="mission" title="Our mission">
        <div className="grid gap-8 lg:grid-cols-2">
          <div className="space-y-4 text-lg leading-relaxed">
            <p>
              Legal technology is bought on trust. General counsel, litigation-support managers and
              procurement teams choose the provider whose people they have already heard from, and
              whose judgment they have seen applied to the problems on their own desks.
            </p>
            <p>
              Our mission is to make that trust easier to earn: to give every expert-led
              legal-technology business a consistent, authentic voice in its market, and the
              automation to act on the interest that voice creates.
            </p>
          </div>
          <div className="rounded-brand border-l-4 border-accent bg-brand/10 p-6">
            <p className="font-semibold">In practice, that means we:</p>
            <ul className="mt-3 list-disc space-y-2 pl-5 leading-relaxed">
              <li>publish every week, not only in the run-up to a conference;</li>
              <li>write about the questions buyers ask, in the language your leaders use;</li>
              <li>
                keep partners and executives in control, with no extra writing on their plate;
              </li>
              <li>measure success in qualified conversations, not in impressions.</li>
            </ul>
          </div>
        </div>
      </Section>

      <Section
        id="values"
        tone="tinted"
        title="Our core values"
        intro="Four commitments shape how we work with every client, from the first interview to the hundredth issue."
      >
        <TextCards items={VALUES} columns="md:grid-cols-2" />
      </Section>

      <Section
        id="approach"
        title="Our approach: Voice, Vision, Values"
        intro="Every newsletter we build rests on three parts. Together they make sure that what reaches your readers each week is unmistakably yours."
      >
        <TextCards items={APPROACH} columns="md:grid-cols-3" />
      </Section>

      <CallToAction
        title="Let's find your voice together"
        text="Tell us about your firm, your leaders and the buyers you want to reach. We will show you what your first month of issues could look like."
        label="Contact us"
      />
    </main>
  );
}
