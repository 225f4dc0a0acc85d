import { Form, redirect, useSearchParams } from "react-router";
import { requireTenantAccess } from "../../../server/auth/guards";
import { scopeOf } from "../../../server/http/context";
import { listNewsletters, STAFF_PAGE_SIZE } from "../../../server/newsletters/listing";
import { dashboardNumbers } from "../../../server/tenants/dashboard-numbers";
import { tenantUsage } from "../../../server/tenants/usage";
import { z } from "../../../shared/zod";
import { DashboardFigures } from "../../components/admin/dashboard-numbers";
import { UsageFigures } from "../../components/admin/tenant-limits";
import { AdminPage, SignOutButton } from "../../components/admin-header";
import { NewsletterCard, newsletterCardData } from "../../components/newsletter-card";
import { Pagination } from "../../components/pagination";
import { FilterSearch, FilterSelect } from "../../components/ui/form";
import { noindexMeta } from "../../lib/meta";
import { Link } from "../../lib/page-scripts";
import type { Route } from "./+types/dashboard";

export const meta: Route.MetaFunction = () => noindexMeta("Newsletter Management");

const filterSchema = z.object({
  status: z.enum(["draft", "published"]).optional().catch(undefined),
  q: z.string().trim().max(200).optional().catch(undefined),
  page: z.coerce.number().int().min(1).max(100_000).catch(1).default(1),
});

export async function loader({ url, context }: Route.LoaderArgs) {
  requireTenantAccess(context);
  const scope = scopeOf(context);
  const filter = filterSchema.parse(Object.fromEntries(url.searchParams));
  const [{ items, total }, numbers, usage] = await Promise.all([
    listNewsletters(
      scope,
      { status: filter.status, search: filter.q },
      { page: filter.page, pageSize: STAFF_PAGE_SIZE },
    ),
    dashboardNumbers(scope),
    tenantUsage(scope.db, scope.tenantId, scope.env),
  ]);
  const pageCount = Math.max(1, Math.ceil(total / STAFF_PAGE_SIZE));
  // Past the end (newsletters were deleted, an old link): the last page, with the same filters.
  if (filter.page > pageCount) {
    const last = new URL(url);
    last.searchParams.set("page", String(pageCount));
    throw redirect(`${last.pathname}${last.search}`);
  }
  return {
    newsletters: items.map(newsletterCardData),
    page: filter.page,
    pageCount,
    total,
    numbers,
    usage,
  };
}

export default function Dashboard({ loaderData }: Route.ComponentProps) {
  const [searchParams] = useSearchParams();
  const filtered = Boolean(searchParams.get("status")) || Boolean(searchParams.get("q"));
  return (
    <AdminPage
      title="Newsletter Management"
      actions={
        <>
          <SignOutButton />
          <Link
            to="/admin/newsletter/import"
            className="rounded-brand border-2 border-brand-strong px-4 py-2 font-semibold text-brand-strong no-underline"
          >
            Import from Ghost or Substack
          </Link>
          <Link
            to="/admin/newsletter/new"
            className="rounded-brand bg-brand-strong px-4 py-2 font-semibold text-on-brand-strong no-underline"
          >
            Create New Newsletter
          </Link>
        </>
      }
    >
      <DashboardFigures numbers={loaderData.numbers} />
      <UsageFigures lines={loaderData.usage} />
      <Form
        method="get"
        className="flex flex-wrap items-end gap-3"
        role="search"
        aria-label="Filter newsletters"
      >
        <FilterSelect
          name="status"
          label="Status"
          defaultValue={searchParams.get("status") ?? ""}
          options={[
            { value: "", label: "All" },
            { value: "draft", label: "Drafts" },
            { value: "published", label: "Published" },
          ]}
        />
        <FilterSearch
          label="Title contains"
          defaultValue={searchParams.get("q") ?? ""}
          className="min-w-48 flex-1 sm:flex-none"
        />
        <button
          type="submit"
          className="rounded-brand border-2 border-brand-strong px-4 py-2 font-semibold text-brand-strong"
        >
          Filter
        </button>
        {filtered ? (
          <Link to="/admin/dashboard" className="px-2 py-2 font-medium">
            Clear filters
          </Link>
        ) : null}
      </Form>

      {loaderData.newsletters.length === 0 ? (
        <p className="mt-10 rounded-brand border border-dashed border-black/30 p-8 text-center text-lg">
          {filtered
            ? "No newsletters match these filters."
            : "No newsletters found. Create your first one!"}
        </p>
      ) : (
        <section aria-labelledby="newsletters-heading" className="mt-8">
          <h2 id="newsletters-heading" className="sr-only">
            Newsletters
          </h2>
          <div className="grid gap-5 sm:grid-cols-2 lg:grid-cols-3">
            {loaderData.newsletters.map((newsletter) => (
              <NewsletterCard
                key={newsletter.id}
                newsletter={newsletter}
                sendHref={`/admin/newsletter/send/${newsletter.id}`}
              />
            ))}
          </div>
          <Pagination
            page={loaderData.page}
            pageCount={loaderData.pageCount}
            href={(page) => {
              const params = new URLSearchParams(searchParams);
              params.set("page", String(page));
              return `/admin/dashboard?${params}`;
            }}
          />
        </section>
      )}
    </AdminPage>
  );
}
