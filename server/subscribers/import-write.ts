import { sql } from "kysely";
import { isSuppressed } from "../campaigns/bounces";
import type { Db } from "../db";
import type { SubscriberStatus } from "../db/schema";
import { tenantDb } from "../db/tenant-guard";
import type { Scope } from "../scope";
import { type ImportOrigin, recordEvents } from "./events";
import { setFieldValues } from "./fields";
import { type ImportReport, type ImportRow, prepareImport } from "./import-rows";
import type { MailingList } from "./lists";
import {
  chunks,
  dropPendingChanges,
  insertSubscribers,
  joinLists,
  leaveAllLists,
  updateSubscriber,
} from "./store";

/** How a chunk is written: from a Herald CSV (no origin) or another platform's audience. */
export interface ImportWriteOptions {
  /**
   * The platform the audience comes from. Its "subscribed" never subscribes again someone who
   * left here (only staff's own CSV saying "active" does), and new people's consent record names it.
   */
  origin?: ImportOrigin;
}

/** Statuses that keep a subscriber on lists: the others are on none. */
const LISTED: ReadonlySet<SubscriberStatus> = new Set(["active", "unconfirmed"]);

export type ImportCounts = Pick<ImportReport, "created" | "updated" | "keptUnsubscribed">;

/**
 * Writes checked rows (a whole small file, or one chunk of a large one) inside the caller's
 * transaction. Imports are existing audiences: no mail is sent.
 *
 * A known address is updated: its name when the row gives one; its lists when the row names some
 * (they replace the old ones). Someone who unsubscribed, bounced or complained keeps that status
 * unless the row says 'active' in so many words. A row saying 'unsubscribed' takes the person off
 * every list. A row naming no lists puts a new subscriber on the default list.
 */
