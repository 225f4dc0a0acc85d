import type { Database } from "../../db/schema";

/*
 * What a tenant archive holds, table by table (docs/decisions/030-moving-a-tenant.md), in the order
 * an import writes them: every table named is written after the tables its rows point to. A test
 * (server/tenants/move/tables.test.ts) keeps this list in step with server/db/schema.ts: each table
 * is either moved or named in INSTALL_TABLES with the reason it stays, and each column whose name
 * says it holds an id is either a reference below or named in NOT_REFERENCES with what it holds.
 */

export type TableName = keyof Database;

/** The tables of integer ids an import renumbers, and the text ids it renames when they collide. */
export type IdSpace =
  | "lists"
  | "subscribers"
  | "segments"
  | "deliveries"
  | "newsletters"
  | "campaigns"
  | "users";

export interface MovedTable {
  name: TableName;
  /**
   * How the row's own id moves: "serial" is given a new number by the destination (and recorded
   * in the id space of the same name when other rows point to it), "text" is kept unless the
   * destination already has it (then a new UUID).
   */
  id?: "serial" | "text";
  /** columns holding an id of another table (null stays null) */
  refs?: Record<string, IdSpace>;
  /** text columns holding a JSON array of ids of another table */
  jsonRefs?: Record<string, IdSpace>;
  /** columns not copied: kept by the destination's triggers, or not portable */
  derived?: readonly string[];
  /**
   * A child table whose tenant_id was added later (0011, nullable there): its rows are read
   * through the parent, so a row the backfill missed still moves with it.
   */
  parent?: { column: string; table: "subscribers" | "campaigns" };
}

/** Every table of a tenant's rows, parents before children. */
export const MOVED_TABLES: readonly MovedTable[] = [
  { name: "lists", id: "serial" },
  { name: "subscribers", id: "serial" },
  { name: "subscriber_fields" },
  { name: "tags" },
  { name: "segments", id: "serial" },
  { name: "images" },
  // author_id: re-attached to the destination's staff user with the same email, else null with
  // the author's display name kept in author_name (0030).
  { name: "newsletters", id: "text", refs: { author_id: "users", campaign_id: "campaigns" } },
  { name: "newsletter_slugs", refs: { newsletter_id: "newsletters" } },
  { name: "newsletter_tags", refs: { newsletter_id: "newsletters" } },
  { name: "newsletter_social", refs: { newsletter_id: "newsletters" } },
  { name: "comments", id: "serial", refs: { newsletter_id: "newsletters" } },
  { name: "contact_messages", id: "serial" },
  {
    name: "subscriptions",
    refs: { subscriber_id: "subscribers", list_id: "lists" },
    parent: { column: "subscriber_id", table: "subscribers" },
  },
  {
    name: "preference_changes",
    refs: { subscriber_id: "subscribers" },
    parent: { column: "subscriber_id", table: "subscribers" },
  },
  { name: "unsubscribe_feedback", id: "serial", refs: { subscriber_id: "subscribers" } },
  // subscriber_status is a copy of the subscriber's status, written by a trigger (0027).
  {
    name: "subscriber_values",
    refs: { subscriber_id: "subscribers" },
    derived: ["subscriber_status"],
  },
  { name: "subscriber_events", id: "serial", refs: { subscriber_id: "subscribers" } },
  { name: "subscriber_imports", id: "serial" },
  // Ghost and Substack imports (0030); their image map's /uploads/ URLs follow an --as rename.
  { name: "archive_imports", id: "serial" },
  {
    name: "campaigns",
    id: "text",
    refs: { newsletter_id: "newsletters", sequence_list_id: "lists", unopened_of: "campaigns" },
    jsonRefs: { list_ids: "lists", segment_ids: "segments" },
  },
  {
    name: "deliveries",
    id: "serial",
    refs: { campaign_id: "campaigns", subscriber_id: "subscribers" },
    parent: { column: "campaign_id", table: "campaigns" },
  },
  {
    name: "campaign_events",
    id: "serial",
    refs: { campaign_id: "campaigns", delivery_id: "deliveries" },
    parent: { column: "campaign_id", table: "campaigns" },
  },
  { name: "mail_log", id: "serial" },
  { name: "tenant_changes", id: "serial" },
  { name: "dkim_keys", id: "serial" },
  { name: "webhook_secrets" },
  { name: "webhook_events" },
  // The last sender domain check: seen from the source's relay; the next check redoes it here.
  { name: "domain_checks" },
  // LinkedIn (0037): the connection's tokens are re-sealed for the new row; posts follow their newsletter.
  { name: "linkedin_connections" },
  { name: "linkedin_posts", id: "serial", refs: { newsletter_id: "newsletters" } },
  { name: "newsletter_view_sources", id: "serial", refs: { newsletter_id: "newsletters" } },
  { name: "tenant_voice_notes" },
  { name: "tenant_limits" },
  // Written by triggers as subscribers and subscriptions arrive; the import replaces what they
  // wrote with the archive's rows (list 0 is "all lists", not a list id).
  { name: "audience_counts", id: "serial", refs: { list_id: "lists" } },
  // The search index: its words are not portable (FTS5 on SQLite, tsvectors on PostgreSQL), so
  // the archive keeps the rows for the record and the import indexes each published newsletter.
  {
    name: "newsletter_search",
    refs: { newsletter_id: "newsletters" },
    derived: ["title_words", "all_words"],
  },
];

