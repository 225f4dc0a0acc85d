import { getFormProps, useForm } from "@conform-to/react";
import { getZodConstraint, parseWithZod } from "@conform-to/zod/v4";
import { Form, useActionData, useNavigation } from "react-router";
import { contactSchema } from "../../../shared/schemas/contact";
import {
  FormAlert,
  Honeypot,
  InputField,
  SubmitButton,
  TextAreaField,
} from "../../components/ui/form";
import { Container, PageHero } from "../../components/ui/layout";
import { MARKETING_PAGES } from "../../content/marketing-pages";
import { pageMeta } from "../../lib/meta";
import type { Route } from "./+types/contact";

export { action, loader } from "./contact.server";

import type { action } from "./contact.server";

export const meta: Route.MetaFunction = (args) => pageMeta(args, MARKETING_PAGES.contact);

const FAQ = [
  {
    q: "Do you work with firms outside the United States?",
    a: "Yes. We work with eDiscovery providers, legal-technology vendors and law firms in North America, the UK and the EU. Calls are scheduled in your time zone; our core hours are 9 AM to 6 PM EST.",
  },
  {
    q: "Do you need access to client or matter data?",
    a: "No. The voice model is trained on material your leaders have already published or approve for the purpose: articles, talks, interviews and internal memos they choose. We never need privileged or client-confidential documents.",
  },
  {
    q: "Who approves what is published?",
    a: "You do. Every newsletter issue and social pack goes to a named reviewer on your side before it is sent, and nothing is published without their approval.",
  },
  {
    q: "Can you work with our existing CRM and email tools?",
    a: "Usually, yes. We connect to the common CRMs and email platforms used in legal technology, and we can run the newsletter on our own platform if you do not have one.",
  },
  {
    q: "How is pricing structured?",
    a: "Projects are quoted at a fixed fee after the discovery call; the weekly newsletter service is a monthly subscription. There is no long-term lock-in.",
  },
] as const;

export default function Contact({ loaderData }: Route.ComponentProps) {
  const actionData = useActionData<typeof action>();
  const navigation = useNavigation();
  const [form, fields] = useForm({
    lastResult: navigation.state === "idle" ? actionData?.result : null,
    constraint: getZodConstraint(contactSchema),
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: contactSchema }),
  });
  const sending = navigation.state === "submitting";

  return (
    <main>
      <PageHero
        eyebrow="Contact"
        title="Let's talk about your next quarter"
        lead="Tell us where your pipeline or your publishing is stuck. A senior consultant — not a sales development rep — will read your message and reply."
      />

      <Container className="grid gap-12 py-14 lg:grid-cols-[3fr_2fr]">
        <section id="contact-form" aria-labelledby="contact-form-heading">
          <h2 id="contact-form-heading" className="text-2xl font-bold">
            Send us a message
          </h2>
          {loaderData.sent ? (
            <div
              role="status"
              className="mt-6 rounded-brand border-2 border-ok bg-surface p-5"
              data-testid="contact-confirmation"
            >
              <p className="text-lg font-semibold text-ok">
                Thank you — your message has been received.
              </p>
              <p className="mt-2">
                We reply within 24 hours, Monday to Friday, 9 AM to 6 PM EST. If your question is
                urgent, mention it in a second message and we will prioritise it.
              </p>
            </div>
          ) : null}
          <Form method="post" className="relative mt-6 space-y-5" {...getFormProps(form)}>
            <FormAlert id={form.errorId} errors={form.errors} className="p-4" />
            <InputField field={fields.name} label="Full name" autoComplete="name" />
            <InputField field={fields.email} label="Email" type="email" autoComplete="email" />
            <InputField
              field={fields.company}
              label="Company"
              optional
              autoComplete="organization"
            />
            <TextAreaField
              field={fields.message}
              label="Message"
              hint="What are you working on, and what would a good outcome look like?"
              rows={6}
            />
            <Honeypot />
            <SubmitButton pending={sending}>{sending ? "Sending…" : "Send message"}</SubmitButton>
          </Form>
        </section>

        <aside className="space-y-10">
          <section aria-labelledby="details-heading">
            <h2 id="details-heading" className="text-xl font-bold">
              Contact details
            </h2>
            <dl className="mt-4 space-y-3">
              <div>
                <dt className="font-semibold">Email</dt>
                <dd>
                  <a href="mailto:hello@keydiscovery.com">hello@keydiscovery.com</a>
                </dd>
              </div>
              <div>
                <dt className="font-semibold">Phone</dt>
                <dd>
                  <a href="tel:+12155550142">+1 (215) 555-0142</a>
                </dd>
              </div>
              <div>
                <dt className="font-semibold">Office hours</dt>
                <dd>Monday to Friday, 9 AM to 6 PM EST</dd>
              </div>
            </dl>
          </section>

          <section aria-labelledby="expect-heading">
            <h2 id="expect-heading" className="text-xl font-bold">
              What to expect
            </h2>
            <ol className="mt-4 list-decimal space-y-3 pl-5">
              <li>
                <strong>A reply within 24 hours</strong>, Monday to Friday, 9 AM to 6 PM EST, from
                the consultant who would lead your project.
              </li>
              <li>
                <strong>A 30-minute discovery call</strong> about your buyers, your current content
                and where leads get lost.
              </li>
              <li>
                <strong>A written proposal</strong> with scope, fixed fee and timeline. Typical
                projects take 4–8 weeks from kickoff to the first results.
              </li>
            </ol>
          </section>
        </aside>
      </Container>

      <section aria-labelledby="faq-heading" className="bg-black/[0.03] py-14">
        <Container>
          <h2 id="faq-heading" className="text-2xl font-bold">
            Frequently asked questions
          </h2>
          <div className="mt-6 space-y-3">
            {FAQ.map((item) => (
              <details key={item.q} className="rounded-brand border border-black/10 bg-surface p-4">
                <summary className="cursor-pointer font-semibold">{item.q}</summary>
                <p className="mt-3 leading-relaxed">{item.a}</p>
              </details>
            ))}
          </div>
        </Container>
      </section>
    </main>
  );
}
