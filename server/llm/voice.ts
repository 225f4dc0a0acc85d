import type { Db } from "../db";
import { tenantDb } from "../db/tenant-guard";

/**
 * A tenant's voice notes (decision 047): how the leader writes, in the leader's or their team's
 * words, given to the language model with every draft. Plain text, kept as written.
 */
export const VOICE_NOTES_MAX = 4000;

export async function voiceNotesOf(db: Db, tenantId: string): Promise<string> {
  const row = await tenantDb(db, tenantId)
    .selectFrom("tenant_voice_notes")
    .select("notes")
    .executeTakeFirst();
  return row?.notes ?? "";
}

/** Saves (or, when blank, clears) the tenant's voice notes. */
export async function saveVoiceNotes(
  db: Db,
  tenantId: string,
  notes: string,
  actor: string,
): Promise<void> {
  const bound = tenantDb(db, tenantId);
  const text = notes.replace(/\r\n/g, "\n").trim();
  if (!text) {
    await bound.deleteFrom("tenant_voice_notes").execute();
    return;
  }
  const values = { notes: text, updated_by: actor, updated_at: new Date().toISOString() };
  await bound
    .insertInto("tenant_voice_notes")
    .values({ tenant_id: tenantId, ...values })
    .onConflict((oc) => oc.column("tenant_id").doUpdateSet(values))
    .execute();
}
