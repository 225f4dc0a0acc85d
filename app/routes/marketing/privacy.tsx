import { Link, useRouteLoaderData } from "react-router";
import { LegalDocument, LegalSection } from "../../components/legal-document";
import { pageMeta } from "../../lib/meta";
import type { loader as rootLoader } from "../../root";
import type { Route } from "./+types/privacy";

export const meta: Route.MetaFunction = (args) =>
  pageMeta(args, {
    title: "Privacy Policy",
    description:
      "How we collect, use, keep and share personal data from our contact form, newsletter, comments and server logs, and how to exercise your privacy rights.",
  });

const SECTIONS = {
  whoWeAre: { id: "who-we-are", title: "Who we are" },
  collect: { id: "what-we-collect", title: "What we collect" },
  use: { id: "how-we-use-it", title: "Why we use it and our legal bases" },
  retention: { id: "retention", title: "How long we keep it" },
  sharing: { id: "sharing", title: "Who we share it with" },
  rights: { id: "your-rights", title: "Your rights and choices" },
  cookies: { id: "cookies", title: "Cookies" },
  security: { id: "security", title: "Security" },
  children: { id: "children", title: "Children" },
  changes: { id: "changes", title: "Changes to this policy" },
  contact: { id: "contact", title: "Contact us" },
} as const;

const linkClass = "font-medium underline underline-offset-2";

