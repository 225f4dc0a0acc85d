import type { Updateable } from "kysely";
import slugify from "slugify";
import type { ListForm } from "../../shared/schemas/list";
import type { Db } from "../db";
import type { ListsTable, ListVisibility } from "../db/schema";
import { tenantDb } from "../db/tenant-guard";
import type { TenantConfig } from "../tenants/config";
import { emptyList } from "./store";

export interface MailingList {
  id: number;
  key: string;
  name: string;
  description: string;
  /** public: offered on sign-up and in the preference centre; private: staff only */
  visibility: ListVisibility;
  /** kept with its subscribers, offered nowhere, not chosen for new campaigns */
  archived: boolean;
}

/** The lists every tenant starts with (SPEC §3 Group): its email groups, named after the tenant. */
export function defaultListsFor(
  tenant: TenantConfig,
): Pick<MailingList, "key" | "name" | "description">[] {
  const known: Record<string, { name: string; description: string }> = {
    newsletter: {
      name: `${tenant.name} Newsletter`,
      description: "Insights and analysis on legal technology trends and innovations.",
    },
    "product-updates": {
      name: `${tenant.name} Updates`,
      description: "Latest news and updates from the platform.",
    },
    "industry-news": {
      name: "Industry News",
      description: "A weekly round-up of eDiscovery and legal-technology news worth your time.",
    },
  };
  return tenant.emailGroups.groups.map((key) => ({
    key,
    name: known[key]?.name ?? key.replace(/[-_]+/g, " ").replace(/\b\w/g, (c) => c.toUpperCase()),
    description: known[key]?.description ?? "",
  }));
}

const listChangeListeners = new Set<(tenantId: string) => void>();

/** Called after this instance changes a tenant's lists (a cache of them drops its entry). */
export function onListsChanged(listener: (tenantId: string) => void): void {
  listChangeListeners.add(listener);
}

function listsChanged(tenantId: string): void {
  for (const listener of listChangeListeners) listener(tenantId);
}

async function selectLists(root: Db, tenantId: string): Promise<MailingList[]> {
  const db = tenantDb(root, tenantId);
  const rows = await db
    .selectFrom("lists")
    .select(["id", "key", "name", "description", "visibility", "archived_at"])
    .where("deleted_at", "is", null)
    .orderBy("id")
    .execute();
  return rows.map(({ archived_at, ...list }) => ({ ...list, archived: archived_at !== null }));
}

/**
 * The tenant's lists (archived ones included, deleted ones not), creating the default ones of its
 * settings on first use. A default list staff deleted stays deleted: its tombstone holds the key.
 */
export async function listTenantLists(root: Db, tenant: TenantConfig): Promise<MailingList[]> {
  const db = tenantDb(root, tenant.id);
  const known = await db.selectFrom("lists").select("key").execute();
  const missing = defaultListsFor(tenant).filter(
    (list) => !known.some((row) => row.key === list.key),
  );
  if (missing.length > 0) {
    const now = new Date().toISOString();
    await db
      .insertInto("lists")
      .values(missing.map((list) => ({ ...list, tenant_id: tenant.id, created_at: now })))
      .onConflict((oc) => oc.columns(["tenant_id", "key"]).doNothing())
      .execute();
  }
  return selectLists(db, tenant.id);
}

/** What visitors may choose (sign-up, the preference centre): public lists not archived. */
export function offeredLists(lists: readonly MailingList[]): MailingList[] {
  return lists.filter((list) => list.visibility === "public" && !list.archived);
}

/** What a new campaign may go to: every list not archived. */
export function sendableLists(lists: readonly MailingList[]): MailingList[] {
  return lists.filter((list) => !list.archived);
}

/**
 * SPEC §5: a list may be named by its key, its numeric id as a string, or a number. Unknown names
 * are dropped; the caller decides whether an empty result is an error ('No valid groups specified').
 */
export function resolveLists(
  lists: MailingList[],
  names: readonly (string | number)[],
): MailingList[] {
  const chosen = new Map<number, MailingList>();
  for (const name of names) {
    const text = String(name).trim();
    const list = lists.find((candidate) => candidate.key === text || String(candidate.id) === text);
    if (list) chosen.set(list.id, list);
  }
  return [...chosen.values()];
}

/*
 * Managing lists (issue 16, point 1): staff create, rename, describe, archive and delete them. The
 * tenant's default list (emailGroups.default, which sign-ups join when they name none) stays
 * public and in use; a list a campaign not yet sent goes to cannot be deleted.
 */

export const LIST_MESSAGES = {
  notFound: "List not found",
  nameTaken: "A list with this name already exists",
  isDefault:
    "This is the list sign-ups join by default; choose another default list in the tenant settings first.",
  inUse: "A campaign not yet sent goes to this list; send, cancel or change that campaign first.",
  hasSequence: "This list has a welcome sequence; stop its steps first.",
} as const;

export class ListError extends Error {
  constructor(
    message: string,
    readonly status: 400 | 404 | 409 = 400,
  ) {
    super(message);
  }
}

/** A key for a new list: from its name, unique in the tenant (deleted lists' keys included). */
async function freeKey(root: Db, tenantId: string, name: string): Promise<string> {
  const db = tenantDb(root, tenantId);
  // Symbols are dropped, not spelt out ("<" would become "less").
  const words = name.replace(/[^\p{L}\p{N}\s-]/gu, " ");
  const base =
    slugify(words, { lower: true, strict: true, trim: true }).slice(0, 60).replace(/-+$/, "") ||
    "list";
  // A key of digits only would read as a list id (resolveLists).
  const stem = /^\d+$/.test(base) ? `list-${base}` : base;
  const taken = new Set(
    (await db.selectFrom("lists").select("key").where("key", "like", `${stem}%`).execute()).map(
      (row) => row.key,
    ),
  );
  let key = stem;
  for (let n = 2; taken.has(key); n++) key = `${stem}-${n}`;
  return key;
}

