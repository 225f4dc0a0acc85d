import * as def from "./columns";

/**
 * Issue 16, point 6: welcome sequences. A step of a list's sequence is a campaign row that names
 * the list, its place and its delay: the sending engine sends it as it sends any campaign, one
 * delivery per subscriber at most (the deliveries' unique key), while the step is 'sending'.
 */
export async function up(db: def.MigrationDb): Promise<void> {
  await db.schema
    .alterTable("campaigns")
    .addColumn("sequence_list_id", "integer", def.optionalRef("lists.id"))
    .execute();
  for (const column of ["sequence_position", "sequence_delay_days"]) {
    await db.schema.alterTable("campaigns").addColumn(column, "integer").execute();
  }
  await def.createIndex(db, "campaigns_sequence", "campaigns", ["sequence_list_id", "status"]);
}

export async function down(db: def.MigrationDb): Promise<void> {
  await db.schema.dropIndex("campaigns_sequence").execute();
  for (const column of ["sequence_delay_days", "sequence_position", "sequence_list_id"]) {
    await db.schema.alterTable("campaigns").dropColumn(column).execute();
  }
}
