import { mergeTenantConfig, type TenantConfig } from "../../server/tenants/config";

/** A tenant's configuration as the store would merge it, for tests that render without a database. */
export function testTenantConfig(
  overrides: Record<string, unknown>,
  description = "",
): TenantConfig {
  return mergeTenantConfig({
    id: "keydiscovery",
    name: "KeyDiscovery Legal",
    domain: null,
    description,
    mailerLiteGroupId: null,
    overrides,
  });
}
