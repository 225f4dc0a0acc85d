import { csvDocument } from "../csv-document";
import type { Scope } from "../scope";
import { filteredSubscribers, SUBSCRIBER_COLUMNS, type SubscriberFilter } from "./search";
import { listKeysBySubscriber } from "./subscribers";

export const EXPORT_COLUMNS = ["email", "name", "status", "lists", "subscribed_at"] as const;
/** Separates list keys inside the lists cell; the import also accepts "|". */
const LIST_SEPARATOR = ";";

/**
 * The tenant's subscribers matching `filter` as CSV (server/csv-document.ts), oldest first; it
 * re-imports unchanged.
 */
export async function exportSubscribersCsv(
  ctx: Pick<Scope, "db" | "tenant">,
  filter: SubscriberFilter,
): Promise<string> {
  const rows = await (await filteredSubscribers(ctx, filter))
    .select(SUBSCRIBER_COLUMNS)
    .orderBy("subscribers.id")
    .execute();
  const lists = await listKeysBySubscriber(
    ctx,
    rows.map((row) => row.id),
  );
  return csvDocument(
    EXPORT_COLUMNS,
    rows.map((row) => [
      row.email,
      row.name,
      row.status,
      (lists.get(row.id) ?? []).join(LIST_SEPARATOR),
      row.subscribed_at ?? "",
    ]),
  );
}
