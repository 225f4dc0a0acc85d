import { z } from "zod";
import { canManageTenant, type StaffUser } from "../auth/permissions";
import { sendAsCampaign } from "../campaigns/send-as-campaign";
import { boundTenantOf, crossTenant, tenantDb } from "../db/tenant-guard";
import { publicOrigin } from "../http/origin";
import { createRateLimit } from "../http/rate-limit";
import { providerFor } from "../providers";
import type { MailProvider } from "../providers/types";
import type { Scope } from "../scope";
import type { SubscriptionContext } from "../subscribers/subscribers";
import type { TenantConfig } from "../tenants/config";
import { getTenant, getTenantDirectory } from "../tenants/store";
import {
  addSubscriber,
  completeNewsletterSignup,
  getAllGroups,
  getSubscriber,
} from "./audience-functions";
import { API_MESSAGES, ApiError } from "./errors";
import { defineFunction, FUNCTION_MESSAGES, type RegisteredFunction } from "./function-definition";
import { createAndSendCampaign, getCampaigns, sendEmail } from "./sending-functions";

/**
 * SPEC §7's callable functions (issue 6), served at POST /api/functions/{name} and called directly
 * by the /test/functions page. Each handler calls the same server/ functions as the pages do
 * (audience-functions.ts, sending-functions.ts); this file lists them and decides who may call what,
 * on which tenant.
 */

/**
 * What a call needs from its request: the request's own tenant (the host decides), its database
 * (bound to that tenant) and its services.
 */
export type FunctionScope = Pick<
  Scope,
  "db" | "logger" | "transport" | "env" | "sessionSecret" | "clientAddress" | "tenant" | "worker"
>;

/**
 * The scope a function acts in: the tenant the call acts on (the request's, or another tenant
 * the caller manages) and the database bound to that same tenant, so a function never holds the
 * request's database beside another tenant.
 */
export function functionTenantScope(
  scope: Pick<FunctionScope, "db" | "logger" | "transport" | "env" | "sessionSecret">,
  tenant: TenantConfig,
): SubscriptionContext {
  return {
    // The request's database is bound to the host's tenant; another tenant's is bound afresh.
    db:
      boundTenantOf(scope.db) === tenant.id ? scope.db : tenantDb(crossTenant(scope.db), tenant.id),
    logger: scope.logger,
    transport: scope.transport,
    tenant,
    origin: publicOrigin(tenant, scope.env),
    sessionSecret: scope.sessionSecret,
  };
}

/** Anonymous calls per client address and tenant: enough for a visitor, little for a script. */
export const functionRateLimit = createRateLimit({
  name: "functions",
  points: 30,
  windowSeconds: 600,
});

const helloWorld = defineFunction({
  summary: "Test the connection: echoes test and timestamp",
  anonymous: true,
  input: z.object({
    test: z.union([z.string().max(1000), z.number(), z.boolean()]).nullish(),
    timestamp: z.union([z.string().max(100), z.number()]).nullish(),
  }),
  async handler(ctx, data) {
    return {
      message: "Hello from Herald!",
      test: data.test ?? null,
      timestamp: data.timestamp ?? null,
      serverTime: new Date().toISOString(),
      tenantId: ctx.subscription.tenant.id,
    };
  },
});

export const FUNCTIONS: Record<string, RegisteredFunction> = {
  helloWorld,
  addSubscriber,
  sendEmail,
  completeNewsletterSignup,
  getAllGroups,
  createAndSendCampaign,
  getCampaigns,
  getSubscriber,
};

export const FUNCTION_NAMES = Object.keys(FUNCTIONS);

/**
 * The tenant a call acts on. Anonymous callers act on the request's tenant (DESIGN.md §3); staff may
 * name another tenant in `tenantId` when they may manage it.
 */
async function targetTenant(
  scope: FunctionScope,
  tenantId: string | null,
  caller: StaffUser | null,
): Promise<TenantConfig> {
  if (!tenantId || tenantId === scope.tenant.id) return scope.tenant;
  if (!caller) throw new ApiError("UNAUTHENTICATED", FUNCTION_MESSAGES.otherTenantAnonymous);
  if (!(await getTenantDirectory(scope.db)).ids.has(tenantId)) {
    throw new ApiError("NOT_FOUND", FUNCTION_MESSAGES.tenantNotFound);
  }
  if (!canManageTenant(caller, tenantId)) {
    throw new ApiError("PERMISSION_DENIED", FUNCTION_MESSAGES.noTenantAccess);
  }
  return (await getTenant(scope.db, tenantId)).config;
}

/**
 * Calls function `name` with `data` as `caller` (null: anonymous). Throws ApiError, or an error
 * that toApiError maps (ZodError, ProviderError, CampaignError, SubscriptionError), for SPEC §8.
 */
export async function callFunction(
  scope: FunctionScope,
  name: string,
  data: unknown,
  caller: StaffUser | null,
): Promise<unknown> {
  const fn = Object.hasOwn(FUNCTIONS, name) ? FUNCTIONS[name] : undefined;
  if (!fn) throw new ApiError("NOT_FOUND", FUNCTION_MESSAGES.notFound(name.slice(0, 100)));
  if (!fn.anonymous && !caller) {
    throw new ApiError("UNAUTHENTICATED", API_MESSAGES.unauthenticated);
  }
  // Calls from anyone but this tenant's staff count against the caller's address.
  if (!caller || !canManageTenant(caller, scope.tenant.id)) {
    if (!(await functionRateLimit.take(`${scope.tenant.id}:${scope.clientAddress}`))) {
      throw new ApiError("RESOURCE_EXHAUSTED", FUNCTION_MESSAGES.rateLimited);
    }
  }
  const call = fn.bind(data ?? {});
  const tenant = await targetTenant(scope, call.tenantId, caller);
  const trusted = caller !== null && canManageTenant(caller, tenant.id);
  if (!fn.anonymous && !trusted) {
    throw new ApiError("PERMISSION_DENIED", FUNCTION_MESSAGES.noTenantAccess);
  }
  const subscription = functionTenantScope(scope, tenant);
  scope.logger.info(
    { function: name, tenantId: tenant.id, caller: caller?.email ?? null },
    "function call",
  );
  let provider: MailProvider | undefined;
  return call.run(
    {
      subscription,
      provider: () => {
        provider ??= providerFor(subscription, { createdBy: caller?.id ?? null, env: scope.env });
        return provider;
      },
      sendAsCampaign: (input) =>
        sendAsCampaign(subscription, input, {
          userId: caller?.id ?? null,
          worker: scope.worker,
          env: scope.env,
        }),
      clientAddress: scope.clientAddress,
      env: scope.env,
      trusted,
    },
    caller,
  );
}
