import type { ContactInput } from "../../shared/schemas/contact";
import { tenantDb } from "../db/tenant-guard";
import { createRateLimit } from "../http/rate-limit";
import type { TenantScope } from "../scope";

/** Ten messages per address every ten minutes is generous for people and useless for spam runs. */
export const contactRateLimit = createRateLimit({
  name: "contact",
  points: 10,
  windowSeconds: 600,
});

/** Stores a validated contact message for the tenant whose site it was sent from. */
export async function submitContactMessage(
  ctx: TenantScope,
  input: Omit<ContactInput, "website">,
): Promise<{ id: number }> {
  const row = await ctx.db
    .insertInto("contact_messages")
    .values({
      tenant_id: ctx.tenantId,
      name: input.name,
      email: input.email,
      company: input.company ? input.company : null,
      message: input.message,
      created_at: new Date().toISOString(),
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  return { id: row.id };
}

/** The tenant's messages, newest first (staff read them in the admin area). */
export async function listContactMessages(ctx: TenantScope, options: { limit: number }) {
  const db = tenantDb(ctx.db, ctx.tenantId);
  return db
    .selectFrom("contact_messages")
    .selectAll()
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(options.limit)
    .execute();
}
