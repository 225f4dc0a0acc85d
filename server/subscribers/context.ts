import type { RouterContextProvider } from "react-router";
import { requestContext, tenantContext } from "../http/context";
import type { SubscriptionContext } from "./subscribers";

/** The subscription context of a request: this tenant, its database, mail transport and link origin. */
export function subscriptionContextFrom(
  context: Readonly<RouterContextProvider>,
): SubscriptionContext {
  const scope = context.get(requestContext);
  return {
    db: scope.db,
    logger: scope.logger,
    transport: scope.transport,
    tenant: context.get(tenantContext),
    origin: scope.origin,
    sessionSecret: scope.sessionSecret,
  };
}
