import type { RouterContextProvider } from "react-router";
import { z } from "zod";
import { CAMPAIGN_STATUSES } from "../../shared/schemas/campaign";
import { emailField, isValidEmail } from "../../shared/schemas/email";
import { SIGNUP_LIMITS, SIGNUP_MAIL_FAILED, SIGNUP_THANKS } from "../../shared/schemas/signup";
import { canManageTenant, type StaffUser } from "../auth/permissions";
import { CAMPAIGN_MESSAGES } from "../campaigns/campaigns";
import { cleanCampaignContent } from "../campaigns/clean-content";
import { sendAsCampaign } from "../campaigns/send-as-campaign";
import { crossTenant, tenantDb } from "../db/tenant-guard";
import { CAMPAIGN_MARKERS, renderCampaignEmail } from "../emails/campaign";
import { mailContentFor, plainPreviewOf, siteNameOf } from "../emails/templates";
import type { Env } from "../env";
import { scopeOf } from "../http/context";
import { publicOrigin } from "../http/origin";
import { createRateLimit } from "../http/rate-limit";
import { MailNotSentError, sendMail } from "../mail/send";
import { mailerLiteGroupIds, providerFor, providerNameFor } from "../providers";
import type { ProviderCampaignInput } from "../providers/types";
import { type MailProvider, PROVIDER_MESSAGES, type ProviderSubscriber } from "../providers/types";
import type { Scope } from "../scope";
import { listTenantLists, offeredLists, resolveLists } from "../subscribers/lists";
import { submitNewsletterSignup } from "../subscribers/signup-submission";
import {
  normaliseSubscriberEmail,
  type SubscriptionContext,
  signUp,
  subscriberFromToken,
  tenantLink,
} from "../subscribers/subscribers";
import { FIXED_SENDER, type TenantConfig } from "../tenants/config";
import { foreignSenderProblem } from "../tenants/sender-domains";
import { getTenant, getTenantDirectory } from "../tenants/store";
import { API_MESSAGES, ApiError, statusForHttp } from "./errors";

/**
 * SPEC §7's callable functions (issue 6), served at POST /api/functions/{name} and called directly
 * by the /test/functions page. Each handler calls the same server/ functions as the pages do; this
 * file only decides who may call what, on which tenant, and shapes the answers.
 */

/** What a call needs from its request: the request's own tenant (the host decides) and its services. */
export type FunctionScope = Pick<
  Scope,
  "db" | "logger" | "transport" | "env" | "sessionSecret" | "clientAddress" | "tenant" | "worker"
>;

export function functionScopeFrom(context: Readonly<RouterContextProvider>): FunctionScope {
  const scope = scopeOf(context);
  return {
    db: scope.db,
    logger: scope.logger,
    transport: scope.transport,
    env: scope.env,
    sessionSecret: scope.sessionSecret,
    clientAddress: scope.clientAddress,
    worker: scope.worker,
    tenant: scopeOf(context).tenant,
  };
}

/** What a handler gets: the tenant it acts on, its provider, and who is calling. */
export interface FunctionContext {
  subscription: SubscriptionContext;
  /** the tenant's mail provider (built-in or MailerLite), made on first use */
  provider(): MailProvider;
  /** sends content as a campaign, as the admin page does (server/campaigns/send-as-campaign.ts) */
  sendAsCampaign(input: ProviderCampaignInput): ReturnType<typeof sendAsCampaign>;
  clientAddress: string;
  env: Env;
  /** a staff member allowed to manage this tenant: sees full records, is not rate-limited */
  trusted: boolean;
}

interface CallableFunction<Input extends z.ZodObject> {
  /** one line for the OpenAPI document */
  summary: string;
  /** callable without signing in (SPEC §6: the site calls these for visitors) */
  anonymous: boolean;
  input: Input;
  handler(ctx: FunctionContext, data: z.output<Input>, caller: StaffUser | null): Promise<unknown>;
}

/** A function of the registry: its payload is checked once, then the call runs on it. */
export interface RegisteredFunction {
  summary: string;
  anonymous: boolean;
  /** the payload's schema (for the OpenAPI document) */
  input: z.ZodType;
  /** Parses the payload (ZodError when it is wrong) and binds the handler to it. */
  bind(data: unknown): {
    tenantId: string | null;
    run(ctx: FunctionContext, caller: StaffUser | null): Promise<unknown>;
  };
}

const tenantIdField = z.string().trim().min(1).max(100).nullish();

/**
 * Every function takes `tenantId` (staff acting on another tenant they manage, issue 14): it is
 * part of each payload's schema here, once, so no function can leave it out and act on the host's
 * tenant instead.
 */