async function requireList(db: Db, tenant: TenantConfig, id: number): Promise<MailingList> {
  const list = (await listTenantLists(db, tenant)).find((each) => each.id === id);
  if (!list) throw new ListError(LIST_MESSAGES.notFound, 404);
  return list;
}

async function refuseTakenName(root: Db, tenantId: string, name: string, exceptId?: number) {
  const db = tenantDb(root, tenantId);
  const same = await db
    .selectFrom("lists")
    .select("id")
    .where("deleted_at", "is", null)
    .where((eb) => eb(eb.fn("lower", ["name"]), "=", name.toLowerCase()))
    .execute();
  if (same.some((row) => row.id !== exceptId)) throw new ListError(LIST_MESSAGES.nameTaken, 409);
}

export async function createList(
  db: Db,
  tenant: TenantConfig,
  input: ListForm,
): Promise<MailingList> {
  await listTenantLists(db, tenant);
  await refuseTakenName(db, tenant.id, input.name);
  const key = await freeKey(db, tenant.id, input.name);
  const { id } = await db
    .insertInto("lists")
    .values({
      tenant_id: tenant.id,
      key,
      name: input.name,
      description: input.description,
      visibility: input.visibility,
      created_at: new Date().toISOString(),
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  listsChanged(tenant.id);
  return requireList(db, tenant, id);
}

/**
 * Writes a change to one of the tenant's lists and answers the list as it is then. A change that
 * `hidesIt` (private, archived) is refused on the tenant's default list; a new `name` must be free.
 */
async function changeList(
  root: Db,
  tenant: TenantConfig,
  id: number,
  change: { hidesIt: boolean; name?: string; set: Updateable<ListsTable> },
): Promise<MailingList> {
  const db = tenantDb(root, tenant.id);
  const list = await requireList(db, tenant, id);
  if (change.hidesIt && list.key === tenant.emailGroups.default) {
    throw new ListError(LIST_MESSAGES.isDefault, 409);
  }
  if (change.name !== undefined) await refuseTakenName(db, tenant.id, change.name, id);
  await db.updateTable("lists").set(change.set).where("id", "=", id).execute();
  listsChanged(tenant.id);
  return requireList(db, tenant, id);
}

/** Renames, describes, or makes a list public or private; its key (used in forms and the API) stays. */
export function updateList(root: Db, tenant: TenantConfig, id: number, input: ListForm) {
  return changeList(root, tenant, id, {
    hidesIt: input.visibility === "private",
    name: input.name,
    set: { name: input.name, description: input.description, visibility: input.visibility },
  });
}

/** Archived: kept with its subscribers, offered nowhere; restoring undoes it. */
export function setListArchived(root: Db, tenant: TenantConfig, id: number, archived: boolean) {
  return changeList(root, tenant, id, {
    hidesIt: archived,
    set: { archived_at: archived ? new Date().toISOString() : null },
  });
}

/**
 * Deletes a list with its subscriptions, in one transaction. The subscribers stay (they may be on
 * other lists); the row stays as a tombstone so old campaigns keep its name and its key is not
 * reused or re-created from the tenant's settings.
 */
export async function deleteList(root: Db, tenant: TenantConfig, id: number): Promise<void> {
  const db = tenantDb(root, tenant.id);
  const list = await requireList(db, tenant, id);
  if (list.key === tenant.emailGroups.default) throw new ListError(LIST_MESSAGES.isDefault, 409);
  await db.transaction().execute(async (trx) => {
    const waiting = await trx
      .selectFrom("campaigns")
      .select(["list_ids", "sequence_list_id"])
      .where("status", "in", ["draft", "scheduled", "sending", "paused"])
      .execute();
    if (waiting.some((row) => row.sequence_list_id === id)) {
      throw new ListError(LIST_MESSAGES.hasSequence, 409);
    }
    if (waiting.some((row) => (JSON.parse(row.list_ids) as number[]).includes(id))) {
      throw new ListError(LIST_MESSAGES.inUse, 409);
    }
    await emptyList(trx, tenant.id, id);
    await trx
      .updateTable("lists")
      .set({ deleted_at: new Date().toISOString() })
      .where("id", "=", id)
      .execute();
  });
  listsChanged(tenant.id);
}

export interface ListOverview extends MailingList {
  /** active subscribers: who a campaign to this list reaches */
  active: number;
  /** everyone on it, whatever their status */
  members: number;
  isDefault: boolean;
}

/** The lists page: each list with how many people it holds. */
export async function listOverview(root: Db, tenant: TenantConfig): Promise<ListOverview[]> {
  const db = tenantDb(root, tenant.id);
  const lists = await listTenantLists(db, tenant);
  const counts = await db
    .selectFrom("subscriptions")
    .innerJoin("subscribers", "subscribers.id", "subscriptions.subscriber_id")
    .select([
      "subscriptions.list_id",
      (eb) => eb.fn.countAll<number>().as("members"),
      (eb) =>
        eb.fn
          .sum<number>(eb.case().when("subscribers.status", "=", "active").then(1).else(0).end())
          .as("active"),
    ])
    .groupBy("subscriptions.list_id")
    .execute();
  return lists.map((list) => {
    const row = counts.find((each) => each.list_id === list.id);
    return {
      ...list,
      active: Number(row?.active ?? 0),
      members: Number(row?.members ?? 0),
      isDefault: list.key === tenant.emailGroups.default,
    };
  });
}