export async function writeImportRows(
  trx: Db,
  tenantId: string,
  rows: readonly ImportRow[],
  defaultList: MailingList | undefined,
  now: string,
  options: ImportWriteOptions = {},
): Promise<ImportCounts> {
  const { origin } = options;
  const counts: ImportCounts = { created: 0, updated: 0, keptUnsubscribed: 0 };
  if (rows.length === 0) return counts;
  const existing = new Map<
    string,
    {
      id: number;
      status: SubscriberStatus;
      name: string;
      subscribed_at: string | null;
      hasLists: boolean;
    }
  >();
  const db = tenantDb(trx, tenantId);
  for (const part of chunks(rows.map((row) => row.email))) {
    const found = await db
      .selectFrom("subscribers")
      .select(["id", "email", "status", "name", "subscribed_at"])
      .select((eb) =>
        eb
          .exists(
            eb
              .selectFrom("subscriptions")
              .select(sql`1`.as("one"))
              .whereRef("subscriptions.subscriber_id", "=", "subscribers.id"),
          )
          .as("has_lists"),
      )
      .where("email", "in", part)
      .execute();
    for (const row of found) {
      existing.set(row.email, { ...row, id: Number(row.id), hasLists: Boolean(row.has_lists) });
    }
  }

  /** subscriber id → the lists they are on after the import (absent: unchanged) */
  const listsAfter = new Map<number, MailingList[]>();
  const fresh = rows.filter((row) => !existing.has(row.email));
  const freshByEmail = new Map(fresh.map((row) => [row.email, row]));
  const inserted = await insertSubscribers(
    trx,
    tenantId,
    fresh.map((row) => {
      const status = row.status ?? "active";
      return {
        email: row.email,
        name: row.name,
        status,
        subscribed_at: status === "active" ? (row.since ?? now) : null,
        unsubscribed_at: status === "unsubscribed" ? now : null,
        ...(row.since ? { created_at: row.since } : {}),
      };
    }),
    now,
  );
  /** subscriber id → the row that wrote them (for their field values) */
  const rowOf = new Map<number, ImportRow>();
  for (const { id, email } of inserted) {
    const row = freshByEmail.get(email) as ImportRow;
    rowOf.set(id, row);
    const listed = LISTED.has(row.status ?? "active");
    listsAfter.set(id, listed ? (row.lists ?? (defaultList ? [defaultList] : [])) : []);
  }
  counts.created = fresh.length;
  await recordEvents(
    trx,
    tenantId,
    inserted.map(({ id, email }) => ({
      subscriberId: id,
      kind: "signed-up" as const,
      detail: {
        source: "import" as const,
        lists: (listsAfter.get(id) ?? []).map((list) => list.key),
        active: (freshByEmail.get(email)?.status ?? "active") === "active",
        ...(origin ? { origin } : {}),
        ...(freshByEmail.get(email)?.note ? { note: freshByEmail.get(email)?.note } : {}),
      },
    })),
    now,
  );

  for (const row of rows) {
    const known = existing.get(row.email);
    if (!known) continue;
    rowOf.set(known.id, row);
    // Unsubscribed, bounced and complained addresses keep their status unless the row says
    // 'active' in so many words (staff confirming the address again). Another platform's list
    // never does: only its own leavers and bounces are taken over.
    const left = known.status === "unsubscribed" || isSuppressed(known.status);
    const keptAway = left && (row.status === null || (origin && LISTED.has(row.status)));
    const status: SubscriberStatus = keptAway
      ? known.status
      : origin && row.status === "unconfirmed" && known.status === "active"
        ? "active"
        : (row.status ?? "active");
    if (keptAway && (origin || known.status === "unsubscribed")) counts.keptUnsubscribed++;
    const name = row.name || known.name;
    if (status !== known.status || name !== known.name) {
      await updateSubscriber(
        trx,
        tenantId,
        known.id,
        {
          status,
          name,
          subscribed_at:
            status === "active" && known.status !== "active" ? now : known.subscribed_at,
          ...(status === "unsubscribed" && known.status !== "unsubscribed"
            ? { unsubscribed_at: now }
            : status === "active"
              ? { unsubscribed_at: null }
              : {}),
        },
        now,
      );
    }
    if (status === "unsubscribed" || (origin && !LISTED.has(status))) {
      if (known.hasLists) listsAfter.set(known.id, []);
    } else if (row.lists) {
      listsAfter.set(known.id, row.lists);
    } else if (!known.hasLists && defaultList) {
      listsAfter.set(known.id, [defaultList]);
    }
    counts.updated++;
  }

  const changed = [...listsAfter.keys()];
  await leaveAllLists(trx, tenantId, changed);
  const leaving = rows
    .filter((row) => row.status !== null && !LISTED.has(row.status))
    .map((row) => existing.get(row.email)?.id)
    .filter((id): id is number => id !== undefined);
  await dropPendingChanges(trx, tenantId, leaving);
  const memberships = [...listsAfter].flatMap(([subscriberId, chosen]) =>
    chosen.map((list) => ({ subscriberId, listId: list.id })),
  );
  await joinLists(trx, tenantId, memberships, now);
  for (const [subscriberId, row] of rowOf) {
    if (row.values && Object.keys(row.values).length > 0) {
      await setFieldValues(trx, tenantId, subscriberId, row.values);
    }
  }
  return counts;
}

/**
 * Imports a CSV at once, in one transaction (a failed write imports nothing): columns email
 * (required), name, lists (keys separated by ";" or "|"; none: the default list) and status
 * (active or unsubscribed; none: active). Each row is checked on its own; refused rows are
 * reported. Staff's uploads go through server/subscribers/imports.ts, in the background.
 */
export async function importSubscribersCsv(
  ctx: Pick<Scope, "db" | "tenant">,
  text: string,
): Promise<ImportReport> {
  const { rows, refused, defaultList } = await prepareImport(ctx, text);
  const now = new Date().toISOString();
  const counts = await ctx.db
    .transaction()
    .execute((trx) => writeImportRows(trx, ctx.tenant.id, rows, defaultList, now));
  return { ...counts, imported: counts.created + counts.updated, refused };
}
