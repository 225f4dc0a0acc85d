import { utcToZonedLocal } from "../../shared/time-zone";
import type { Db } from "../db";
import { tenantDb } from "../db/tenant-guard";
import type { TenantConfig } from "../tenants/config";
import type { SubscriberEventDetail } from "./events";

/*
 * Subscriber growth per day (issue 16, point 8), for the tenant or one list, in the tenant's time
 * zone: new sign-ups, confirmations (a double opt-in followed, or a sign-up active at once),
 * unsubscribes, and the net change (confirmed − unsubscribed). Read from the subscribers' timelines
 * (subscriber_events), so it counts from the day Herald began keeping them; erased subscribers'
 * events are gone with them.
 */

export interface GrowthDay {
  day: string;
  new: number;
  confirmed: number;
  unsubscribed: number;
  net: number;
}

export const GROWTH_PERIODS = [7, 30, 90, 365] as const;

const DAY_MS = 86_400_000;

type Detail = Partial<
  SubscriberEventDetail["signed-up"] &
    SubscriberEventDetail["confirmed"] &
    SubscriberEventDetail["lists-changed"] &
    SubscriberEventDetail["preferences-changed"]
>;

export async function subscriberGrowth(
  root: Db,
  tenant: Pick<TenantConfig, "id" | "timeZone">,
  options: { days: number; list?: string | null; now?: Date },
): Promise<GrowthDay[]> {
  const db = tenantDb(root, tenant.id);
  const now = options.now ?? new Date();
  const zone = tenant.timeZone;
  const dayOf = (iso: string) => utcToZonedLocal(iso, zone).slice(0, 10);
  const days: string[] = [];
  for (let back = options.days - 1; back >= 0; back--) {
    const day = dayOf(new Date(now.getTime() - back * DAY_MS).toISOString());
    if (days.at(-1) !== day) days.push(day);
  }
  const rows = new Map(
    days.map((day) => [day, { day, new: 0, confirmed: 0, unsubscribed: 0, net: 0 }]),
  );
  const events = await db
    .selectFrom("subscriber_events")
    .select(["kind", "detail", "created_at"])
    .where("kind", "in", [
      "signed-up",
      "confirmed",
      "unsubscribed",
      "lists-changed",
      "preferences-changed",
    ])
    .where("created_at", ">=", new Date(now.getTime() - (options.days + 1) * DAY_MS).toISOString())
    .execute();
  const list = options.list ?? null;
  const has = (keys: string[] | undefined) => list === null || (keys ?? []).includes(list);
  for (const event of events) {
    const row = rows.get(dayOf(event.created_at));
    if (!row) continue;
    const detail = JSON.parse(event.detail) as Detail;
    switch (event.kind) {
      case "signed-up":
        if (has(detail.lists)) {
          row.new++;
          if (detail.active) row.confirmed++;
        }
        break;
      case "confirmed":
        // Older confirmations name no lists: they count for the tenant only.
        if (list === null || detail.lists?.includes(list)) row.confirmed++;
        break;
      case "unsubscribed":
        if (list === null || detail.lists?.includes(list)) row.unsubscribed++;
        break;
      default:
        // Moves between lists change a list's numbers, not the tenant's.
        if (list === null) break;
        if (detail.added?.includes(list)) {
          row.new++;
          row.confirmed++;
        }
        if (detail.removed?.includes(list)) row.unsubscribed++;
    }
  }
  return [...rows.values()].map((row) => ({ ...row, net: row.confirmed - row.unsubscribed }));
}
