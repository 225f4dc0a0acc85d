import type { MailStatus } from "../db/schema";
import { tenantDb } from "../db/tenant-guard";
import type { TenantScope } from "../scope";

/**
 * Staff's reading of mail_log (DESIGN.md §5: every message sent or kept in the outbox can be read
 * at /admin/outbox). Only the tenant's own messages: the tenant is part of every WHERE clause.
 */

export const OUTBOX_PAGE_SIZE = 50;

export interface OutboxEntry {
  id: number;
  createdAt: string;
  to: string;
  subject: string;
  kind: string;
  status: MailStatus;
  attempts: number;
  error: string | null;
}

/** One page of the tenant's messages, newest first. */
export async function listOutbox(
  ctx: TenantScope,
  page = 1,
  pageSize = OUTBOX_PAGE_SIZE,
): Promise<{ items: OutboxEntry[]; total: number; page: number; pageCount: number }> {
  const db = tenantDb(ctx.db, ctx.tenantId);
  const { count } = await db
    .selectFrom("mail_log")
    .select((eb) => eb.fn.countAll().as("count"))
    .executeTakeFirstOrThrow();
  const total = Number(count);
  const rows = await db
    .selectFrom("mail_log")
    .select(["id", "created_at", "to_address", "subject", "kind", "status", "attempts", "error"])
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(pageSize)
    .offset((page - 1) * pageSize)
    .execute();
  return {
    items: rows.map((row) => ({
      id: Number(row.id),
      createdAt: row.created_at,
      to: row.to_address,
      subject: row.subject,
      kind: row.kind,
      status: row.status,
      attempts: Number(row.attempts),
      error: row.error,
    })),
    total,
    page,
    pageCount: Math.max(1, Math.ceil(total / pageSize)),
  };
}

export interface OutboxMessage extends OutboxEntry {
  from: string;
  messageId: string | null;
  sentAt: string | null;
  nextAttemptAt: string | null;
  /** the extra headers it was sent with (List-Unsubscribe…) */
  headers: [string, string][];
  html: string;
  text: string;
}

/** One of the tenant's messages, or null (also for another tenant's message). */
export async function getOutboxMessage(
  ctx: TenantScope,
  id: number,
): Promise<OutboxMessage | null> {
  const db = tenantDb(ctx.db, ctx.tenantId);
  const row = await db.selectFrom("mail_log").selectAll().where("id", "=", id).executeTakeFirst();
  if (!row) return null;
  let headers: [string, string][] = [];
  try {
    const parsed: unknown = JSON.parse(row.headers);
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) {
      headers = Object.entries(parsed).map(([name, value]) => [name, String(value)]);
    }
  } catch {
    // A row with unreadable headers is still worth reading.
  }
  return {
    id: Number(row.id),
    createdAt: row.created_at,
    to: row.to_address,
    from: row.from_address,
    subject: row.subject,
    kind: row.kind,
    status: row.status,
    attempts: Number(row.attempts),
    error: row.error,
    messageId: row.message_id,
    sentAt: row.sent_at,
    nextAttemptAt: row.next_attempt_at,
    headers,
    html: row.html,
    text: row.text,
  };
}
