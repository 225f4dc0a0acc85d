import { isValidEmail } from "../../shared/schemas/email";
import { tenantDb } from "../db/tenant-guard";
import { pushMembership } from "../providers/mailerlite-mirror";
import { recordEvent } from "./events";
import {
  fieldValuesOf,
  listFields,
  readFieldValues,
  type SubscriberField,
  setFieldValues,
} from "./fields";
import { listTenantLists, type MailingList } from "./lists";
import { listIdsOfSubscriber, PROFILE_MESSAGES, ProfileError, requireSubscriber } from "./profiles";
import { signUp } from "./signup";
import { changeEmail, insertSubscriber, joinLists, replaceLists, updateSubscriber } from "./store";
import { normaliseSubscriberEmail, type SubscriptionContext } from "./subscribers";

/*
 * Staff add one subscriber, or edit one (issue 16, points 2 and 3): address, name, custom fields
 * and lists, each change on the subscriber's timeline in the same transaction.
 */

export interface SubscriberInput {
  email: string;
  name: string;
  /** list keys */
  lists: readonly string[];
  /** custom field values as typed, by field key */
  fields: Record<string, string | undefined>;
}

interface CheckedInput {
  email: string;
  name: string;
  lists: MailingList[];
  values: Record<string, string | null>;
  fields: SubscriberField[];
  all: MailingList[];
}

/** Checks a profile form: the address, the name, known lists, each field's value. */
async function checkInput(ctx: SubscriptionContext, input: SubscriberInput): Promise<CheckedInput> {
  const email = normaliseSubscriberEmail(input.email);
  const errors: Record<string, string[]> = {};
  if (!email) errors.email = ["Please enter an email address."];
  else if (email.length > 254 || !isValidEmail(email))
    errors.email = ["Please enter a valid email address."];
  const name = input.name.trim();
  if (name.length > 100) errors.name = ["Name must be at most 100 characters"];
  const all = await listTenantLists(ctx.db, ctx.tenant);
  const lists = all.filter((list) => input.lists.includes(list.key));
  if (lists.length !== new Set(input.lists).size) errors.lists = ["Choose lists from the list"];
  const fields = await listFields(ctx.db, ctx.tenant.id);
  const read = readFieldValues(fields, input.fields);
  Object.assign(errors, read.errors);
  if (Object.keys(errors).length > 0) {
    throw new ProfileError("Please correct the fields marked below.", 400, errors);
  }
  return { email, name, lists, values: read.values, fields, all };
}

async function idOfAddress(ctx: SubscriptionContext, email: string): Promise<number | null> {
  const row = await tenantDb(ctx.db, ctx.tenant.id)
    .selectFrom("subscribers")
    .select("id")
    .where("email", "=", email)
    .executeTakeFirst();
  return row?.id ?? null;
}

/**
 * Staff add one subscriber: active at once (staff vouch for their consent; no mail is sent), or
 * sent the double opt-in email and unconfirmed until they follow it. Answers the new id.
 */
export async function addSubscriber(
  ctx: SubscriptionContext,
  by: string,
  input: SubscriberInput & { optIn: boolean },
): Promise<number> {
  const checked = await checkInput(ctx, input);
  if (checked.lists.length === 0) {
    throw new ProfileError("Choose at least one list.", 400, {
      lists: ["Choose at least one list."],
    });
  }
  if ((await idOfAddress(ctx, checked.email)) !== null) {
    throw new ProfileError(PROFILE_MESSAGES.exists, 409, { email: [PROFILE_MESSAGES.exists] });
  }
  const keys = checked.lists.map((list) => list.key);
  if (input.optIn) {
    const { subscriberId } = await signUp(ctx, {
      email: checked.email,
      name: checked.name,
      lists: keys,
      consent: { source: "staff", by, optIn: true, lists: keys },
    });
    await setFieldValues(ctx.db, ctx.tenant.id, subscriberId, checked.values);
    return subscriberId;
  }
  await pushMembership(
    ctx,
    { email: checked.email, name: checked.name, lists: keys, replace: false },
    "The subscriber could not be added in MailerLite. Please try again.",
  );
  const now = new Date().toISOString();
  return ctx.db.transaction().execute(async (trx) => {
    const id = await insertSubscriber(
      trx,
      ctx.tenant.id,
      {
        email: checked.email,
        name: checked.name,
        status: "active",
        subscribed_at: now,
        unsubscribed_at: null,
      },
      now,
    );
    await joinLists(
      trx,
      ctx.tenant.id,
      checked.lists.map((list) => ({ subscriberId: id, listId: list.id })),
      now,
    );
    await setFieldValues(trx, ctx.tenant.id, id, checked.values);
    await recordEvent(
      trx,
      ctx.tenant.id,
      {
        subscriberId: id,
        kind: "signed-up",
        detail: { source: "staff", by, optIn: false, lists: keys, active: true },
      },
      now,
    );
    return id;
  });
}

/**
 * Staff edit a subscriber: address, name, custom fields and lists (moving them between lists), in
 * one transaction, with what changed on their timeline. The status stays: someone who left gets
 * no mail whatever their lists until they sign up again.
 */
export async function editSubscriber(
  ctx: SubscriptionContext,
  by: string,
  id: number,
  input: SubscriberInput,
): Promise<void> {
  const row = await requireSubscriber(ctx, id);
  const checked = await checkInput(ctx, input);
  if (checked.email !== row.email) {
    const holder = await idOfAddress(ctx, checked.email);
    if (holder !== null && holder !== id) {
      throw new ProfileError(PROFILE_MESSAGES.taken, 409, { email: [PROFILE_MESSAGES.taken] });
    }
  }
  const before = await listIdsOfSubscriber(ctx, id);
  const after = checked.lists.map((list) => list.id);
  const nameOf = (listId: number) => checked.all.find((list) => list.id === listId)?.key ?? "";
  const added = after.filter((listId) => !before.includes(listId)).map(nameOf);
  const removed = before.filter((listId) => !after.includes(listId)).map(nameOf);
  const oldValues = (await fieldValuesOf(ctx.db, ctx.tenant.id, [id])).get(id) ?? {};
  const changes = [
    ...(checked.email !== row.email ? ["email"] : []),
    ...(checked.name !== row.name ? ["name"] : []),
    ...checked.fields
      .filter((field) => (oldValues[field.key] ?? null) !== checked.values[field.key])
      .map((field) => field.label),
  ];
  if (row.status === "active" && (added.length > 0 || removed.length > 0 || changes.length > 0)) {
    await pushMembership(
      ctx,
      {
        email: checked.email,
        name: checked.name,
        lists: checked.lists.map((list) => list.key),
        replace: true,
      },
      "The change could not be saved in MailerLite. Please try again.",
    );
  }
  const now = new Date().toISOString();
  await ctx.db.transaction().execute(async (trx) => {
    if (checked.email !== row.email) await changeEmail(trx, ctx.tenant.id, id, checked.email, now);
    if (checked.name !== row.name) {
      await updateSubscriber(trx, ctx.tenant.id, id, { name: checked.name }, now);
    }
    await setFieldValues(trx, ctx.tenant.id, id, checked.values);
    if (added.length > 0 || removed.length > 0) {
      await replaceLists(trx, ctx.tenant.id, id, after, now);
      await recordEvent(trx, ctx.tenant.id, {
        subscriberId: id,
        kind: "lists-changed",
        detail: { by, added, removed },
      });
    }
    if (changes.length > 0) {
      await recordEvent(trx, ctx.tenant.id, {
        subscriberId: id,
        kind: "edited",
        detail: { by, changes },
      });
    }
  });
}
