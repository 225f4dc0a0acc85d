import type { Db } from "../db";
import type { TenantConfig } from "../tenants/config";

export interface MailingList {
  id: number;
  key: string;
  name: string;
  description: string;
}

/** The lists every tenant starts with (SPEC §3 Group): its email groups, named after the tenant. */
export function defaultListsFor(tenant: TenantConfig): Omit<MailingList, "id">[] {
  const known: Record<string, { name: string; description: string }> = {
    newsletter: {
      name: `${tenant.name} Newsletter`,
      description: "Insights and analysis on legal technology trends and innovations.",
    },
    "product-updates": {
      name: `${tenant.name} Updates`,
      description: "Latest news and updates from the platform.",
    },
    "industry-news": {
      name: "Industry News",
      description: "A weekly round-up of eDiscovery and legal-technology news worth your time.",
    },
  };
  return tenant.emailGroups.groups.map((key) => ({
    key,
    name: known[key]?.name ?? key.replace(/[-_]+/g, " ").replace(/\b\w/g, (c) => c.toUpperCase()),
    description: known[key]?.description ?? "",
  }));
}

/** The tenant's lists, creating the default ones on first use. */
export async function listTenantLists(db: Db, tenant: TenantConfig): Promise<MailingList[]> {
  const existing = await db
    .selectFrom("lists")
    .select(["id", "key", "name", "description"])
    .where("tenant_id", "=", tenant.id)
    .orderBy("id")
    .execute();
  const missing = defaultListsFor(tenant).filter(
    (list) => !existing.some((row) => row.key === list.key),
  );
  if (missing.length === 0) return existing;
  const now = new Date().toISOString();
  await db
    .insertInto("lists")
    .values(missing.map((list) => ({ ...list, tenant_id: tenant.id, created_at: now })))
    .onConflict((oc) => oc.columns(["tenant_id", "key"]).doNothing())
    .execute();
  return db
    .selectFrom("lists")
    .select(["id", "key", "name", "description"])
    .where("tenant_id", "=", tenant.id)
    .orderBy("id")
    .execute();
}

/**
 * SPEC §5: a list may be named by its key, its numeric id as a string, or a number. Unknown names
 * are dropped; the caller decides whether an empty result is an error ('No valid groups specified').
 */
export function resolveLists(
  lists: MailingList[],
  names: readonly (string | number)[],
): MailingList[] {
  const chosen = new Map<number, MailingList>();
  for (const name of names) {
    const text = String(name).trim();
    const list = lists.find((candidate) => candidate.key === text || String(candidate.id) === text);
    if (list) chosen.set(list.id, list);
  }
  return [...chosen.values()];
}
