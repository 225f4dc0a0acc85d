import { getEnv } from "../env";
import type { SubscriptionContext } from "../subscribers/subscribers";
import { BuiltinProvider } from "./builtin";
import { mailerLiteFor, type ProviderEnv, providerNameFor } from "./choice";
import type { MailProvider } from "./types";

export { mailerLiteGroupIds, type ProviderName, providerNameFor } from "./choice";

/** The mail provider a tenant's pages, functions and campaigns go through. */
export function providerFor(
  ctx: SubscriptionContext,
  options: { createdBy?: string | null; env?: ProviderEnv } = {},
): MailProvider {
  const env = options.env ?? getEnv();
  if (providerNameFor(ctx.tenant, env) === "builtin") {
    return new BuiltinProvider(ctx, options.createdBy ?? null);
  }
  return mailerLiteFor(ctx.tenant, env, ctx.origin);
}