function defineFunction<Input extends z.ZodObject>(
  fn: CallableFunction<Input>,
): RegisteredFunction {
  const input = fn.input.extend({ tenantId: tenantIdField });
  return {
    summary: fn.summary,
    anonymous: fn.anonymous,
    input,
    bind(data) {
      const { tenantId, ...payload } = input.parse(data);
      return {
        tenantId: (tenantId as string | null | undefined) || null,
        run: (ctx, caller) => fn.handler(ctx, payload as z.output<Input>, caller),
      };
    },
  };
}

export const FUNCTION_MESSAGES = {
  notFound: (name: string) => `Function ${name} not found`,
  tenantNotFound: "Tenant not found",
  noTenantAccess: "You do not have access to this tenant.",
  otherTenantAnonymous: "Sign in to act on another tenant",
  signedLinkRequired:
    "Looking up a subscriber needs the signed token of their preference link (or a staff sign-in).",
  rateLimited: "Too many requests from your address. Please wait a few minutes and try again.",
  sendFailed: "Failed to send email",
  welcomeEmailRequired:
    "welcomeEmail cannot be turned off: the tenant's settings decide which email is sent",
} as const;

/** Anonymous calls per client address and tenant: enough for a visitor, little for a script. */
export const functionRateLimit = createRateLimit({
  name: "functions",
  points: 30,
  windowSeconds: 600,
});

// Payload fields. Optional fields accept null as well: JSON clients often send it for "none".
const nameField = z
  .string()
  .trim()
  .max(SIGNUP_LIMITS.name, `Name must be at most ${SIGNUP_LIMITS.name} characters.`)
  .nullish();
/** SPEC §5: a list may be a known name, a numeric id string or a number. */
const groupsField = z
  .array(z.union([z.string().trim().max(100), z.number().int()]))
  .max(SIGNUP_LIMITS.lists, "Too many groups.")
  .nullish();
const subjectField = z.string().trim().max(300, "Subject must be at most 300 characters").nullish();
const contentField = z.string().max(500_000, "Content is too long").nullish();

/** getSubscriber's answer (SPEC §7): the lists and name, nothing else personal. */
function publicSubscriber(subscriber: ProviderSubscriber) {
  return {
    status: subscriber.status,
    groups: subscriber.groups.map((group) => ({ id: group.id })),
    fields: { name: subscriber.fields.name },
  };
}

/** The tenant's lists named by `groups` (its default list when none); none known is an error. */
async function requireGroups(
  ctx: FunctionContext,
  groups: readonly (string | number)[] | null | undefined,
): Promise<(string | number)[]> {
  const { db, tenant } = ctx.subscription;
  const requested = groups?.length ? [...groups] : [tenant.emailGroups.default];
  // A MailerLite tenant's lists may also be named by their MailerLite group ids.
  const groupIds =
    providerNameFor(tenant, ctx.env) === "mailerlite"
      ? Object.values(mailerLiteGroupIds(tenant))
      : [];
  const known =
    resolveLists(await listTenantLists(db, tenant), requested).length > 0 ||
    requested.some((group) => groupIds.includes(String(group).trim()));
  if (!known) {
    throw new ApiError("INVALID_ARGUMENT", PROVIDER_MESSAGES.noGroups);
  }
  return requested;
}

/** The provider group ids of the lists a visitor may choose (offeredLists): list ids, or MailerLite's. */
async function offeredGroupIds(ctx: FunctionContext): Promise<Set<string>> {
  const { db, tenant } = ctx.subscription;
  const offered = offeredLists(await listTenantLists(db, tenant));
  if (providerNameFor(tenant, ctx.env) !== "mailerlite") {
    return new Set(offered.map((list) => String(list.id)));
  }
  const groupIds = mailerLiteGroupIds(tenant);
  return new Set(offered.flatMap((list) => groupIds[list.key] ?? []));
}

/**
 * A visitor's sign-up, through the public form's own path (rate limits, recipient limit, the
 * tenant's double opt-in, the welcome or confirmation mail).
 */
async function publicSignup(
  ctx: FunctionContext,
  input: { email: string; name?: string | null; groups?: readonly (string | number)[] | null },
): Promise<void> {
  const outcome = await submitNewsletterSignup(
    ctx.subscription,
    ctx.clientAddress,
    {
      email: input.email,
      name: input.name ?? undefined,
      lists: input.groups?.map(String),
    },
    "api",
  );
  if (!outcome.ok) throw new ApiError(statusForHttp(outcome.status), outcome.message);
}

