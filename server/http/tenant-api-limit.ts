import type { NextFunction, Request, Response } from "express";
import { takeApiRequest } from "../tenants/usage";
import type { RequestScope } from "./context";

/**
 * A tenant's API requests a minute (decision 057): every request to /api/ of a tenant's site is
 * counted for that tenant (MailerLite's webhooks aside: they are MailerLite's, not the tenant's
 * callers'); past the limit, 429 in SPEC §8's envelope, naming the limit. Beside, not instead of,
 * the per-address limits of the functions API.
 */
export async function limitTenantApi(req: Request, res: Response, next: NextFunction) {
  const path = req.path.toLowerCase();
  if (!path.startsWith("/api/") || path.startsWith("/api/webhooks/")) return next();
  try {
    const scope: RequestScope = res.locals.scope;
    const refusal = await takeApiRequest(scope.db, scope.tenantId, scope.env);
    if (!refusal) return next();
    res
      .status(429)
      .set({ "retry-after": "60", "cache-control": "no-store" })
      .json({ error: { status: "RESOURCE_EXHAUSTED", message: refusal } });
  } catch (error) {
    next(error);
  }
}
