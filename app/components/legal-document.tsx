import type { ReactNode } from "react";
import { Container, PageHero } from "./ui/layout";

export const LAST_UPDATED = "November 22, 2026";

interface SectionInfo {
  id: string;
  title: string;
}

/** The frame of the legal pages (/privacy, /terms): hero, "On this page" contents, then the sections. */
export function LegalDocument({
  title,
  lead,
  sections,
  children,
}: {
  title: string;
  lead: string;
  sections: SectionInfo[];
  children: ReactNode;
}) {
  return (
    <main>
      <PageHero eyebrow="Legal" title={title} lead={lead}>
        <p className="text-sm font-medium">Last updated: {LAST_UPDATED}</p>
      </PageHero>

      <Container className="py-12 sm:py-16">
        <div className="lg:grid lg:grid-cols-[16rem_minmax(0,1fr)] lg:gap-12">
          <nav
            aria-labelledby="contents-heading"
            className="mb-10 rounded-brand border border-black/10 bg-black/[0.03] p-5 lg:sticky lg:top-8 lg:mb-0 lg:self-start"
          >
            <h2 id="contents-heading" className="text-sm font-semibold uppercase tracking-wider">
              On this page
            </h2>
            <ol className="mt-3 space-y-2 text-sm">
              {sections.map((section) => (
                <li key={section.id}>
                  <a href={`#${section.id}`} className="underline-offset-2 hover:underline">
                    {section.title}
                  </a>
                </li>
              ))}
            </ol>
          </nav>
          <div className="max-w-3xl space-y-12">{children}</div>
        </div>
      </Container>
    </main>
  );
}

export function LegalSection({ id, title, children }: SectionInfo & { children: ReactNode }) {
  return (
    <section id={id} aria-labelledby={`${id}-heading`} className="scroll-mt-8">
      <h2 id={`${id}-heading`} className="text-2xl font-bold">
        {title}
      </h2>
      <div className="mt-4 space-y-4 leading-relaxed">{children}</div>
    </section>
  );
}

/** Who the legal text speaks for: the tenant's company name and postal address. */
export interface LegalParty {
  company: string;
  address?: string;
}

/** A legal page as data (app/content/legal.tsx): one component renders every one. */
export interface LegalDocumentContent {
  title: string;
  description: string;
  lead(company: string): string;
  sections: (SectionInfo & { body(party: LegalParty): ReactNode })[];
}

export function LegalPage({
  content,
  party,
}: {
  content: LegalDocumentContent;
  party: LegalParty;
}) {
  return (
    <LegalDocument
      title={content.title}
      lead={content.lead(party.company)}
      sections={content.sections.map(({ id, title }) => ({ id, title }))}
    >
      {content.sections.map((section) => (
        <LegalSection key={section.id} id={section.id} title={section.title}>
          {section.body(party)}
        </LegalSection>
      ))}
    </LegalDocument>
  );
}
