import type { ReactNode } from "react";
import type { LegalDocumentContent, LegalParty } from "../components/legal-document";
import { Link } from "../lib/page-scripts";

/*
 * The legal pages' content, as data: each page is its title, description, lead and sections; one
 * component renders both (app/routes/marketing/legal.tsx). `company` is the tenant's company name
 * (or "the operator of this website"), `address` its postal address when it has one.
 */

const linkClass = "font-medium underline underline-offset-2";

function ContactPageLink() {
  return (
    <Link to="/contact" className={linkClass}>
      contact page
    </Link>
  );
}

/** The company's postal address, when it has one. */
function ByPost({ company, address }: LegalParty) {
  if (!address) return null;
  return (
    <div>
      <p>By post:</p>
      <address className="mt-1 not-italic">
        {company}
        <br />
        {address}
      </address>
    </div>
  );
}

/** Both documents end with how to reach us: `invitation` (a paragraph), then the postal address. */
function contactUsSection(invitation: ReactNode): LegalDocumentContent["sections"][number] {
  return {
    id: "contact",
    title: "Contact us",
    body: ({ company, address }) => (
      <>
        {invitation}
        <ByPost company={company} address={address} />
      </>
    ),
  };
}

export const PRIVACY: LegalDocumentContent = {
  title: "Privacy Policy",
  description:
    "How we collect, use, keep and share personal data from our contact form, newsletter, comments and server logs, and how to exercise your privacy rights.",
  lead: (company) =>
    `This policy explains how ${company} collects, uses and protects personal information when you visit this website, subscribe to our newsletter, comment on an issue or get in touch.`,
  sections: [
    {
      id: "who-we-are",
      title: "Who we are",
      body: ({ company }) => (
        <>
          <p>
            This website and its newsletters are operated by {company} ("we", "us", "our"). We are
            responsible for the personal information described in this policy and decide how it is
            used. The policy applies to this website, to the newsletters we send by email and
            publish on LinkedIn, and to any correspondence with us through them.
          </p>
          <p>
            If we provide consulting or automation services to your organization under a contract,
            that contract and any data processing agreement attached to it govern the data we handle
            on your behalf.
          </p>
        </>
      ),
    },
    {
      id: "what-we-collect",
      title: "What we collect",
      body: () => (
        <>
          <p>We collect only what we need for the purposes described below.</p>
          <h3 className="text-lg font-semibold">Contact form</h3>
          <p>
            Your name, email address, company (if you give it) and the content of your message.
            Please do not send confidential, privileged or client information through the form: it
            is not a secure channel for matter-related material, and contacting us does not create a
            client relationship.
          </p>
          <h3 className="text-lg font-semibold">Newsletter subscriptions</h3>
          <p>
            Your email address, your name if you provide it, the topics you choose, and the date and
            time you subscribed and confirmed your subscription. Our email provider also records
            delivery information, such as bounces, and whether a message was opened or a link
            clicked, so that we can keep our list healthy and learn which topics are useful to
            readers.
          </p>
          <h3 className="text-lg font-semibold">Comments</h3>
          <p>
            If you comment on a newsletter issue, the display name you choose, your comment and the
            time it was posted are published. Your email address is used to manage your comment and
            is never shown publicly.
          </p>
          <h3 className="text-lg font-semibold">Server logs</h3>
          <p>
            Like most websites, our servers record technical information with each request: your IP
            address, browser and device type, the page requested, the referring page, the time of
            the request and the response status.
          </p>
        </>
      ),
    },
    {
      id: "how-we-use-it",
      title: "Why we use it and our legal bases",
      body: () => (
        <>
          <p>
            Where data protection laws such as the GDPR or UK GDPR apply, we rely on the following
            legal bases:
          </p>
          <ul className="list-disc space-y-3 pl-5">
            <li>
              <strong>Answering your enquiry.</strong> We use contact-form data to reply to you and,
              if you ask, to discuss or propose our services. Legal basis: our legitimate interest
              in responding to people who contact us, or steps taken at your request before entering
              into a contract.
            </li>
            <li>
              <strong>Sending the newsletter.</strong> We use your subscription data to send the
              issues and topics you chose, to confirm changes to your subscription and to tell you
              if messages to you are bouncing. Legal basis: your consent, which you can withdraw at
              any time.
            </li>
            <li>
              <strong>Improving our content.</strong> We look at engagement with our newsletter to
              decide which subjects to cover. Legal basis: your consent to receive the newsletter
              and our legitimate interest in making it useful.
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
        </>
      ),
    },
    {
      id: "retention",
      title: "How long we keep it",
      body: () => (
        <>
          <ul className="list-disc space-y-3 pl-5">
            <li>
              <strong>Contact messages:</strong> up to 24 months after our last exchange, unless
              they become part of a client relationship.
            </li>
            <li>
              <strong>Newsletter subscriptions:</strong> for as long as you stay subscribed. When
              you unsubscribe we delete your subscription details, keeping only your email address
              on a suppression list so that we never email you again by mistake.
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
        </>
      ),
    },
    {
      id: "sharing",
      title: "Who we share it with",
      body: () => (
        <>
          <p>
            We share personal information only with service providers who process it on our
            instructions, under contracts that require them to protect it:
          </p>
          <ul className="list-disc space-y-3 pl-5">
            <li>
              <strong>Our email delivery provider,</strong> which stores the subscriber list and
              sends the newsletter and service emails on our behalf.
            </li>
            <li>
              <strong>Our hosting and infrastructure providers,</strong> which run the servers and
              databases this website uses.
            </li>
          </ul>
          <p>
            We may also disclose information if the law, a court order or a regulator requires it,
            to protect our rights or the safety of others, or to a successor business if our
            organization is reorganized or sold, in which case this policy will continue to apply.
          </p>
          <p>
            Some of these providers may process data outside your country. Where that happens, we
            rely on appropriate safeguards, such as standard contractual clauses, to protect it.
          </p>
        </>
      ),
    },
    {
      id: "your-rights",
      title: "Your rights and choices",
      body: () => (
        <>
          <p>
            Depending on where you live, you may have the right to access the personal information
            we hold about you, correct it, delete it, restrict or object to how we use it, receive a
            copy in a portable format, and withdraw consent at any time. Withdrawing consent does
            not affect processing that has already taken place.
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
              <strong>Anything else:</strong> send us a request through the <ContactPageLink />. We
              may need to confirm your identity, and we will reply within one month.
            </li>
          </ul>
          <p>
            If you are not satisfied with our response, you can complain to your local data
            protection authority. We would, however, appreciate the chance to resolve your concern
            first.
          </p>
        </>
      ),
    },
    {
      id: "cookies",
      title: "Cookies",
      body: () => (
        <>
          <p>
            We use only cookies that are strictly necessary for the website to work. We do not use
            analytics, advertising or social-media tracking cookies, so we do not ask for cookie
            consent.
          </p>
          <ul className="list-disc space-y-3 pl-5">
            <li>
              <strong>Session cookie:</strong> keeps editors and administrators signed in. It is set
              only when you sign in, and it expires when you sign out or after a period of
              inactivity.
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
        </>
      ),
    },
    {
      id: "security",
      title: "Security",
      body: () => (
        <>
          <p>
            We protect personal information with encryption in transit, access controls limited to
            people who need it, and providers that maintain recognized security practices. No method
            of transmission or storage is completely secure, so we cannot guarantee absolute
            security, but we will notify you and the relevant authorities of a breach where the law
            requires it.
          </p>
        </>
      ),
    },
    {
      id: "children",
      title: "Children",
      body: () => (
        <>
          <p>
            This website and our newsletters are intended for legal and business professionals. They
            are not directed at children under 16, and we do not knowingly collect their personal
            information.
          </p>
        </>
      ),
    },
    {
      id: "changes",
      title: "Changes to this policy",
      body: () => (
        <>
          <p>
            We may update this policy when our services or the law change. The date at the top of
            this page shows when it was last revised. If a change materially affects how we use
            information we already hold, we will tell subscribers by email before it takes effect.
          </p>
        </>
      ),
    },
    contactUsSection(
      <p>
        For questions about this policy or your personal information, write to us through the{" "}
        <ContactPageLink /> and mention "Privacy" in your message, or reply to any newsletter you
        have received from us.
      </p>,
    ),
  ],
};

