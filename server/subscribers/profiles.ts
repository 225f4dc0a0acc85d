import { isValidEmail } from "../../shared/schemas/email";
import { anonymiseDeliveries } from "../campaigns/deliveries";
import type { SubscriberStatus } from "../db/schema";
import { forgetRecipients } from "../mail/send";
import { providerNameFor } from "../providers/choice";
import { pushMembership, pushUnsubscribe } from "../providers/mailerlite-mirror";
import {
  clearEvents,
  IMPORT_ORIGINS,
  recordEvent,
  recordEvents,
  type SubscriberEventDetail,
} from "./events";
import {
  clearFieldValues,
  fieldValuesOf,
  listFields,
  readFieldValues,
  type SubscriberField,
  setFieldValues,
} from "./fields";
import { listTenantLists, type MailingList } from "./lists";
import {
  changeEmail,
  chunks,
  eraseSubscriberRows,
  insertSubscriber,
  joinLists,
  leaveListMany,
  markUnsubscribed,
  replaceLists,
  updateSubscriber,
} from "./store";
import {
  anonymiseFeedback,
  normaliseSubscriberEmail,
  type SubscriptionContext,
  signUp,
} from "./subscribers";

/*
 * One subscriber at a time, as staff see them (issue 16, points 2, 3 and 5): add, edit, move
 * between lists, unsubscribe, erase; the profile with its timeline; the data export.
 */

export class ProfileError extends Error {
  constructor(
    message: string,
    readonly status: 400 | 404 | 409 | 503 = 400,
    /** per-field messages, for the form */
    readonly fields: Record<string, string[]> = {},
  ) {
    super(message);
  }
}

export const PROFILE_MESSAGES = {
  notFound: "Subscriber not found",
  taken: "Another subscriber already has this address",
  exists: "This address is already a subscriber",
} as const;

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
  const row = await ctx.db
    .selectFrom("subscribers")
    .select("id")
    .where("tenant_id", "=", ctx.tenant.id)
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

interface SubscriberRecord {
  id: number;
  email: string;
  name: string;
  status: SubscriberStatus;
  subscribed_at: string | null;
  unsubscribed_at: string | null;
  created_at: string;
}

async function requireSubscriber(ctx: SubscriptionContext, id: number): Promise<SubscriberRecord> {
  const row = await ctx.db
    .selectFrom("subscribers")
    .select(["id", "email", "name", "status", "subscribed_at", "unsubscribed_at", "created_at"])
    .where("tenant_id", "=", ctx.tenant.id)
    .where("id", "=", id)
    .where("erased_at", "is", null)
    .executeTakeFirst();
  if (!row) throw new ProfileError(PROFILE_MESSAGES.notFound, 404);
  return row;
}

