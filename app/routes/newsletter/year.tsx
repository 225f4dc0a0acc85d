import {
  NarrowedArchiveError,
  NarrowedArchivePage,
  yearPath,
} from "../../components/newsletter-archive";
import { archiveListMeta, noindexMeta } from "../../lib/meta";
import type { Route } from "./+types/year";

export { loader } from "./year.server";

const NOT_FOUND = {
  title: "No newsletters this year",
  text: "No newsletter was published in that year.",
};

export const meta: Route.MetaFunction = (args) => {
  const data = args.loaderData;
  if (!data) return noindexMeta(NOT_FOUND.title);
  return archiveListMeta(args, {
    title: `Newsletters of ${data.year}`,
    description: `Every newsletter issue published in ${data.year}.`,
    page: data.page,
  });
};

export default function YearPage({ loaderData }: Route.ComponentProps) {
  const { year, total } = loaderData;
  return (
    <NarrowedArchivePage
      eyebrow="Newsletter archive"
      title={`Newsletters of ${year}`}
      lead={`${total} ${total === 1 ? "issue" : "issues"} published in ${year}.`}
      heading={`Issues of ${year}`}
      archive={loaderData}
      path={yearPath(year)}
      currentYear={year}
      empty={`No issues were published in ${year}.`}
    />
  );
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  return <NarrowedArchiveError error={error} notFound={NOT_FOUND} />;
}