/** Sender of an ad-hoc email: "Name <address>", an address, or { name, email }. */
function parseSender(
  from: string | { name?: string | null; email: string } | null | undefined,
  tenant: TenantConfig,
): { name: string; email: string } {
  const fallbackName = tenant.email.senderName || FIXED_SENDER.name;
  if (!from) {
    return { name: fallbackName, email: tenant.email.senderEmail || FIXED_SENDER.email };
  }
  let name: string | null | undefined;
  let email: string;
  if (typeof from === "string") {
    const match = /^(.*)<([^<>]+)>\s*$/.exec(from);
    name = match?.[1]?.trim().replace(/^"(.*)"$/, "$1");
    email = (match?.[2] ?? from).trim();
  } else {
    name = from.name?.trim();
    email = from.email.trim();
  }
  if (!isValidEmail(email)) throw new ApiError("INVALID_ARGUMENT", CAMPAIGN_MESSAGES.badSender);
  return { name: (name || fallbackName).slice(0, 200), email };
}

export const FUNCTIONS: Record<string, RegisteredFunction> = {
  helloWorld: defineFunction({
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
  }),

  addSubscriber: defineFunction({
    summary: "Add a subscriber to lists (visitors go through the sign-up rules)",
    anonymous: true,
    input: z.object({
      email: emailField(),
      groups: groupsField,
      fields: z.object({ name: nameField }).nullish(),
    }),
    async handler(ctx, data) {
      const groups = await requireGroups(ctx, data.groups);
      const name = data.fields?.name || null;
      if (!ctx.trusted) {
        // A visitor may not make someone an active subscriber without the tenant's double opt-in.
        await publicSignup(ctx, { email: data.email, name, groups });
        const found = await ctx.provider().findSubscriber(data.email);
        return { success: true, subscriber: found ? publicSubscriber(found) : null };
      }
      const { subscriber, created } = await ctx.provider().upsertSubscriber({
        email: data.email,
        name,
        groups,
      });
      return { success: true, subscriber, created };
    },
  }),

  sendEmail: defineFunction({
    summary: "Send one email in the tenant's branding",
    anonymous: false,
    input: z.object({
      to: emailField(),
      subject: subjectField,
      content: contentField,
      from: z
        .union([
          z.string().trim().max(320),
          z.object({
            name: z.string().trim().max(200).nullish(),
            email: z.string().trim().max(254),
          }),
        ])
        .nullish(),
    }),
    async handler(ctx, data) {
      const { tenant, db, transport, logger } = ctx.subscription;
      const subject = data.subject ?? "";
      // Staff's HTML gets the campaign clean-up: sanitised, never raw script.
      const content = cleanCampaignContent(data.content ?? "");
      if (!subject || !content) throw new ApiError("INVALID_ARGUMENT", CAMPAIGN_MESSAGES.required);
      const from = parseSender(data.from, tenant);
      const foreign = await foreignSenderProblem(db, tenant, from.email);
      if (foreign) throw new ApiError("INVALID_ARGUMENT", foreign, { from: [foreign] });
      // The campaign frame, without tracking; the footer gets SPEC §2's fixed links for the address.
      const { origin } = ctx.subscription;
      const rendered = await renderCampaignEmail(tenant, {
        origin,
        headline: subject,
        preheader: plainPreviewOf(content),
        contentHtml: mailContentFor(tenant, content, origin),
        viewInBrowserUrl: null,
        why: `You receive this because ${tenant.branding.companyName} sent it to your address from ${siteNameOf(origin)}.`,
        trackOpens: false,
      });
      const query = `?email=${encodeURIComponent(data.to)}`;
      const links: [string, string][] = [
        [CAMPAIGN_MARKERS.preferences, tenantLink(ctx.subscription, `/preferences${query}`)],
        [CAMPAIGN_MARKERS.unsubscribe, tenantLink(ctx.subscription, `/unsubscribe${query}`)],
      ];
      let { html, text } = rendered;
      for (const [marker, url] of links) {
        html = html.replaceAll(marker, url.replaceAll("&", "&amp;"));
        text = text.replaceAll(marker, url);
      }
      try {
        const sent = await sendMail(
          { db, transport, logger },
          {
            from,
            to: data.to,
            subject,
            html,
            text,
            headers: {},
            tenantId: tenant.id,
            kind: "email",
          },
          // The caller is told it failed; a later retry would send what they may send again.
          { retryLater: false },
        );
        return { success: true, messageId: sent.messageId };
      } catch (error) {
        if (error instanceof MailNotSentError) {
          throw new ApiError("UNAVAILABLE", FUNCTION_MESSAGES.sendFailed);
        }
        throw error;
      }
    },
  }),

  completeNewsletterSignup: defineFunction({
    summary: "The newsletter sign-up: subscribe, then welcome or confirmation email",
    anonymous: true,
    input: z.object({
      email: emailField(),
      name: nameField,
      groups: groupsField,
      welcomeEmail: z.boolean().nullish(),
    }),
    async handler(ctx, data) {
      if (data.welcomeEmail === false) {
        throw new ApiError("INVALID_ARGUMENT", FUNCTION_MESSAGES.welcomeEmailRequired);
      }
      const groups = data.groups?.length ? data.groups : undefined;
      if (!ctx.trusted) {
        await publicSignup(ctx, { email: data.email, name: data.name, groups });
        return { success: true, message: SIGNUP_THANKS };
      }
      try {
        const result = await signUp(ctx.subscription, {
          email: data.email,
          name: data.name ?? undefined,
          lists: groups,
        });
        return { success: true, message: SIGNUP_THANKS, outcome: result.outcome };
      } catch (error) {
        if (error instanceof MailNotSentError) {
          throw new ApiError("UNAVAILABLE", SIGNUP_MAIL_FAILED);
        }
        throw error;
      }
    },
  }),

  getAllGroups: defineFunction({
    summary: "The tenant's lists (staff also get their counts)",
    anonymous: true,
    input: z.object({}),
    async handler(ctx) {
      const groups = await ctx.provider().listGroups();
      if (ctx.trusted) return { success: true, groups };
      // Visitors see what the sign-up form offers (public lists), and not their audience sizes or
      // campaign figures, which are the tenant's business (issue 32, finding 7).
      const offered = await offeredGroupIds(ctx);
      return {
        success: true,
        groups: groups.filter(({ id }) => offered.has(id)).map(({ id, name }) => ({ id, name })),
      };
    },
  }),

  createAndSendCampaign: defineFunction({
    summary: "Create a campaign and send or schedule it",
    anonymous: false,
    input: z.object({
      subject: subjectField,
      content: contentField,
      senderName: z
        .string()
        .trim()
        .max(200, "Sender name must be at most 200 characters")
        .nullish(),
      senderEmail: z.string().trim().max(254, CAMPAIGN_MESSAGES.badSender).nullish(),
      groups: groupsField,
      trackOpens: z.boolean().nullish(),
      trackClicks: z.boolean().nullish(),
    }),
    async handler(ctx, data) {
      const { campaign } = await ctx.sendAsCampaign({
        subject: data.subject ?? "",
        content: data.content ?? "",
        senderName: data.senderName,
        senderEmail: data.senderEmail,
        groups: data.groups,
        trackOpens: data.trackOpens,
        trackClicks: data.trackClicks,
        mode: "now",
      });
      return { success: true, campaign };
    },
  }),

  getCampaigns: defineFunction({
    summary: "The tenant's campaigns (limit 25, page 1, status filter)",
    anonymous: false,
    input: z.object({
      limit: z.number().int().min(1).max(100).nullish(),
      page: z.number().int().min(1).max(1_000_000).nullish(),
      status: z.enum(CAMPAIGN_STATUSES).nullish(),
    }),
    async handler(ctx, data) {
      const limit = data.limit ?? 25;
      const page = data.page ?? 1;
      const { items, total } = await ctx.provider().listCampaigns({
        limit,
        page,
        status: data.status,
      });
      return { success: true, campaigns: items, total, limit, page };
    },
  }),

  getSubscriber: defineFunction({
    summary:
      "A subscriber's lists and name (staff; anonymous callers add the token of the subscriber's preference link)",
    anonymous: true,
    input: z.object({ email: emailField(), token: z.string().max(1000).nullish() }),
    async handler(ctx, data) {
      // A subscriber's lists are personal: a visitor must hold the signed link of that very
      // subscriber (docs/decisions/015-subscriber-privacy.md), and every refusal reads the same.
      if (!ctx.trusted) {
        const holder = await subscriberFromToken(ctx.subscription, data.token, "preferences");
        if (holder?.email !== normaliseSubscriberEmail(data.email)) {
          throw new ApiError("PERMISSION_DENIED", FUNCTION_MESSAGES.signedLinkRequired);
        }
      }
      const found = await ctx.provider().findSubscriber(data.email);
      if (!found) throw new ApiError("NOT_FOUND", PROVIDER_MESSAGES.subscriberNotFound);
      return { success: true, subscriber: publicSubscriber(found) };
    },
  }),
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
  const subscription: SubscriptionContext = {
    // Bound to the tenant the call acts on: staff may name another tenant they manage.
    db: tenantDb(crossTenant(scope.db), tenant.id),
    logger: scope.logger,
    transport: scope.transport,
    tenant,
    origin: publicOrigin(tenant, scope.env),
    sessionSecret: scope.sessionSecret,
  };
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