async function listIdsOf(ctx: SubscriptionContext, id: number): Promise<number[]> {
  const rows = await ctx.db
    .selectFrom("subscriptions")
    .select("list_id")
    .where("tenant_id", "=", ctx.tenant.id)
    .where("subscriber_id", "=", id)
    .execute();
  return rows.map((row) => row.list_id);
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
  const before = await listIdsOf(ctx, id);
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

/**
 * A bulk action (issue 16, point 2): adds the subscribers to a list, or takes them off it, with
 * the change on each one's timeline. Answers how many changed.
 */
export async function changeListMembership(
  ctx: SubscriptionContext,
  by: string,
  ids: readonly number[],
  change: { listKey: string; action: "add" | "remove" },
): Promise<number> {
  if (providerNameFor(ctx.tenant) === "mailerlite") {
    throw new ProfileError(
      "This tenant's audience is in MailerLite: change lists there, or one subscriber at a time here.",
      409,
    );
  }
  const list = (await listTenantLists(ctx.db, ctx.tenant)).find(
    (each) => each.key === change.listKey,
  );
  if (!list || (change.action === "add" && list.archived)) {
    throw new ProfileError("Choose a list", 400, { list: ["Choose a list"] });
  }
  const members = new Set<number>();
  for (const part of chunks(ids)) {
    const rows = await ctx.db
      .selectFrom("subscriptions")
      .select("subscriber_id")
      .where("tenant_id", "=", ctx.tenant.id)
      .where("list_id", "=", list.id)
      .where("subscriber_id", "in", part)
      .execute();
    for (const row of rows) members.add(Number(row.subscriber_id));
  }
  const targets = ids.filter((id) => (change.action === "add") !== members.has(id));
  const now = new Date().toISOString();
  await ctx.db.transaction().execute(async (trx) => {
    if (change.action === "add") {
      await joinLists(
        trx,
        ctx.tenant.id,
        targets.map((subscriberId) => ({ subscriberId, listId: list.id })),
        now,
      );
    } else {
      await leaveListMany(trx, ctx.tenant.id, list.id, targets);
    }
    await recordEvents(
      trx,
      ctx.tenant.id,
      targets.map((subscriberId) => ({
        subscriberId,
        kind: "lists-changed" as const,
        detail: {
          by,
          added: change.action === "add" ? [list.key] : [],
          removed: change.action === "remove" ? [list.key] : [],
        },
      })),
      now,
    );
  });
  return targets.length;
}

/** The subscribers (not erased) of a selection, read in chunks: a selection may be large. */
async function selectedRows(ctx: SubscriptionContext, ids: readonly number[]) {
  const rows: { id: number; email: string; status: SubscriberStatus }[] = [];
  for (const part of chunks(ids)) {
    rows.push(
      ...(await ctx.db
        .selectFrom("subscribers")
        .select(["id", "email", "status"])
        .where("tenant_id", "=", ctx.tenant.id)
        .where("id", "in", part)
        .where("erased_at", "is", null)
        .execute()),
    );
  }
  return rows;
}

/** subscriber id → the keys of the lists they are on. */
async function listKeysOfMany(
  ctx: SubscriptionContext,
  ids: readonly number[],
): Promise<Map<number, string[]>> {
  const keys = new Map<number, string[]>();
  for (const part of chunks(ids)) {
    const rows = await ctx.db
      .selectFrom("subscriptions")
      .innerJoin("lists", "lists.id", "subscriptions.list_id")
      .select(["subscriptions.subscriber_id", "lists.key"])
      .where("subscriptions.tenant_id", "=", ctx.tenant.id)
      .where("lists.tenant_id", "=", ctx.tenant.id)
      .where("subscriptions.subscriber_id", "in", part)
      .execute();
    for (const row of rows) {
      keys.set(row.subscriber_id, [...(keys.get(row.subscriber_id) ?? []), row.key]);
    }
  }
  return keys;
}

/** Staff unsubscribe someone (they asked by mail, say): off every list, on their timeline. */
export async function unsubscribeByStaff(
  ctx: SubscriptionContext,
  by: string,
  ids: readonly number[],
): Promise<number> {
  const rows = (await selectedRows(ctx, ids)).filter(
    (row) => row.status === "active" || row.status === "unconfirmed",
  );
  const listKeys = await listKeysOfMany(
    ctx,
    rows.map((row) => row.id),
  );
  for (const row of rows) {
    await pushUnsubscribe(ctx, row.email, "Failed to unsubscribe. Please try again.");
  }
  const now = new Date().toISOString();
  await ctx.db.transaction().execute(async (trx) => {
    for (const row of rows) {
      await markUnsubscribed(trx, ctx.tenant.id, row.id, now);
    }
    await recordEvents(
      trx,
      ctx.tenant.id,
      rows.map((row) => ({
        subscriberId: row.id,
        kind: "unsubscribed" as const,
        detail: { via: "staff" as const, by, lists: listKeys.get(row.id) ?? [] },
      })),
      now,
    );
  });
  return rows.length;
}

/**
 * Erases subscribers (GDPR Art. 17), in one transaction: address, name, field values, timeline and
 * consent record, pending changes, the mail sent to them and their feedback's free text go; their
 * deliveries and opens stay as anonymous counts. MailerLite is told to unsubscribe them first.
 */
export async function eraseSubscribers(
  ctx: SubscriptionContext,
  ids: readonly number[],
): Promise<number> {
  const rows = await selectedRows(ctx, ids);
  for (const row of rows.filter((each) => each.status === "active")) {
    await pushUnsubscribe(ctx, row.email, "Failed to unsubscribe. Please try again.");
  }
  const found = rows.map((row) => row.id);
  const now = new Date().toISOString();
  await ctx.db.transaction().execute(async (trx) => {
    await forgetRecipients(
      trx,
      ctx.tenant.id,
      rows.map((row) => row.email),
    );
    await anonymiseDeliveries(trx, ctx.tenant.id, found);
    await anonymiseFeedback(trx, ctx.tenant.id, found);
    await clearFieldValues(trx, ctx.tenant.id, found);
    await clearEvents(trx, ctx.tenant.id, found);
    await eraseSubscriberRows(trx, ctx.tenant.id, found, now);
  });
  ctx.logger.info({ tenantId: ctx.tenant.id, count: found.length }, "subscribers erased");
  return found.length;
}

export interface TimelineEntry {
  /** its place in the timeline, newest first: a stable key for the page */
  position?: number;
  at: string;
  kind: string;
  title: string;
  detail?: string;
}

const VIA: Record<SubscriberEventDetail["unsubscribed"]["via"], string> = {
  link: "through the unsubscribe link",
  "preference-centre": "in the preference centre",
  staff: "by staff",
};

function describeEvent(
  kind: string,
  detail: Record<string, unknown>,
  listName: (key: string) => string,
): Omit<TimelineEntry, "at" | "kind"> {
  const names = (keys: unknown) =>
    Array.isArray(keys) && keys.length ? keys.map((key) => listName(String(key))).join(", ") : "";
  switch (kind) {
    case "signed-up": {
      const d = detail as SubscriberEventDetail["signed-up"];
      const how =
        d.source === "staff"
          ? d.optIn
            ? `Invited by ${d.by}: the double opt-in email was sent`
            : `Added by ${d.by} as active`
          : d.source === "import"
            ? d.origin
              ? `Imported from ${IMPORT_ORIGINS[d.origin]}`
              : "Imported from a CSV file"
            : d.source === "api"
              ? "Signed up through the API"
              : "Signed up through the form";
      const evidence = [
        d.page ? `page ${d.page}` : null,
        d.clientAddress ? `client address ${d.clientAddress}` : null,
        names(d.lists) ? `lists: ${names(d.lists)}` : null,
        d.note ? `note: ${d.note}` : null,
      ].filter(Boolean);
      return { title: how, detail: evidence.join(" · ") || undefined };
    }
    case "confirmed":
      return { title: "Confirmed the subscription (double opt-in)" };
    case "preferences-changed":
      return { title: "Changed their preferences", detail: `Now on: ${names(detail.lists)}` };
    case "edited":
      return {
        title: `Edited by ${String(detail.by)}`,
        detail: `Changed: ${(detail.changes as string[]).join(", ")}`,
      };
    case "lists-changed": {
      const d = detail as SubscriberEventDetail["lists-changed"];
      return {
        title: `Lists changed by ${d.by}`,
        detail: [
          d.added.length ? `added to ${names(d.added)}` : null,
          d.removed.length ? `removed from ${names(d.removed)}` : null,
        ]
          .filter(Boolean)
          .join("; "),
      };
    }
    case "unsubscribed": {
      const d = detail as SubscriberEventDetail["unsubscribed"];
      return { title: `Unsubscribed ${VIA[d.via] ?? ""}${d.by ? ` (${d.by})` : ""}`.trim() };
    }
    default:
      return { title: kind };
  }
}

/** The most recent entries of each kind the timeline shows. */
export const TIMELINE_LIMIT = 200;

/** Everything that happened to a subscriber, newest first. */
export async function subscriberTimeline(
  ctx: SubscriptionContext,
  id: number,
): Promise<TimelineEntry[]> {
  const tenantId = ctx.tenant.id;
  const lists = await listTenantLists(ctx.db, ctx.tenant);
  const listName = (key: string) => lists.find((list) => list.key === key)?.name ?? key;
  const [events, deliveries, campaignEvents, feedback] = await Promise.all([
    ctx.db
      .selectFrom("subscriber_events")
      .select(["kind", "detail", "created_at"])
      .where("tenant_id", "=", tenantId)
      .where("subscriber_id", "=", id)
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .limit(TIMELINE_LIMIT)
      .execute(),
    ctx.db
      .selectFrom("deliveries")
      .innerJoin("campaigns", "campaigns.id", "deliveries.campaign_id")
      .select([
        "campaigns.subject",
        "deliveries.status",
        "deliveries.sent_at",
        "deliveries.bounced_at",
        "deliveries.complained_at",
        "deliveries.feedback",
      ])
      .where("deliveries.tenant_id", "=", tenantId)
      .where("campaigns.tenant_id", "=", tenantId)
      .where("deliveries.subscriber_id", "=", id)
      .orderBy("deliveries.id", "desc")
      .limit(TIMELINE_LIMIT)
      .execute(),
    ctx.db
      .selectFrom("campaign_events")
      .innerJoin("deliveries", "deliveries.id", "campaign_events.delivery_id")
      .innerJoin("campaigns", "campaigns.id", "campaign_events.campaign_id")
      .select([
        "campaign_events.kind",
        "campaign_events.url",
        "campaign_events.created_at",
        "campaigns.subject",
      ])
      .where("campaign_events.tenant_id", "=", tenantId)
      .where("deliveries.tenant_id", "=", tenantId)
      .where("campaigns.tenant_id", "=", tenantId)
      .where("deliveries.subscriber_id", "=", id)
      .where("campaign_events.kind", "in", ["open", "click"])
      .orderBy("campaign_events.id", "desc")
      .limit(TIMELINE_LIMIT)
      .execute(),
    ctx.db
      .selectFrom("unsubscribe_feedback")
      .select(["reason", "details", "created_at"])
      .where("tenant_id", "=", tenantId)
      .where("subscriber_id", "=", id)
      .execute(),
  ]);
  const entries: TimelineEntry[] = [
    ...events.map((event) => ({
      at: event.created_at,
      kind: event.kind,
      ...describeEvent(event.kind, JSON.parse(event.detail) as Record<string, unknown>, listName),
    })),
    ...deliveries.flatMap((delivery) => [
      ...(delivery.sent_at
        ? [{ at: delivery.sent_at, kind: "delivered", title: `Sent “${delivery.subject}”` }]
        : []),
      ...(delivery.bounced_at
        ? [
            {
              at: delivery.bounced_at,
              kind: "bounced",
              title: `“${delivery.subject}” bounced`,
              detail: delivery.feedback ?? undefined,
            },
          ]
        : []),
      ...(delivery.complained_at
        ? [
            {
              at: delivery.complained_at,
              kind: "complained",
              title: `Marked “${delivery.subject}” as spam`,
            },
          ]
        : []),
    ]),
    ...campaignEvents.map((event) => ({
      at: event.created_at,
      kind: event.kind === "open" ? "opened" : "clicked",
      title:
        event.kind === "open"
          ? `Opened “${event.subject}”`
          : `Clicked a link in “${event.subject}”`,
      detail: event.url ?? undefined,
    })),
    ...feedback.map((answer) => ({
      at: answer.created_at,
      kind: "feedback",
      title: `Said why they left: ${answer.reason}`,
      detail: answer.details ?? undefined,
    })),
  ];
  return entries
    .sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0))
    .slice(0, TIMELINE_LIMIT * 2)
    .map((entry, position) => ({ ...entry, position }));
}