export const TERMS: LegalDocumentContent = {
  title: "Terms of Service",
  description:
    "The terms for using this website, our newsletters and comments: content rules, moderation, intellectual property, disclaimers and limits of liability.",
  lead: (company) =>
    `These terms govern your use of this website and the newsletters published by ${company}. Please read them carefully: by using the site or subscribing, you agree to them.`,
  sections: [
    {
      id: "about-these-terms",
      title: "About these terms",
      body: ({ company }) => (
        <>
          <p>
            This website and its newsletters are operated by {company} ("we", "us", "our"). "You"
            means anyone who visits the site, subscribes to a newsletter or submits content to us.
            If you use the site on behalf of an organization, you confirm that you are authorized to
            accept these terms for it.
          </p>
          <p>
            If you engage us for consulting, automation or newsletter services, the written
            agreement for that engagement governs those services and takes precedence over these
            terms where the two differ. Our{" "}
            <Link to="/privacy" className={linkClass}>
              Privacy Policy
            </Link>{" "}
            explains how we handle personal information.
          </p>
        </>
      ),
    },
    {
      id: "use-of-the-site",
      title: "Using this website",
      body: () => (
        <>
          <p>You may use this website for lawful purposes. When you use it, you agree not to:</p>
          <ul className="list-disc space-y-2 pl-5">
            <li>
              try to gain unauthorized access to the site, its accounts or the systems behind it, or
              interfere with its security or operation;
            </li>
            <li>
              scrape, copy or harvest content or email addresses in bulk, or place an unreasonable
              load on the site with automated requests;
            </li>
            <li>
              submit false information, impersonate another person or organization, or send
              unsolicited marketing through our forms;
            </li>
            <li>upload viruses or any other harmful code.</li>
          </ul>
          <p>
            We may suspend or restrict access to the site, or to any feature of it, if we reasonably
            believe these terms have been broken or to protect the site and its users.
          </p>
        </>
      ),
    },
    {
      id: "newsletters",
      title: "Newsletters and subscriptions",
      body: () => (
        <>
          <p>
            Our newsletters are free. When you subscribe we ask you to confirm your email address,
            and you can choose the topics you want to receive. You can change your topics in the{" "}
            <Link to="/subscription/preferences" className={linkClass}>
              subscription preference center
            </Link>{" "}
            and unsubscribe at any time using the link in every email.
          </p>
          <p>
            Newsletter issues are written in the voice of our leaders. Drafts may be prepared with
            the help of AI tools trained on their own writing, and every issue is reviewed and
            approved by a person before it is sent or published. Issues may also be published on
            LinkedIn and other channels.
          </p>
          <p>
            We may change the content, frequency or format of a newsletter, or stop publishing it,
            at any time. We may also remove addresses that repeatedly bounce or that we believe were
            subscribed without the owner's permission.
          </p>
        </>
      ),
    },
    {
      id: "comments",
      title: "Comments and other content you submit",
      body: () => (
        <>
          <p>
            Where comments are enabled, you are responsible for what you post. Comments should add
            to a professional discussion. You must not post content that:
          </p>
          <ul className="list-disc space-y-2 pl-5">
            <li>
              discloses confidential, privileged or client information, or details of a matter that
              is not public;
            </li>
            <li>
              is defamatory, harassing, discriminatory, threatening, obscene or otherwise unlawful;
            </li>
            <li>
              infringes anyone's copyright, trademark, privacy or other rights, or reveals another
              person's personal information without permission;
            </li>
            <li>
              is advertising, spam, a solicitation of clients, or links posted mainly for promotion;
            </li>
            <li>impersonates another person or misrepresents your affiliation.</li>
          </ul>
          <p>
            You keep ownership of your comments. By posting one, you give us a non-exclusive,
            royalty-free, worldwide license to publish, display, store and moderate it on this
            website and in connection with the newsletter issue it relates to.
          </p>
          <p>
            <strong>Moderation.</strong> We may review comments before or after they appear, and we
            may decline, edit for formatting, hide or remove any comment, or block a commenter, at
            our discretion and without notice. We are not obliged to monitor every comment, and
            comments reflect the views of their authors, not ours. To report a comment, write to us
            through the <ContactPageLink /> and tell us where it appears and why it concerns you.
          </p>
        </>
      ),
    },
    {
      id: "intellectual-property",
      title: "Intellectual property",
      body: ({ company }) => (
        <>
          <p>
            The content of this website and our newsletters, including text, graphics, logos and
            design, belongs to {company} or its licensors and is protected by copyright and
            trademark law.
          </p>
          <p>
            You may read, download and print content for your own use, forward a newsletter issue to
            colleagues, and quote short extracts with attribution and a link to the source. You may
            not republish whole articles or issues, sell or license our content, use it to train AI
            models, or use our names and logos in a way that suggests we endorse you, without our
            written permission.
          </p>
        </>
      ),
    },
    {
      id: "no-legal-advice",
      title: "No legal advice",
      body: () => (
        <>
          <div className="rounded-brand border-l-4 border-accent bg-brand/10 p-5">
            <p>
              Nothing on this website or in our newsletters is legal advice. Our content discusses
              eDiscovery, legal technology and related rules in general terms for information only.
              It may not reflect the latest developments and may not apply in your jurisdiction or
              to your facts.
            </p>
          </div>
          <p>
            Reading our content, subscribing, commenting or contacting us does not create an
            attorney-client relationship or any other professional relationship with us. Do not act,
            or refrain from acting, on the basis of our content without advice from a qualified
            lawyer in your jurisdiction, and do not send us confidential or privileged information
            unless we have agreed in writing to act for you.
          </p>
        </>
      ),
    },
    {
      id: "disclaimers",
      title: "Disclaimers",
      body: () => (
        <>
          <p>
            We work to keep our content accurate and the site available, but we provide them "as is"
            and "as available". To the extent the law allows, we make no warranties, express or
            implied, about the accuracy, completeness or fitness for a particular purpose of any
            content, or that the site will be uninterrupted, secure or free of errors.
          </p>
          <p>
            Mentions of products, vendors, cases or rules are for illustration and are not
            endorsements. Links to other websites are provided for convenience; we do not control
            those sites and are not responsible for their content or privacy practices.
          </p>
        </>
      ),
    },
    {
      id: "liability",
      title: "Limitation of liability",
      body: ({ company }) => (
        <>
          <p>
            To the fullest extent permitted by law, {company} will not be liable for any indirect,
            incidental, special or consequential loss, or for any loss of profits, business, data or
            goodwill, arising from your use of, or inability to use, this website or our
            newsletters, even if we were told such loss was possible.
          </p>
          <p>
            Because the site and newsletters are provided free of charge, our total liability to you
            for any claim relating to them is limited to one hundred US dollars (US$100).
          </p>
          <p>
            Nothing in these terms excludes or limits liability that cannot be excluded or limited
            by law, such as liability for fraud, or for death or personal injury caused by
            negligence.
          </p>
        </>
      ),
    },
    {
      id: "changes",
      title: "Changes to these terms",
      body: () => (
        <>
          <p>
            We may update these terms from time to time. The date at the top of this page shows when
            they were last revised. If a change is significant, we will tell newsletter subscribers
            by email before it takes effect. If you keep using the site after a change takes effect,
            the updated terms apply to you.
          </p>
        </>
      ),
    },
    contactUsSection(
      <p>
        Questions about these terms, or reports of content that you believe breaks them, are welcome
        through our <ContactPageLink />.
      </p>,
    ),
  ],
};
