import { getFormProps, getInputProps, getTextareaProps, useForm } from "@conform-to/react";
import { getZodConstraint, parseWithZod } from "@conform-to/zod/v4";
import { data, Form, redirect, useActionData, useNavigation } from "react-router";
import { contactRateLimit, submitContactMessage } from "../../../server/contact/messages";
import { scopeOf } from "../../../server/http/context";
import { contactSchema } from "../../../shared/schemas/contact";
import { FieldShell, Honeypot, SubmitButton, TextArea, TextInput } from "../../components/ui/form";
import { Container, PageHero } from "../../components/ui/layout";
import { pageMeta } from "../../lib/meta";
import type { Route } from "./+types/contact";

export const meta: Route.MetaFunction = (args) =>
  pageMeta(args, {
    title: "Contact us",
    description:
      "Tell us about your eDiscovery or legal-technology team. We reply within 24 hours, Monday to Friday, 9 AM to 6 PM EST, and most projects run 4 to 8 weeks.",
  });

export function loader({ request }: Route.LoaderArgs) {
  return { sent: new URL(request.url).searchParams.get("sent") === "1" };
}

export async function action({ request, context }: Route.ActionArgs) {
  const scope = scopeOf(context);
  const submission = parseWithZod(await request.formData(), { schema: contactSchema });
  if (submission.status !== "success") {
    return data({ result: submission.reply() }, { status: 400 });
  }
  if (!(await contactRateLimit.take(`${scope.tenantId}:${scope.clientAddress}`))) {
    return data(
      {
        result: submission.reply({
          formErrors: [
            "You have sent several messages in a short time. Please wait a few minutes and try again.",
          ],
        }),
      },
      { status: 429 },
    );
  }
  const { website, ...message } = submission.value;
  // A filled honeypot is a bot: it gets the same answer as a person, and nothing is stored.
  if (!website) {
    const { id } = await submitContactMessage(scope, message);
    scope.logger.info({ contactMessageId: id }, "contact message stored");
  }
  return redirect("/contact?sent=1#contact-form");
}

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
            {form.errors?.length ? (
              <div
                role="alert"
                id={form.errorId}
                className="rounded-brand border-2 border-danger p-4 font-medium text-danger"
              >
                {form.errors.join(" ")}
              </div>
            ) : null}
            <FieldShell id={fields.name.id} label="Full name" errors={fields.name.errors}>
              <TextInput {...getInputProps(fields.name, { type: "text" })} autoComplete="name" />
            </FieldShell>
            <FieldShell id={fields.email.id} label="Email" errors={fields.email.errors}>
              <TextInput {...getInputProps(fields.email, { type: "email" })} autoComplete="email" />
            </FieldShell>
            <FieldShell
              id={fields.company.id}
              label="Company"
              optional
              errors={fields.company.errors}
            >
              <TextInput
                {...getInputProps(fields.company, { type: "text" })}
                autoComplete="organization"
              />
            </FieldShell>
            <FieldShell
              id={fields.message.id}
              label="Message"
              hint="What are you working on, and what would a good outcome look like?"
              errors={fields.message.errors}
            >
              <TextArea {...getTextareaProps(fields.message)} rows={6} />
            </FieldShell>
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
