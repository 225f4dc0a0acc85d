import type { Generated, Insertable, Selectable } from "kysely";

/** Time is stored as ISO-8601 text and JSON as text, so the same SQL runs on SQLite and PostgreSQL. */
export interface TenantsTable {
  id: string;
  name: string;
  domain: string | null;
  description: string;
  mail_list_group_id: string | null;
  /** JSON: the tenant's overrides of the default config (branding, emailTemplates, emailGroups, features, email). */
  config: string;
  created_at: string;
  updated_at: string;
}

export interface ContactMessagesTable {
  id: Generated<number>;
  tenant_id: string;
  name: string;
  email: string;
  company: string | null;
  message: string;
  created_at: string;
}

export interface Database {
  tenants: TenantsTable;
  contact_messages: ContactMessagesTable;
}

export type TenantRow = Selectable<TenantsTable>;
export type NewContactMessage = Insertable<ContactMessagesTable>;
