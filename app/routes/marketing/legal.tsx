import { useRouteLoaderData } from "react-router";
import { LegalPage } from "../../components/legal-document";
import { PRIVACY, TERMS } from "../../content/legal";
import { pageMeta } from "../../lib/meta";
import type { loader as rootLoader } from "../../root";
import type { Route } from "./+types/legal";

/** /privacy and /terms (app/routes.ts gives this module once for each, by route id). */
const DOCUMENTS = { privacy: PRIVACY, terms: TERMS } as const;

function documentOf(routeId: string) {
  return routeId === "terms" ? DOCUMENTS.terms : DOCUMENTS.privacy;
}

export const meta: Route.MetaFunction = (args) => {
  const content = documentOf(args.matches.at(-1)?.id ?? "");
  return pageMeta(args, { title: content.title, description: content.description });
};

export default function Legal({ matches }: Route.ComponentProps) {
  const root = useRouteLoaderData<typeof rootLoader>("root");
  const content = documentOf(matches.at(-1)?.id ?? "");
  return (
    <LegalPage
      content={content}
      party={{
        company: root?.tenant.companyName || "the operator of this website",
        address: root?.tenant.companyAddress || undefined,
      }}
    />
  );
}
