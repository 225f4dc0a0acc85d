import type { Db } from "../db";
import { crossTenant, tenantDb } from "../db/tenant-guard";
import { getEnv } from "../env";
import { countMail, type MailStream } from "../metrics";
import type { Scope } from "../scope";
import { dkimSigningKey } from "./dkim";
import { DeliveryError, type OutgoingMessage } from "./transport";

export type MailContext = Pick<Scope, "db" | "transport" | "logger"> & {
  /** Waits before retry n (1-based); default MAIL_RETRY_DELAYS (1 min, 5 min, 30 min, 2 h). */
  retryDelaysMs?: readonly number[];
};

const retryDelaysOf = (ctx: MailContext) => ctx.retryDelaysMs ?? getEnv().MAIL_RETRY_DELAYS;
/** Tries in all: the first and one per wait. */
const maxAttemptsOf = (ctx: MailContext) => retryDelaysOf(ctx).length + 1;
/** How long a retry run holds a row before another run (or instance) may take it. */
const RETRY_LEASE_MS = 10 * 60_000;

/** The message could not be handed to SMTP now; it is recorded and will be retried. */
export class MailNotSentError extends Error {}

/**
 * Records a message in mail_log, then hands it to the transport. On failure the row says why and
 * when to try again, and the caller gets MailNotSentError so the visitor sees an error, not a success.
 */
export async function sendMail(
  ctx: MailContext,
  mail: OutgoingMessage & { tenantId: string | null; kind: string },
  options: { retryLater?: boolean } = {},
): Promise<{ id: number; messageId: string }> {
  const now = new Date().toISOString();
  const { id } = await ctx.db
    .insertInto("mail_log")
    .values({
      tenant_id: mail.tenantId,
      kind: mail.kind,
      to_address: mail.to,
      from_address: `${mail.from.name} <${mail.from.email}>`,
      subject: mail.subject,
      html: mail.html,
      text: mail.text,
      headers: JSON.stringify(mail.headers),
      status: "pending",
      created_at: now,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  // Signed with the tenant's key at send time; mail_log keeps only the tenant, never the key.
  const dkim = mail.dkim ?? (await dkimSigningKey(ctx.db, mail.tenantId));
  const result = await attempt(
    ctx,
    { id, tenantId: mail.tenantId, kind: mail.kind },
    { ...mail, dkim },
    0,
    options.retryLater ?? true,
  );
  if (!result.ok) throw new MailNotSentError(result.error);
  return { id, messageId: result.messageId };
}

/**
 * The database a mail_log row is updated on: bound to the row's tenant, which then names it; a row
 * of no tenant (staff mail of old) by its id alone, the table's key.
 */
function logDb(db: Db, tenantId: string | null): Db {
  return tenantId === null ? crossTenant(db) : tenantDb(db, tenantId);
}

/** A mail_log row: its id, and its tenant (null for mail of no tenant). */
interface LogRow {
  id: number;
  tenantId: string | null;
  /** mail_log.kind: "campaign" rows are counted by the campaign worker, the rest here (/metrics) */
  kind: string;
}

/** mail_log.kind of a campaign's test send (server/campaigns/test-sends.ts). */
export const TEST_SEND_KIND = "campaign-test";

/** The /metrics stream of a message sent here: test sends are their own, never transactional. */
const streamOf = (row: LogRow): MailStream =>
  row.kind === TEST_SEND_KIND ? "test" : "transactional";

async function attempt(
  ctx: MailContext,
  row: LogRow,
  mail: OutgoingMessage,
  previousAttempts: number,
  retryLater = true,
): Promise<{ ok: true; messageId: string } | { ok: false; error: string }> {
  const attempts = previousAttempts + 1;
  try {
    const { messageId } = await ctx.transport.deliver(mail);
    await logDb(ctx.db, row.tenantId)
      .updateTable("mail_log")
      .set({
        status: ctx.transport.kind === "outbox" ? "outbox" : "sent",
        message_id: messageId,
        attempts,
        error: null,
        sent_at: new Date().toISOString(),
        next_attempt_at: null,
      })
      .where("id", "=", row.id)
      .execute();
    if (row.kind !== "campaign") countMail("sent", row.tenantId, streamOf(row));
    return { ok: true, messageId };
  } catch (error) {
    const transient = error instanceof DeliveryError ? error.transient : true;
    const reason = error instanceof Error ? error.message : String(error);
    const delays = retryDelaysOf(ctx);
    const maxAttempts = delays.length + 1;
    const retry = retryLater && transient && attempts < maxAttempts;
    await logDb(ctx.db, row.tenantId)
      .updateTable("mail_log")
      .set({
        status: "failed",
        attempts: retry ? attempts : maxAttempts,
        error: reason.slice(0, 1000),
        next_attempt_at: retry
          ? new Date(Date.now() + (delays[attempts - 1] ?? delays.at(-1) ?? 0)).toISOString()
          : null,
      })
      .where("id", "=", row.id)
      .execute();
    if (row.kind !== "campaign") {
      countMail(retry ? "retried" : "failed", row.tenantId, streamOf(row));
    }
    ctx.logger.warn({ mailId: row.id, attempts, transient, reason }, "mail not sent");
    return { ok: false, error: reason };
  }
}

/**
 * Tries failed messages whose wait is over again; returns how many went out. Each row is taken
 * first (its next_attempt_at moved on, only if no one else moved it), so overlapping runs and
 * other instances sharing the database never send one message twice.
 */
export async function retryFailedMail(ctx: MailContext, now = new Date()): Promise<number> {
  // The retry queue is every tenant's: one sweep takes what is due, then acts row by row.
  const due = await crossTenant(ctx.db)
    .selectFrom("mail_log")
    .selectAll()
    .where("status", "=", "failed")
    .where("attempts", "<", maxAttemptsOf(ctx))
    .where("next_attempt_at", "<=", now.toISOString())
    .orderBy("id")
    .limit(100)
    .execute();
  let sent = 0;
  for (const row of due) {
    const taken = await logDb(ctx.db, row.tenant_id)
      .updateTable("mail_log")
      .set({ next_attempt_at: new Date(Date.now() + RETRY_LEASE_MS).toISOString() })
      .where("id", "=", row.id)
      .where("status", "=", "failed")
      .where("next_attempt_at", "=", row.next_attempt_at)
      .executeTakeFirst();
    if (Number(taken.numUpdatedRows) !== 1) continue;
    const [name, email] = /^(.*) <(.*)>$/.exec(row.from_address)?.slice(1) ?? [
      "",
      row.from_address,
    ];
    const result = await attempt(
      ctx,
      { id: row.id, tenantId: row.tenant_id, kind: row.kind },
      {
        from: { name: name ?? "", email: email ?? row.from_address },
        to: row.to_address,
        subject: row.subject,
        html: row.html,
        text: row.text,
        headers: JSON.parse(row.headers) as Record<string, string>,
        dkim: await dkimSigningKey(ctx.db, row.tenant_id),
      },
      Number(row.attempts),
    );
    if (result.ok) sent++;
  }
  return sent;
}

/** Forgets the mail a tenant sent to these addresses (an erased subscriber's welcome, links…). */
export async function forgetRecipients(
  root: Db,
  tenantId: string,
  addresses: readonly string[],
): Promise<void> {
  const db = tenantDb(root, tenantId);
  for (let start = 0; start < addresses.length; start += 500) {
    await db
      .deleteFrom("mail_log")
      .where("to_address", "in", addresses.slice(start, start + 500))
      .execute();
  }
}