/**
 * Tables that belong to the install, not to a tenant: never in an archive (`tenants` is the
 * archive's own row). Typed over every table, so a new table does not compile until it is placed
 * here or in MOVED_TABLES.
 */
export const INSTALL_TABLES: Readonly<Record<TableName, string | null>> = {
  tenants: "the tenant's own row: tables/tenants.json",
  contact_messages: null,
  newsletters: null,
  newsletter_slugs: null,
  tags: null,
  newsletter_tags: null,
  newsletter_search: null,
  newsletter_social: null,
  comments: null,
  lists: null,
  subscribers: null,
  subscriptions: null,
  subscriber_fields: null,
  subscriber_values: null,
  subscriber_events: null,
  segments: null,
  audience_counts: null,
  subscriber_imports: null,
  archive_imports: null,
  preference_changes: null,
  unsubscribe_feedback: null,
  mail_log: null,
  campaigns: null,
  deliveries: null,
  campaign_events: null,
  tenant_changes: null,
  images: null,
  dkim_keys: null,
  webhook_secrets: null,
  webhook_events: null,
  linkedin_connections: null,
  linkedin_posts: null,
  newsletter_view_sources: null,
  tenant_voice_notes: null,
  tenant_limits: null,
  users: "staff accounts and their password hashes; bylines travel as authors.json",
  sessions: "sign-ins to this install",
  staff_tokens: "password-reset and invitation links of this install",
  api_tokens: "this install's API tokens",
  settings: "this install's settings",
  // The bytes travel as files/… in the archive, written through the destination's store.
  stored_files: "file bytes: carried as the archive's files/ entries",
  domain_checks: null,
  // Work queued on this install (its imports, checks): the destination queues its own.
  jobs: "this install's background jobs: not carried, the destination runs its own",
};

/** The tenant's sealed secrets (server/secret-box.ts): re-sealed for their new row, or left out. */
export const SECRET_COLUMNS: Readonly<Partial<Record<TableName, string>>> = {
  dkim_keys: "private_key",
  webhook_secrets: "secret",
  linkedin_connections: "tokens",
};

/** Columns named like ids that point to no row of this install: kept as they are. */
export const NOT_REFERENCES: Readonly<Record<string, string>> = {
  "tenants.mail_list_group_id": "MailerLite's group id",
  "newsletters.mailerlite_campaign_id": "MailerLite's campaign id",
  "mail_log.message_id": "the SMTP Message-ID",
  "deliveries.message_id": "the SMTP Message-ID",
  "webhook_events.event_id": "the provider's event id",
};
