import type * as def from "./columns";

/**
 * Issue 35 (Names): a tenant's mail comes from one sender name, its own, unless a template names
 * another on purpose. Template sender names used to default to the fixed "KeyDiscovery", so
 * KeyDiscovery Legal's subscriber mail came from "KeyDiscovery"; the defaults are blank now
 * (server/tenants/config.ts). A stored template that still carries the old fixed default over a
 * tenant sender of its own is that copy, not a choice: it is cleared, and the tenant's applies.
 */
const OLD_DEFAULT = { name: "KeyDiscovery", email: "newsletter@keydiscovery.com" } as const;
const NAME_KEYS = ["senderName", "fromName"] as const;

type Stored = {
  email?: { senderName?: unknown; senderEmail?: unknown };
  emailTemplates?: Record<string, Record<string, unknown> | undefined>;
};

/** The config with the copied defaults cleared, or null when nothing changes. */
export function withoutCopiedSender(config: Stored): Stored | null {
  const ownName = typeof config.email?.senderName === "string" ? config.email.senderName : "";
  const ownEmail = typeof config.email?.senderEmail === "string" ? config.email.senderEmail : "";
  let changed = false;
  const templates: Stored["emailTemplates"] = {};
  for (const [key, template] of Object.entries(config.emailTemplates ?? {})) {
    if (!template || typeof template !== "object") {
      templates[key] = template;
      continue;
    }
    const kept = { ...template };
    for (const field of NAME_KEYS) {
      if (kept[field] === OLD_DEFAULT.name && ownName.trim() && ownName !== OLD_DEFAULT.name) {
        delete kept[field];
        changed = true;
      }
    }
    if (kept.fromEmail === OLD_DEFAULT.email && ownEmail.trim() && ownEmail !== OLD_DEFAULT.email) {
      delete kept.fromEmail;
      changed = true;
    }
    templates[key] = kept;
  }
  return changed ? { ...config, emailTemplates: templates } : null;
}

export async function up(db: def.MigrationDb): Promise<void> {
  const rows: { id: string; config: string }[] = await db
    .selectFrom("tenants")
    .select(["id", "config"])
    .execute();
  for (const row of rows) {
    let config: Stored;
    try {
      config = JSON.parse(row.config) as Stored;
    } catch {
      continue; // a corrupt config is read as the defaults (server/tenants/store.ts): left as it is
    }
    if (!config || typeof config !== "object") continue;
    const fixed = withoutCopiedSender(config);
    if (fixed) {
      await db
        .updateTable("tenants")
        .set({ config: JSON.stringify(fixed) })
        .where("id", "=", row.id)
        .execute();
    }
  }
}

/** The cleared copies were the old default's: nothing to put back. */
export async function down(): Promise<void> {}
