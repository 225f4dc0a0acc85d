import { deleteExpiredStaffTokens } from "../auth/account-links";
import { deleteExpiredSessions } from "../auth/sessions";
import type { Db } from "../db";
import { deleteExpiredChanges } from "../subscribers/store";
import { deleteFinishedJobs } from "./store";

/*
 * The hourly purge (issue 44, target 6; decision 056): what has expired is deleted by the module
 * that writes it. Preview links are not stored (each is signed and carries its own expiry:
 * server/newsletters/previews.ts), so there is nothing of them to delete.
 */

const DAY_MS = 86_400_000;
/** An expired invitation stays this long on the staff page, to be sent again. */
export const EXPIRED_LINKS_KEPT_MS = 7 * DAY_MS;
/** Finished jobs stay this long on /admin/jobs (failed ones longer, to be looked into). */
export const DONE_JOBS_KEPT_MS = 7 * DAY_MS;
export const FAILED_JOBS_KEPT_MS = 30 * DAY_MS;

export interface PurgeCounts {
  sessions: number;
  staffLinks: number;
  preferenceLinks: number;
  jobs: number;
}

export async function purgeExpired(db: Db, now = new Date()): Promise<PurgeCounts> {
  const before = (ms: number) => new Date(now.getTime() - ms);
  const sessions = await deleteExpiredSessions(db, now);
  const staffLinks = await deleteExpiredStaffTokens(db, before(EXPIRED_LINKS_KEPT_MS));
  // Each tenant's subscribers' one-time links, on that tenant's database.
  const tenants = await db.selectFrom("tenants").select("id").execute();
  let preferenceLinks = 0;
  for (const { id } of tenants) preferenceLinks += await deleteExpiredChanges(db, id, now);
  const jobs = await deleteFinishedJobs(db, before(DONE_JOBS_KEPT_MS), before(FAILED_JOBS_KEPT_MS));
  return { sessions, staffLinks, preferenceLinks, jobs };
}
