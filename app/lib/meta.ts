import type { MetaDescriptor } from "react-router";
import type { RootData } from "../root";

interface PageInfo {
  title: string;
  description: string;
}

interface MetaArgs {
  matches: ReadonlyArray<{ id: string; loaderData?: unknown } | undefined>;
  location: { pathname: string };
}

/** Title, description, canonical URL and Open Graph / Twitter tags for a page of this tenant. */
export function pageMeta({ matches, location }: MetaArgs, page: PageInfo): MetaDescriptor[] {
  const root = matches.find((match) => match?.id === "root")?.loaderData as RootData | undefined;
  const siteName = root?.tenant.companyName ?? "Herald";
  const title =
    location.pathname === "/" ? `${siteName} — ${page.title}` : `${page.title} | ${siteName}`;
  const url = `${root?.origin ?? ""}${location.pathname}`;
  return [
    { title },
    { name: "description", content: page.description },
    { tagName: "link", rel: "canonical", href: url },
    { property: "og:type", content: "website" },
    { property: "og:site_name", content: siteName },
    { property: "og:title", content: page.title },
    { property: "og:description", content: page.description },
    { property: "og:url", content: url },
    { name: "twitter:card", content: "summary" },
    { name: "twitter:title", content: page.title },
    { name: "twitter:description", content: page.description },
  ];
}

/** A page kept out of search engines (staff pages, personal links): its title and `noindex`. */
export function noindexMeta(title: string): MetaDescriptor[] {
  return [{ title }, { name: "robots", content: "noindex" }];
}
