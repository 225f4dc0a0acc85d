import type { Db } from "../db";
import { insertTenantIfMissing } from "./admin";
import type { TenantOverrides } from "./config";

interface SeedTenant {
  id: string;
  name: string;
  description: string;
  overrides: TenantOverrides;
}

/**
 * The two tenants every installation starts with. `main` is the default brand on the defaults of
 * SPEC §3; `keydiscovery` is the eDiscovery practice with its own look, so the two are told apart
 * at a glance.
 */
export const SEED_TENANTS: SeedTenant[] = [
  {
    id: "main",
    name: "KeyDiscovery",
    description: "Automation and executive-voice newsletters for legal technology teams.",
    overrides: {
      branding: {
        companyAddress: "1200 Market Street, Suite 400, Philadelphia, PA 19107",
      },
    },
  },
  {
    id: "keydiscovery",
    name: "KeyDiscovery Legal",
    description: "The eDiscovery and litigation-support practice of KeyDiscovery.",
    overrides: {
      branding: {
        primaryColor: "#1b365d",
        secondaryColor: "#c9a227",
        accentColor: "#2a9d8f",
        textColor: "#1c1c1c",
        backgroundColor: "#fbfaf7",
        borderRadius: "2px",
        fontFamily: 'Georgia, Cambria, "Times New Roman", Times, serif',
        companyName: "KeyDiscovery Legal",
        companyAddress: "77 West Wacker Drive, Floor 21, Chicago, IL 60601",
      },
      email: { senderName: "KeyDiscovery Legal", senderEmail: "newsletter@keydiscovery.com" },
    },
  },
];

/** Inserts the seed tenants that are missing; never overwrites a tenant staff have edited. */
export async function seedTenants(db: Db): Promise<void> {
  const now = new Date().toISOString();
  for (const tenant of SEED_TENANTS) await insertTenantIfMissing(db, tenant, now);
}
