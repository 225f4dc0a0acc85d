import type { Env } from "../env";
import { getEnv } from "../env";
import type { SubscriptionContext } from "../subscribers/subscribers";
import type { TenantConfig } from "../tenants/config";
import { FIXED_SENDER } from "../tenants/config";
import { BuiltinProvider } from "./builtin";
import { MailerLiteProvider } from "./mailerlite";
import { type MailProvider, ProviderError } from "./types";

export type ProviderName = MailProvider["name"];
type ProviderEnv = Pick<Env, "MAIL_PROVIDER" | "MAILERLITE_API_KEY" | "MAILERLITE_BASE_URL">;

/** The tenant's own choice, else the deployment's MAIL_PROVIDER (DESIGN.md §5). */
export function providerNameFor(tenant: TenantConfig, env: ProviderEnv = getEnv()): ProviderName {
  return tenant.mailProvider || env.MAIL_PROVIDER;
}

/**
 * The tenant's lists as MailerLite group ids, the default list first (its id is the tenant's
 * mailerLiteGroupId unless the list has its own mapping). Lists without an id are not sent.
 */
export function mailerLiteGroupIds(tenant: TenantConfig): Record<string, string> {
  const ids: Record<string, string> = {};
  const defaultKey = tenant.emailGroups.default;
  const defaultId = tenant.mailerLiteGroups[defaultKey] || tenant.mailerLiteGroupId;
  if (defaultId) ids[defaultKey] = defaultId;
  for (const key of tenant.emailGroups.groups) {
    const id = tenant.mailerLiteGroups[key];
    if (id && !(key in ids)) ids[key] = id;
  }
  return ids;
}

/** The mail provider a tenant's pages, functions and campaigns go through. */
export function providerFor(
  ctx: SubscriptionContext,
  options: { createdBy?: string | null; env?: ProviderEnv } = {},
): MailProvider {
  const env = options.env ?? getEnv();
  if (providerNameFor(ctx.tenant, env) === "builtin") {
    return new BuiltinProvider(ctx, options.createdBy ?? null);
  }
  if (!env.MAILERLITE_API_KEY) {
    throw new ProviderError(
      `${ctx.tenant.name} uses MailerLite, but MAILERLITE_API_KEY is not set.`,
      "UNAVAILABLE",
    );
  }
  return new MailerLiteProvider({
    apiKey: env.MAILERLITE_API_KEY,
    baseUrl: env.MAILERLITE_BASE_URL,
    groupIds: mailerLiteGroupIds(ctx.tenant),
    defaultSender: {
      name: ctx.tenant.email.senderName || FIXED_SENDER.name,
      email: ctx.tenant.email.senderEmail || FIXED_SENDER.email,
    },
  });
}
