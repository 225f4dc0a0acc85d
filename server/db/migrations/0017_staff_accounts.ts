import * as def from "./columns";

/**
 * Issue 14, part 4: staff accounts people can live with. `staff_tokens` holds the emailed,
 * single-use links (a password reset for an account, an invitation for an address), each only as
 * a hash; users may turn on TOTP two-factor sign-in (the secret, when it was confirmed, the last
 * time step used so a code works once, and the hashes of their recovery codes).
 */
export async function up(db: def.MigrationDb): Promise<void> {
  await db.schema
    .createTable("staff_tokens")
    .addColumn("id", "text", def.primaryKey)
    // reset | invite
    .addColumn("purpose", "text", def.required)
    .addColumn("token_hash", "text", (col) => col.notNull().unique())
    .addColumn("user_id", "text", (col) => col.references("users.id").onDelete("cascade"))
    .addColumn("email", "text", def.required)
    // an invitation's role and products (JSON), given to the account it creates
    .addColumn("role", "text")
    .addColumn("products", "text")
    .addColumn("created_by", "text")
    .$call(def.requiredText("created_at", "expires_at"))
    .addColumn("used_at", "text")
    .addColumn("revoked_at", "text")
    .execute();
  await db.schema.alterTable("users").addColumn("totp_secret", "text").execute();
  await db.schema.alterTable("users").addColumn("totp_enabled_at", "text").execute();
  await db.schema.alterTable("users").addColumn("totp_last_step", "integer").execute();
  await db.schema.alterTable("users").addColumn("recovery_codes", "text").execute();
}

export async function down(db: def.MigrationDb): Promise<void> {
  for (const column of ["recovery_codes", "totp_last_step", "totp_enabled_at", "totp_secret"]) {
    await db.schema.alterTable("users").dropColumn(column).execute();
  }
  await db.schema.dropTable("staff_tokens").execute();
}
