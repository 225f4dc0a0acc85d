import type { SubscriberStatus } from "../db/schema";
import { tenantDb } from "../db/tenant-guard";
import type { Scope } from "../scope";
import { SubscriptionError } from "../subscribers/errors";
import { listTenantLists } from "../subscribers/lists";
import { insertSubscriber, replaceLists, updateSubscriber } from "../subscribers/store";
import { mailerLiteFor, mailerLiteGroupIds, providerNameFor } from "./choice";
import { type MailProvider, ProviderError } from "./types";

/**
 * Tenants whose audience lives in MailerLite (issue 7). MailerLite is the record of who is on which
 * list; Herald keeps a local mirror of each subscriber because its own flows need local rows
 * (signed links, pending preference changes, campaign history). Every change goes to MailerLite
 * first and is written locally only once MailerLite took it, so a MailerLite failure changes
 * nothing; lookups refresh the mirror from MailerLite. For built-in tenants all of this is a no-op.
 *
 * The subscription flows (server/subscribers/) call these; the mirror never calls them back: it
 * needs only the tenant and its database.
 */
type MirrorScope = Pick<Scope, "db" | "tenant">;

/**
 * Runs `work` against the tenant's MailerLite account, a MailerLite failure becoming the
 * visitor-facing error of the step that needed it (SPEC §8). Null for built-in tenants: nothing to do.
 */
async function onMailerLite<T>(
  ctx: MirrorScope,
  failureMessage: string,
  work: (provider: MailProvider) => Promise<T>,
): Promise<T | null> {
  if (providerNameFor(ctx.tenant) !== "mailerlite") return null;
  const provider = mailerLiteFor(ctx.tenant);
  try {
    return await work(provider);
  } catch (error) {
    if (error instanceof ProviderError) throw new SubscriptionError(failureMessage, 503);
    throw error;
  }
}

/**
 * Puts the subscriber on `lists` (keys) in MailerLite. MailerLite's upsert only adds groups, so
 * with `replace` the tenant's other mapped groups are left one by one.
 */
export async function pushMembership(
  ctx: MirrorScope,
  input: { email: string; name?: string | null; lists: readonly string[]; replace: boolean },
  failureMessage: string,
): Promise<void> {
  const ids = mailerLiteGroupIds(ctx.tenant);
  await onMailerLite(ctx, failureMessage, async (provider) => {
    const { subscriber } = await provider.upsertSubscriber({
      email: input.email,
      name: input.name,
      groups: input.lists.filter((key) => key in ids),
    });
    if (!input.replace) return;
    const wanted = new Set(input.lists.map((key) => ids[key]).filter(Boolean));
    const ours = new Set(Object.values(ids));
    for (const group of subscriber.groups) {
      if (ours.has(group.id) && !wanted.has(group.id)) {
        await provider.removeFromGroup(subscriber.id, group.id);
      }
    }
  });
}

/** Unsubscribes in MailerLite; an address MailerLite never had is already as good as gone. */
export async function pushUnsubscribe(
  ctx: MirrorScope,
  email: string,
  failureMessage: string,
): Promise<void> {
  await onMailerLite(ctx, failureMessage, async (provider) => {
    try {
      await provider.unsubscribe(email);
    } catch (error) {
      if (error instanceof ProviderError && error.status === "NOT_FOUND") return;
      throw error;
    }
  });
}

const STATUS_FROM_MAILERLITE: Record<string, SubscriberStatus> = {
  active: "active",
  unconfirmed: "unconfirmed",
};

/** Refreshes the local mirror of `email` from MailerLite (status, name, lists). */
export async function pullSubscriber(
  ctx: MirrorScope,
  email: string,
  failureMessage: string,
): Promise<void> {
  const found = await onMailerLite(ctx, failureMessage, (provider) =>
    provider.findSubscriber(email),
  );
  if (!found) return;
  const keyOf = new Map(
    Object.entries(mailerLiteGroupIds(ctx.tenant)).map(([key, id]) => [id, key]),
  );
  const keys = found.groups.flatMap((group) => keyOf.get(group.id) ?? []);
  const status = STATUS_FROM_MAILERLITE[found.status] ?? "unsubscribed";
  const lists = (await listTenantLists(ctx.db, ctx.tenant)).filter((list) =>
    keys.includes(list.key),
  );
  const now = new Date().toISOString();
  const address = found.email.trim().toLowerCase();
  await tenantDb(ctx.db, ctx.tenant.id)
    .transaction()
    .execute(async (trx) => {
      const existing = await trx
        .selectFrom("subscribers")
        .selectAll()
        .where("email", "=", address)
        .executeTakeFirst();
      let id: number;
      if (existing) {
        id = existing.id;
        await updateSubscriber(
          trx,
          ctx.tenant.id,
          id,
          {
            status,
            name: found.fields.name ?? existing.name,
            subscribed_at: existing.subscribed_at ?? found.subscribed_at,
            unsubscribed_at: status === "unsubscribed" ? (existing.unsubscribed_at ?? now) : null,
          },
          now,
        );
      } else {
        id = await insertSubscriber(
          trx,
          ctx.tenant.id,
          {
            email: address,
            name: found.fields.name ?? "",
            status,
            subscribed_at: found.subscribed_at,
            unsubscribed_at: status === "unsubscribed" ? now : null,
          },
          now,
        );
      }
      await replaceLists(
        trx,
        ctx.tenant.id,
        id,
        lists.map((list) => list.id),
        now,
      );
    });
}
