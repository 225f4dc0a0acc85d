import { data } from "react-router";
import { requireStaff } from "../../../server/auth/guards";
import { grantedTenants } from "../../../server/auth/permissions";
import { scopeOf } from "../../../server/http/context";
import { listNewsletters } from "../../../server/newsletters/listing";
import { bindNamedTenant } from "../../../server/tenants/named-tenant";
import { tenantAdminHref } from "../../../server/tenants/staff-tenants";
import { listTenants } from "../../../server/tenants/store";
import { AdminPage } from "../../components/admin-header";
import {
  NewsletterCard,
  newsletterCardData,
  newsletterLinks,
} from "../../components/newsletter-card";
import { noindexMeta } from "../../lib/meta";
import type { Route } from "./+types/cms";

export const meta: Route.MetaFunction = () => noindexMeta("Content management");

/**
 * /admin/cms (DESIGN.md §7.7): the newsletters of every tenant the user's products grant. Links
 * open each tenant's own site — its domain, or `?subdomain=` where it has none (localhost).
 */
export async function loader({ context }: Route.LoaderArgs) {
  const user = requireStaff(context);
  // Each granted tenant's newsletters, whatever the host: each bound after its grant is read.
  const tenants = await listTenants(scopeOf(context).db);
  const allowed = new Set(
    grantedTenants(
      user,
      tenants.map((tenant) => tenant.id),
    ),
  );
  if (allowed.size === 0) {
    throw data({ message: "Your account has no products." }, { status: 403 });
  }
  const sections = await Promise.all(
    tenants
      .filter((tenant) => allowed.has(tenant.id))
      .map(async (tenant) => {
        // The latest page of each tenant; its dashboard pages through the rest.
        const { db } = await bindNamedTenant(context, tenant.id, { staff: user });
        const { items: newsletters, total } = await listNewsletters({ db, tenantId: tenant.id });
        const href = (path: string) => tenantAdminHref(tenant, path);
        return {
          id: tenant.id,
          name: tenant.name,
          dashboardHref: href("/admin/dashboard"),
          total,
          newHref: href("/admin/newsletter/new"),
          // Each card's props: the links open the tenant's own site.
          cards: newsletters.map((newsletter) => ({
            newsletter: newsletterCardData(newsletter),
            links: newsletterLinks(newsletter, href),
          })),
        };
      }),
  );
  return { sections };
}

export default function Cms({ loaderData }: Route.ComponentProps) {
  return (
    <AdminPage title="Content management" className="space-y-12">
      {loaderData.sections.map((section) => (
        <section key={section.id} aria-labelledby={`tenant-${section.id}`}>
          <div className="flex flex-wrap items-center justify-between gap-3">
            <h2 id={`tenant-${section.id}`} className="text-2xl font-bold">
              {section.name}
            </h2>
            <div className="flex gap-3">
              <a href={section.dashboardHref} className="font-semibold">
                Open dashboard
              </a>
              <a href={section.newHref} className="font-semibold">
                Create New Newsletter
              </a>
            </div>
          </div>
          {section.cards.length === 0 ? (
            <p className="mt-4 rounded-brand border border-dashed border-black/30 p-6 text-center">
              No newsletters found. Create your first one!
            </p>
          ) : (
            <div className="mt-5 grid gap-5 sm:grid-cols-2 lg:grid-cols-3">
              {section.cards.map((card) => (
                <NewsletterCard key={card.newsletter.id} {...card} />
              ))}
            </div>
          )}
          {section.total > section.cards.length ? (
            <p className="mt-4">
              Showing the latest {section.cards.length} of {section.total}.{" "}
              <a href={section.dashboardHref} className="font-semibold">
                See them all on the dashboard
              </a>
            </p>
          ) : null}
        </section>
      ))}
    </AdminPage>
  );
}
