import type * as def from "./columns";

/**
 * Issue 35, target 5: A/B subject lines. A campaign's test (`ab_test`, JSON: its subjects, the
 * test share in %, the winner's measure, the wait in minutes) is decided at `ab_decide_at`, once:
 * `ab_winner` (the subject's index) is set by a conditional update, with the figures it was chosen
 * on (`ab_decision`). Each delivery records which subject it carried (`ab_variant`) and whether it
 * was in the test share or the remainder sent after the decision (`ab_phase`).
 */
export async function up(db: def.MigrationDb): Promise<void> {
  await db.schema.alterTable("campaigns").addColumn("ab_test", "text").execute();
  await db.schema.alterTable("campaigns").addColumn("ab_decide_at", "text").execute();
  await db.schema.alterTable("campaigns").addColumn("ab_winner", "integer").execute();
  await db.schema.alterTable("campaigns").addColumn("ab_decided_at", "text").execute();
  await db.schema.alterTable("campaigns").addColumn("ab_decision", "text").execute();
  await db.schema.alterTable("deliveries").addColumn("ab_variant", "integer").execute();
  await db.schema.alterTable("deliveries").addColumn("ab_phase", "text").execute();
}

export async function down(db: def.MigrationDb): Promise<void> {
  await db.schema.alterTable("deliveries").dropColumn("ab_phase").execute();
  await db.schema.alterTable("deliveries").dropColumn("ab_variant").execute();
  for (const column of ["ab_decision", "ab_decided_at", "ab_winner", "ab_decide_at", "ab_test"]) {
    await db.schema.alterTable("campaigns").dropColumn(column).execute();
  }
}
