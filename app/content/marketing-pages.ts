/** The marketing pages' titles and descriptions (their <title>, description and share tags). */
export const MARKETING_PAGES = {
  home: {
    title: "Executive-voice newsletters and automation for legal technology",
    description:
      "A weekly newsletter in your leaders' own voice, published by email and on LinkedIn, plus the automation that turns readers into qualified eDiscovery and legal-technology leads.",
  },
  about: {
    title: "About us",
    description:
      "Our mission, values and Voice / Vision / Values approach: helping eDiscovery and legal-technology leaders earn buyers' trust with a weekly newsletter.",
  },
  services: {
    title: "Services",
    description:
      "Lead nurture, response optimization, data analysis, consulting and custom automation for eDiscovery providers, legal-tech vendors and law-firm teams.",
  },
  products: {
    title: "Products",
    description:
      "A multi-tenant newsletter platform, Reader-First Insights analytics and custom automation, built for eDiscovery and legal-technology teams.",
  },
  contact: {
    title: "Contact us",
    description:
      "Tell us about your eDiscovery or legal-technology team. We reply within 24 hours, Monday to Friday, 9 AM to 6 PM EST, and most projects run 4 to 8 weeks.",
  },
} as const;