export default function Privacy() {
  const root = useRouteLoaderData<typeof rootLoader>("root");
  const company = root?.tenant.companyName || "the operator of this website";
  const address = root?.tenant.companyAddress;

  return (
    <LegalDocument
      title="Privacy Policy"
      lead={`This policy explains how ${company} collects, uses and protects personal information when you visit this website, subscribe to our newsletter, comment on an issue or get in touch.`}
      sections={Object.values(SECTIONS)}
    >
      <LegalSection {...SECTIONS.whoWeAre}>
        <p>
          This website and its newsletters are operated by {company} ("we", "us", "our"). We are
          responsible for the personal information described in this policy and decide how it is
          used. The policy applies to this website, to the newsletters we send by email and publish
          on LinkedIn, and to any correspondence with us through them.
        </p>
        <p>
          If we provide consulting or automation services to your organization under a contract,
          that contract and any data processing agreement attached to it govern the data we handle
          on your behalf.
        </p>
      </LegalSection>

      <LegalSection {...SECTIONS.collect}>
        <p>We collect only what we need for the purposes described below.</p>
        <h3 className="text-lg font-semibold">Contact form</h3>
        <p>
          Your name, email address, company (if you give it) and the content of your message. Please
          do not send confidential, privileged or client information through the form: it is not a
          secure channel for matter-related material, and contacting us does not create a client
          relationship.
        </p>
        <h3 className="text-lg font-semibold">Newsletter subscriptions</h3>
        <p>
          Your email address, your name if you provide it, the topics you choose, and the date and
          time you subscribed and confirmed your subscription. Our email provider also records
          delivery information, such as bounces, and whether a message was opened or a link clicked,
          so that we can keep our list healthy and learn which topics are useful to readers.
        </p>
        <h3 className="text-lg font-semibold">Comments</h3>
        <p>
          If you comment on a newsletter issue, the display name you choose, your comment and the
          time it was posted are published. Your email address is used to manage your comment and is
          never shown publicly.
        </p>
        <h3 className="text-lg font-semibold">Server logs</h3>
        <p>
          Like most websites, our servers record technical information with each request: your IP
          address, browser and device type, the page requested, the referring page, the time of the
          request and the response status.
        </p>
      </LegalSection>

      <LegalSection {...SECTIONS.use}>
        <p>
          Where data protection laws such as the GDPR or UK GDPR apply, we rely on the following
          legal bases:
        </p>
        <ul className="list-disc space-y-3 pl-5">
          <li>
            <strong>Answering your enquiry.</strong> We use contact-form data to reply to you and,
            if you ask, to discuss or propose our services. Legal basis: our legitimate interest in
            responding to people who contact us, or steps taken at your request before entering into
            a contract.
          </li>
          <li>
            <strong>Sending the newsletter.</strong> We use your subscription data to send the
            issues and topics you chose, to confirm changes to your subscription and to tell you if
            messages to you are bouncing. Legal basis: your consent, which you can withdraw at any
            time.
          </li>
          <li>
            <strong>Improving our content.</strong> We look at engagement with our newsletter to
            decide which subjects to cover. Legal basis: your consent to receive the newsletter and
            our legitimate interest in making it useful.
          </li>
          <li>
            <strong>Publishing and moderating comments.</strong> Legal basis: our legitimate
            interest in hosting a useful, respectful discussion, and our{" "}
            <Link to="/terms" className={linkClass}>
              Terms of Service
            </Link>
            .
          </li>
          <li>
            <strong>Keeping the site secure and working.</strong> We use server logs to diagnose
            faults and to detect and prevent abuse. Legal basis: our legitimate interest in
            operating a secure service.
          </li>
          <li>
            <strong>Meeting legal obligations.</strong> We may keep or disclose information where
            the law requires it.
          </li>
        </ul>
        <p>
          We do not sell your personal information, use it for targeted advertising, or make
          decisions about you based solely on automated processing.
        </p>
      </LegalSection>

      <LegalSection {...SECTIONS.retention}>
        <ul className="list-disc space-y-3 pl-5">
          <li>
            <strong>Contact messages:</strong> up to 24 months after our last exchange, unless they
            become part of a client relationship.
          </li>
          <li>
            <strong>Newsletter subscriptions:</strong> for as long as you stay subscribed. When you
            unsubscribe we delete your subscription details, keeping only your email address on a
            suppression list so that we never email you again by mistake.
          </li>
          <li>
            <strong>Comments:</strong> for as long as the issue they belong to is published, or
            until you ask us to remove them.
          </li>
          <li>
            <strong>Server logs:</strong> up to 30 days, or longer only when they are needed to
            investigate a specific security incident.
          </li>
        </ul>
      </LegalSection>

      <LegalSection {...SECTIONS.sharing}>
        <p>
          We share personal information only with service providers who process it on our
          instructions, under contracts that require them to protect it:
        </p>
        <ul className="list-disc space-y-3 pl-5">
          <li>
            <strong>Our email delivery provider,</strong> which stores the subscriber list and sends
            the newsletter and service emails on our behalf.
          </li>
          <li>
            <strong>Our hosting and infrastructure providers,</strong> which run the servers and
            databases this website uses.
          </li>
        </ul>
        <p>
          We may also disclose information if the law, a court order or a regulator requires it, to
          protect our rights or the safety of others, or to a successor business if our organization
          is reorganized or sold, in which case this policy will continue to apply.
        </p>
        <p>
          Some of these providers may process data outside your country. Where that happens, we rely
          on appropriate safeguards, such as standard contractual clauses, to protect it.
        </p>
      </LegalSection>

      <LegalSection {...SECTIONS.rights}>
        <p>
          Depending on where you live, you may have the right to access the personal information we
          hold about you, correct it, delete it, restrict or object to how we use it, receive a copy
          in a portable format, and withdraw consent at any time. Withdrawing consent does not
          affect processing that has already taken place.
        </p>
        <ul className="list-disc space-y-3 pl-5">
          <li>
            <strong>Unsubscribe:</strong> every newsletter contains an unsubscribe link that takes
            effect straight away.
          </li>
          <li>
            <strong>Change your topics or email address:</strong> use the{" "}
            <Link to="/subscription/preferences" className={linkClass}>
              subscription preference center
            </Link>
            .
          </li>
          <li>
            <strong>Anything else:</strong> send us a request through the{" "}
            <Link to="/contact" className={linkClass}>
              contact page
            </Link>
            . We may need to confirm your identity, and we will reply within one month.
          </li>
        </ul>
        <p>
          If you are not satisfied with our response, you can complain to your local data protection
          authority. We would, however, appreciate the chance to resolve your concern first.
        </p>
      </LegalSection>

      <LegalSection {...SECTIONS.cookies}>
        <p>
          We use only cookies that are strictly necessary for the website to work. We do not use
          analytics, advertising or social-media tracking cookies, so we do not ask for cookie
          consent.
        </p>
        <ul className="list-disc space-y-3 pl-5">
          <li>
            <strong>Session cookie:</strong> keeps editors and administrators signed in. It is set
            only when you sign in, and it expires when you sign out or after a period of inactivity.
          </li>
          <li>
            <strong>Tenant selection cookie:</strong> remembers which of the newsletters hosted on
            this platform you are viewing, so that the right content and branding are shown.
          </li>
        </ul>
        <p>
          You can block or delete cookies in your browser settings, but parts of the site, such as
          signing in, may then stop working.
        </p>
      </LegalSection>

      <LegalSection {...SECTIONS.security}>
        <p>
          We protect personal information with encryption in transit, access controls limited to
          people who need it, and providers that maintain recognized security practices. No method
          of transmission or storage is completely secure, so we cannot guarantee absolute security,
          but we will notify you and the relevant authorities of a breach where the law requires it.
        </p>
      </LegalSection>

      <LegalSection {...SECTIONS.children}>
        <p>
          This website and our newsletters are intended for legal and business professionals. They
          are not directed at children under 16, and we do not knowingly collect their personal
          information.
        </p>
      </LegalSection>

      <LegalSection {...SECTIONS.changes}>
        <p>
          We may update this policy when our services or the law change. The date at the top of this
          page shows when it was last revised. If a change materially affects how we use information
          we already hold, we will tell subscribers by email before it takes effect.
        </p>
      </LegalSection>

      <LegalSection {...SECTIONS.contact}>
        <p>
          For questions about this policy or your personal information, write to us through the{" "}
          <Link to="/contact" className={linkClass}>
            contact page
          </Link>{" "}
          and mention "Privacy" in your message, or reply to any newsletter you have received from
          us.
        </p>
        {address ? (
          <div>
            <p>By post:</p>
            <address className="mt-1 not-italic">
              {company}
              <br />
              {address}
            </address>
          </div>
        ) : null}
      </LegalSection>
    </LegalDocument>
  );
}
