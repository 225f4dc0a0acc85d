import type { Db } from "../../server/db";
import type { SubscriberStatus } from "../../server/db/schema";
import { listTenantLists } from "../../server/subscribers/lists";
import { getTenant } from "../../server/tenants/store";

/** A subscriber straight in the database, on the given lists (ids); returns its id. */
export async function insertSubscriber(
  db: Db,
  input: { email: string; tenantId?: string; status?: SubscriberStatus; listIds?: number[] },
): Promise<number> {
  const now = new Date().toISOString();
  const { id } = await db
    .insertInto("subscribers")
    .values({
      tenant_id: input.tenantId ?? "main",
      email: input.email,
      name: "",
      status: input.status ?? "active",
      subscribed_at: now,
      unsubscribed_at: null,
      created_at: now,
      updated_at: now,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  if (input.listIds?.length) {
    await db
      .insertInto("subscriptions")
      .values(
        input.listIds.map((list_id) => ({
          tenant_id: input.tenantId ?? "main",
          subscriber_id: id,
          list_id,
          created_at: now,
        })),
      )
      .execute();
  }
  return id;
}

/** An active subscriber on one of a tenant's lists, named by its key; returns its id. */
export async function insertListSubscriber(
  db: Db,
  input: { email: string; tenantId?: string; listKey?: string },
): Promise<number> {
  const tenantId = input.tenantId ?? "main";
  const tenant = (await getTenant(db, tenantId)).config;
  const key = input.listKey ?? "newsletter";
  const list = (await listTenantLists(db, tenant)).find((each) => each.key === key);
  if (!list) throw new Error(`no list ${key} on ${tenantId}`);
  return insertSubscriber(db, { email: input.email, tenantId, listIds: [list.id] });
}
