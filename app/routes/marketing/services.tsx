import { CallToAction, PageHero, Section, TextCards } from "../../components/ui/layout";
import { MARKETING_PAGES } from "../../content/marketing-pages";
import { pageMeta } from "../../lib/meta";
import type { Route } from "./+types/services";

export const meta: Route.MetaFunction = (args) => pageMeta(args, MARKETING_PAGES.services);

const SERVICES = [
  {
    title: "Lead Generation and Nurture",
    text: "Turn newsletter readers into qualified conversations. We segment your audience by role and interest, from general counsel to litigation-support managers, and follow up automatically when a reader shows intent.",
    list: [
      "Engagement scoring across email and LinkedIn",
      "Role-based nurture sequences in your leaders' voice",
      "Hand-off of warm contacts to the right partner or account lead",
    ],
  },
  {
    title: "Customer Response Optimization",
    text: "Answer enquiries, RFPs and security questionnaires faster and more consistently, without losing the personal tone buyers expect from a trusted adviser.",
    list: [
      "Routing of contact-form and newsletter replies",
      "Reviewed answer library for RFPs and security questionnaires",
      "Response-time tracking against agreed targets",
    ],
  },
  {
    title: "Data Processing and Analysis",
    text: "Make sense of the data you already hold: matter volumes, processing and hosting metrics, review throughput, newsletter engagement and pipeline. We work within your systems and access controls.",
    list: [
      "Cleaned, joined data from your existing tools",
      "Reports on which services, clients and topics drive revenue",
      "Plain-language monthly summaries for leadership",
    ],
  },
  {
    title: "Strategic Consulting",
    text: "Decide who you are talking to and what you want to be known for. We help you choose the topics to own, such as defensible AI-assisted review or cross-border discovery, and the channels that reach your buyers.",
    list: [
      "Ideal-client profile and buyer map",
      "Editorial strategy and quarterly topic plan",
      "Go-to-market support for new services and products",
    ],
  },
  {
    title: "Process Optimization",
    text: "Find the hand-offs that slow your team down, from new-matter intake to proposal sign-off and content approval, and redesign them before anything is automated.",
    list: [
      "Current-state workflow maps built with your team",
      "Redesigned processes with clear owners and checkpoints",
      "Cycle-time measures to show the improvement",
    ],
  },
  {
    title: "Custom Automation",
    text: "Bespoke workflows and integrations for the work no off-the-shelf tool covers, connecting your CRM, email platform, billing and review-platform exports.",
    list: [
      "Automations designed around your existing tools",
      "Testing, monitoring and alerting for every workflow",
      "Documentation and handover, so you are never locked in",
    ],
  },
] as const;

const STEPS = [
  {
    name: "Discovery",
    text: "We interview your leaders, review their past writing and talks, and map your buyers, pipeline and current tools. You receive a written summary of what we found and a prioritized plan with costs.",
  },
  {
    name: "Structure",
    text: "We build the foundations: the voice model and editorial calendar, audience segments and nurture flows, integrations and reports. Nothing goes live until your team has reviewed and approved it.",
  },
  {
    name: "Refinement",
    text: "Once live, we review results with you regularly: which topics start conversations, where automation saves time, what readers ignore. Then we adjust the voice, topics and workflows accordingly.",
  },
] as const;

export default function Services() {
  return (
    <main>
      <PageHero
        eyebrow="Services"
        title="Automation and advice for legal-technology growth"
        lead="Alongside the weekly executive-voice newsletter, we help eDiscovery providers, legal-technology vendors and law-firm innovation teams win, answer and serve clients with less manual effort."
      />

      <Section
        id="services"
        title="What we do"
        intro="Six services that can be combined or used on their own. Each is scoped to your team, your tools and the buyers you serve."
      >
        <TextCards items={SERVICES} columns="md:grid-cols-2 lg:grid-cols-3" />
      </Section>

      <Section
        id="process"
        tone="tinted"
        title="How we work"
        intro="Every engagement, from a single newsletter to a full automation program, follows the same three steps."
      >
        <ol className="grid gap-6 md:grid-cols-3">
          {STEPS.map((step, index) => (
            <li
              key={step.name}
              className="rounded-brand border-t-4 border-accent bg-surface p-6 shadow-sm ring-1 ring-black/5"
            >
              <p className="text-sm font-semibold uppercase tracking-wider text-brand-strong">
                Step {index + 1}
              </p>
              <h3 className="mt-1 text-xl font-semibold">{step.name}</h3>
              <p className="mt-2 leading-relaxed">{step.text}</p>
            </li>
          ))}
        </ol>
      </Section>

      <CallToAction
        title="Not sure where to start?"
        text="Tell us what is slowing your team down or where your pipeline stalls. In a 30-minute call we will suggest the service, or combination, most likely to help."
        label="Contact us"
      />
    </main>
  );
}
