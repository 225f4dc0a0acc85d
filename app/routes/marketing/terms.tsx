import { Link, useRouteLoaderData } from "react-router";
import { LegalDocument, LegalSection } from "../../components/legal-document";
import { pageMeta } from "../../lib/meta";
import type { loader as rootLoader } from "../../root";
import type { Route } from "./+types/terms";

export const meta: Route.MetaFunction = (args) =>
  pageMeta(args, {
    title: "Terms of Service",
    description:
      "The terms for using this website, our newsletters and comments: content rules, moderation, intellectual property, disclaimers and limits of liability.",
  });

const SECTIONS = {
  about: { id: "about-these-terms", title: "About these terms" },
  use: { id: "use-of-the-site", title: "Using this website" },
  newsletters: { id: "newsletters", title: "Newsletters and subscriptions" },
  comments: { id: "comments", title: "Comments and other content you submit" },
  ip: { id: "intellectual-property", title: "Intellectual property" },
  noAdvice: { id: "no-legal-advice", title: "No legal advice" },
  disclaimers: { id: "disclaimers", title: "Disclaimers" },
  liability: { id: "liability", title: "Limitation of liability" },
  changes: { id: "changes", title: "Changes to these terms" },
  contact: { id: "contact", title: "Contact us" },
} as const;

const linkClass = "font-medium underline underline-offset-2";

export default function Terms() {
  const root = useRouteLoaderData<typeof rootLoader>("root");
  const company = root?.tenant.companyName || "the operator of this website";
  const address = root?.tenant.companyAddress;

  return (
    <LegalDocument
      title="Terms of Service"
      lead={`These terms govern your use of this website and the newsletters published by ${company}. Please read them carefully: by using the site or subscribing, you agree to them.`}
      sections={Object.values(SECTIONS)}
    >
      <LegalSection {...SECTIONS.about}>
        <p>
          This website and its newsletters are operated by {company} ("we", "us", "our"). "You"
          means anyone who visits the site, subscribes to a newsletter or submits content to us. If
          you use the site on behalf of an organization, you confirm that you are authorized to
          accept these terms for it.
        </p>
        <p>
          If you engage us for consulting, automation or newsletter services, the written agreement
          for that engagement governs those services and takes precedence over these terms where the
          two differ. Our{" "}
          <Link to="/privacy" className={linkClass}>
            Privacy Policy
          </Link>{" "}
          explains how we handle personal information.
        </p>
      </LegalSection>

      <LegalSection {...SECTIONS.use}>
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
      </LegalSection>

      <LegalSection {...SECTIONS.newsletters}>
        <p>
          Our newsletters are free. When you subscribe we ask you to confirm your email address, and
          you can choose the topics you want to receive. You can change your topics in the{" "}
          <Link to="/subscription/preferences" className={linkClass}>
            subscription preference center
          </Link>{" "}
          and unsubscribe at any time using the link in every email.
        </p>
        <p>
          Newsletter issues are written in the voice of our leaders. Drafts may be prepared with the
          help of AI tools trained on their own writing, and every issue is reviewed and approved by
          a person before it is sent or published. Issues may also be published on LinkedIn and
          other channels.
        </p>
        <p>
          We may change the content, frequency or format of a newsletter, or stop publishing it, at
          any time. We may also remove addresses that repeatedly bounce or that we believe were
          subscribed without the owner's permission.
        </p>
      </LegalSection>

      <LegalSection {...SECTIONS.comments}>
        <p>
          Where comments are enabled, you are responsible for what you post. Comments should add to
          a professional discussion. You must not post content that:
        </p>
        <ul className="list-disc space-y-2 pl-5">
          <li>
            discloses confidential, privileged or client information, or details of a matter that is
            not public;
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
          royalty-free, worldwide license to publish, display, store and moderate it on this website
          and in connection with the newsletter issue it relates to.
        </p>
        <p>
          <strong>Moderation.</strong> We may review comments before or after they appear, and we
          may decline, edit for formatting, hide or remove any comment, or block a commenter, at our
          discretion and without notice. We are not obliged to monitor every comment, and comments
          reflect the views of their authors, not ours. To report a comment, write to us through the{" "}
          <Link to="/contact" className={linkClass}>
            contact page
          </Link>{" "}
          and tell us where it appears and why it concerns you.
        </p>
      </LegalSection>

      <LegalSection {...SECTIONS.ip}>
        <p>
          The content of this website and our newsletters, including text, graphics, logos and
          design, belongs to {company} or its licensors and is protected by copyright and trademark
          law.
        </p>
        <p>
          You may read, download and print content for your own use, forward a newsletter issue to
          colleagues, and quote short extracts with attribution and a link to the source. You may
          not republish whole articles or issues, sell or license our content, use it to train AI
          models, or use our names and logos in a way that suggests we endorse you, without our
          written permission.
        </p>
      </LegalSection>

      <LegalSection {...SECTIONS.noAdvice}>
        <div className="rounded-brand border-l-4 border-accent bg-brand/10 p-5">
          <p>
            Nothing on this website or in our newsletters is legal advice. Our content discusses
            eDiscovery, legal technology and related rules in general terms for information only. It
            may not reflect the latest developments and may not apply in your jurisdiction or to
            your facts.
          </p>
        </div>
        <p>
          Reading our content, subscribing, commenting or contacting us does not create an
          attorney-client relationship or any other professional relationship with us. Do not act,
          or refrain from acting, on the basis of our content without advice from a qualified lawyer
          in your jurisdiction, and do not send us confidential or privileged information unless we
          have agreed in writing to act for you.
        </p>
      </LegalSection>

      <LegalSection {...SECTIONS.disclaimers}>
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
      </LegalSection>

      <LegalSection {...SECTIONS.liability}>
        <p>
          To the fullest extent permitted by law, {company} will not be liable for any indirect,
          incidental, special or consequential loss, or for any loss of profits, business, data or
          goodwill, arising from your use of, or inability to use, this website or our newsletters,
          even if we were told such loss was possible.
        </p>
        <p>
          Because the site and newsletters are provided free of charge, our total liability to you
          for any claim relating to them is limited to one hundred US dollars (US$100).
        </p>
        <p>
          Nothing in these terms excludes or limits liability that cannot be excluded or limited by
          law, such as liability for fraud, or for death or personal injury caused by negligence.
        </p>
      </LegalSection>

      <LegalSection {...SECTIONS.changes}>
        <p>
          We may update these terms from time to time. The date at the top of this page shows when
          they were last revised. If a change is significant, we will tell newsletter subscribers by
          email before it takes effect. If you keep using the site after a change takes effect, the
          updated terms apply to you.
        </p>
      </LegalSection>

      <LegalSection {...SECTIONS.contact}>
        <p>
          Questions about these terms, or reports of content that you believe breaks them, are
          welcome through our{" "}
          <Link to="/contact" className={linkClass}>
            contact page
          </Link>
          .
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
