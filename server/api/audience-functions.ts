import { z } from "zod";
import { emailField } from "../../shared/schemas/email";
import { SIGNUP_MAIL_FAILED, SIGNUP_THANKS } from "../../shared/schemas/signup";
import { MailNotSentError } from "../mail/send";
import { mailerLiteGroupIds, providerNameFor } from "../providers";
import { PROVIDER_MESSAGES, type ProviderSubscriber } from "../providers/types";
import { subscriberFromToken } from "../subscribers/links";
import { listTenantLists, offeredLists, resolveLists } from "../subscribers/lists";
import { signUp } from "../subscribers/signup";
import { submitNewsletterSignup } from "../subscribers/signup-submission";
import { normaliseSubscriberEmail } from "../subscribers/subscribers";
import { ApiError, statusForHttp } from "./errors";
import {
  defineFunction,
  FUNCTION_MESSAGES,
  type FunctionContext,
  groupsField,
  nameField,
} from "./function-definition";

/* SPEC §7's functions of the audience: sign-ups, a subscriber's lists, the tenant's lists. */

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

export const addSubscriber = defineFunction({
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
});

export const completeNewsletterSignup = defineFunction({
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
});

export const getAllGroups = defineFunction({
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
});

export const getSubscriber = defineFunction({
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
});
