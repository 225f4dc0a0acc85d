import { mailContentFor } from "../emails/templates";
import type { Env } from "../env";
import { getEnv } from "../env";
import type { TenantConfig } from "../tenants/config";
import { FIXED_SENDER } from "../tenants/config";
import { MailerLiteProvider } from "./mailerlite";
import { type MailProvider, ProviderError } from "./types";

/**
 * Which provider holds a tenant's audience, and the MailerLite remote itself. Apart from
 * providers/index.ts so the MailerLite mirror can reach the remote without the builtin provider,
 * which is built on the subscription flows that use the mirror.
 */

export type ProviderName = MailProvider["name"];
export type ProviderEnv = Pick<Env, "MAIL_PROVIDER" | "MAILERLITE_API_KEY" | "MAILERLITE_BASE_URL">;

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

/** The MailerLite remote of a tenant whose audience lives there. */
export function mailerLiteFor(
  tenant: TenantConfig,
  env: ProviderEnv = getEnv(),
  /** where the tenant's pages are: campaigns' content then gets the email pass (absolute links) */
  origin?: string,
): MailerLiteProvider {
  if (!env.MAILERLITE_API_KEY) {
    throw new ProviderError(
      `${tenant.name} uses MailerLite, but MAILERLITE_API_KEY is not set.`,
      "UNAVAILABLE",
    );
  }
  return new MailerLiteProvider({
    apiKey: env.MAILERLITE_API_KEY,
    baseUrl: env.MAILERLITE_BASE_URL,
    groupIds: mailerLiteGroupIds(tenant),
    defaultSender: {
      name: tenant.email.senderName || FIXED_SENDER.name,
      email: tenant.email.senderEmail || FIXED_SENDER.email,
    },
    emailContent: origin ? (html) => mailContentFor(tenant, html, origin) : undefined,
  });
}
