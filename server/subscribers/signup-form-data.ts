import type { RouterContextProvider } from "react-router";
import { scopeOf } from "../http/context";
import { MiB, memoryCache, stringBytes } from "../memory-cache";
import type { TenantConfig } from "../tenants/config";
import { TENANT_CACHE_TTL_MS } from "../tenants/store";
import { listTenantLists, offeredLists, onListsChanged } from "./lists";

/** What the sign-up form (app/components/signup-form.tsx) needs: the lists it offers. */
export interface SignupFormData {
  lists: { key: string; name: string; description: string }[];
  /** the list ticked by default (the compact form joins only this one) */
  defaultList: string;
}

/**
 * The current tenant's lists for the sign-up form, for any page's loader to pass on. The default is
 * the tenant's configured default list, or its first list when that key is not one of its lists.
 */
export async function signupFormData(
  context: Readonly<RouterContextProvider>,
): Promise<SignupFormData> {
  const { db, tenant } = scopeOf(context);
  const kept = signupForms.get(tenant.id);
  if (kept && kept.tenant === tenant) return kept.value;
  const lists = offeredLists(await listTenantLists(db, tenant));
  const configured = tenant.emailGroups.default;
  const value: SignupFormData = {
    lists: lists.map(({ key, name, description }) => ({ key, name, description })),
    defaultList: lists.some((list) => list.key === configured)
      ? configured
      : (lists[0]?.key ?? configured),
  };
  signupForms.set(tenant.id, { tenant, value });
  return value;
}

/**
 * Every page with a sign-up form reads it, so it is kept per tenant as the tenant's config is
 * (server/tenants/store.ts): dropped when this instance changes the tenant's lists or reloads its
 * config, and read again after TENANT_CACHE_TTL_MS for changes made by other instances.
 */
const signupForms = memoryCache<string, { tenant: TenantConfig; value: SignupFormData }>({
  maxBytes: 4 * MiB,
  ttlMs: TENANT_CACHE_TTL_MS,
  // the config is the tenant's own cached object, counted where it is kept (server/tenants/store.ts)
  bytesOf: (entry, tenantId) => stringBytes(tenantId) + stringBytes(JSON.stringify(entry.value)),
});
onListsChanged((tenantId) => signupForms.delete(tenantId));
