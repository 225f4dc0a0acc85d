import {
  NarrowedArchiveError,
  NarrowedArchivePage,
  tagPath,
} from "../../components/newsletter-archive";
import { archiveListMeta, noindexMeta } from "../../lib/meta";
import type { Route } from "./+types/tag";

export { loader } from "./tag.server";

const NOT_FOUND = { title: "Tag not found", text: "No published newsletter has this tag." };

export const meta: Route.MetaFunction = (args) => {
  const data = args.loaderData;
  if (!data) return noindexMeta(NOT_FOUND.title);
  return archiveListMeta(args, {
    title: data.tag.name,
    description: `Newsletter issues about ${data.tag.name}.`,
    page: data.page,
  });
};

export default function TagPage({ loaderData }: Route.ComponentProps) {
  const { tag, total } = loaderData;
  return (
    <NarrowedArchivePage
      eyebrow="Newsletter tag"
      title={tag.name}
      lead={`${total} ${total === 1 ? "issue" : "issues"} about ${tag.name}.`}
      heading={`Issues tagged “${tag.name}”`}
      archive={loaderData}
      path={tagPath(tag.slug)}
      currentTag={tag.slug}
      empty="No published issues have this tag."
    />
  );
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  return <NarrowedArchiveError error={error} notFound={NOT_FOUND} />;
}