export interface SubscriberProfile extends SubscriberRecord {
  /** list keys */
  lists: string[];
  values: Record<string, string>;
  /** the sign-up that put them here: how, where, from which address, when */
  consent: (SubscriberEventDetail["signed-up"] & { at: string }) | null;
  timeline: TimelineEntry[];
}

export async function subscriberProfile(
  ctx: SubscriptionContext,
  id: number,
): Promise<SubscriberProfile> {
  const row = await requireSubscriber(ctx, id);
  const [listIds, lists, values, consent, timeline] = await Promise.all([
    listIdsOf(ctx, id),
    listTenantLists(ctx.db, ctx.tenant),
    fieldValuesOf(ctx.db, ctx.tenant.id, [id]),
    ctx.db
      .selectFrom("subscriber_events")
      .select(["detail", "created_at"])
      .where("tenant_id", "=", ctx.tenant.id)
      .where("subscriber_id", "=", id)
      .where("kind", "=", "signed-up")
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .executeTakeFirst(),
    subscriberTimeline(ctx, id),
  ]);
  return {
    ...row,
    lists: lists.filter((list) => listIds.includes(list.id)).map((list) => list.key),
    values: values.get(id) ?? {},
    consent: consent
      ? {
          ...(JSON.parse(consent.detail) as SubscriberEventDetail["signed-up"]),
          at: consent.created_at,
        }
      : null,
    timeline,
  };
}

/**
 * One subscriber's data as JSON (GDPR Art. 15 and 20): who they are, their lists and fields, the
 * consent record, every event and each campaign sent to them with what they did with it.
 */
export async function exportSubscriberData(
  ctx: SubscriptionContext,
  id: number,
): Promise<Record<string, unknown>> {
  const profile = await subscriberProfile(ctx, id);
  const lists = await listTenantLists(ctx.db, ctx.tenant);
  const fields = await listFields(ctx.db, ctx.tenant.id);
  return {
    exportedAt: new Date().toISOString(),
    controller: { name: ctx.tenant.branding.companyName || ctx.tenant.name, site: ctx.origin },
    subscriber: {
      email: profile.email,
      name: profile.name,
      status: profile.status,
      createdAt: profile.created_at,
      subscribedAt: profile.subscribed_at,
      unsubscribedAt: profile.unsubscribed_at,
    },
    lists: lists
      .filter((list) => profile.lists.includes(list.key))
      .map((list) => ({ key: list.key, name: list.name })),
    fields: Object.fromEntries(
      fields
        .filter((field) => profile.values[field.key] !== undefined)
        .map((field) => [field.label, profile.values[field.key]]),
    ),
    consent: profile.consent,
    history: profile.timeline,
  };
}
