import type { Generated, Insertable, Selectable } from "kysely";
import type { CAMPAIGN_STATUSES } from "../../shared/schemas/campaign";

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

export interface UsersTable {
  id: string;
  email: string;
  password_hash: string;
  role: string;
  /** JSON: product key → true */
  products: string;
  created_at: string;
  updated_at: string;
  /** TOTP secret (base32): set when enrolment starts, in use once totp_enabled_at is set */
  totp_secret: string | null;
  totp_enabled_at: string | null;
  /** the last TOTP time step accepted: a code works once */
  totp_last_step: number | null;
  /** JSON array of the sha-256 hashes of the unused recovery codes */
  recovery_codes: string | null;
  /** the name newsletters this member writes are signed with (their byline) */
  display_name: string | null;
}

/** Uploaded files' bytes, when the database is where files live (PostgreSQL without S3). */
export interface StoredFilesTable {
  key: string;
  tenant_id: string;
  content_type: string;
  bytes: Uint8Array;
  created_at: string;
}

/** Every slug a newsletter has had: old links answer 301 to the current one. */
export interface NewsletterSlugsTable {
  tenant_id: string;
  slug: string;
  newsletter_id: string;
  created_at: string;
}

export type StaffTokenPurpose = "reset" | "invite";

/** Emailed single-use links for staff: password resets and invitations (only their hashes). */
export interface StaffTokensTable {
  id: string;
  purpose: StaffTokenPurpose;
  token_hash: string;
  user_id: string | null;
  email: string;
  role: string | null;
  products: string | null;
  created_by: string | null;
  created_at: string;
  expires_at: string;
  used_at: string | null;
  revoked_at: string | null;
}

export interface SessionsTable {
  /** sha-256 of the cookie's token: a stolen database does not yield usable cookies */
  token_hash: string;
  user_id: string;
  created_at: string;
  expires_at: string;
}

export interface SettingsTable {
  key: string;
  value: string;
  updated_at: string;
}

export type NewsletterStatus = "draft" | "published";

export interface NewslettersTable {
  id: string;
  tenant_id: string;
  title: string;
  excerpt: string;
  content: string;
  read_time: number;
  status: NewsletterStatus;
  views: Generated<number>;
  comments: Generated<number>;
  /** rises when the public page changes without the newsletter changing (comments) */
  render_version: Generated<number>;
  author_id: string | null;
  created_at: string;
  updated_at: string;
  published_at: string | null;
  sent_at: string | null;
  campaign_id: string | null;
  send_status: string | null;
  mailerlite_campaign_id: string | null;
  mailerlite_campaign_status: string | null;
  /** the current readable URL part, unique per tenant (older ones: newsletter_slugs) */
  slug: string | null;
  /** an uploaded image (/uploads/… URL) shown above the article and on share cards */
  cover_image: string | null;
  cover_alt: string | null;
  /** when a draft publishes itself (UTC ISO); null when not scheduled */
  scheduled_at: string | null;
  /** 1: the scheduled publication also sends the newsletter as a campaign */
  scheduled_send: Generated<number>;
  /** signs the draft's shareable preview links; a new key revokes the old links */
  preview_key: string | null;
  /** an imported post's byline when no staff member's applies (Ghost's author, say) */
  author_name: string | null;
}

/** A tenant's tags; `slug` is the URL part of /newsletter/tag/{slug}. */
export interface TagsTable {
  tenant_id: string;
  slug: string;
  name: string;
  created_at: string;
}

/**
 * A row per published newsletter, for search (search.ts); `id` grows with the publication time.
 * The words are in the FTS5 table newsletter_search_fts (SQLite) or in tsvector columns of this
 * table (PostgreSQL), both written and read in raw SQL only.
 */
export interface NewsletterSearchTable {
  id: number;
  tenant_id: string;
  newsletter_id: string;
  published_at: string;
}

/** A newsletter's tags, in the order the writer gave them. */
export interface NewsletterTagsTable {
  tenant_id: string;
  newsletter_id: string;
  tag_slug: string;
  position: number;
}

/** A newsletter's social pack texts (issue 36; server/social/pack.ts). */
export interface NewsletterSocialTable {
  tenant_id: string;
  newsletter_id: string;
  linkedin_text: string;
  short_text: string;
  /** 1 once staff saved their own words; 0 while the texts follow the newsletter */
  edited: Generated<number>;
  updated_at: string;
}

export interface CommentsTable {
  id: Generated<number>;
  newsletter_id: string;
  tenant_id: string;
  text: string;
  author: Generated<string>;
  /** 0 or 1: staff hid it from the public page */
  hidden: Generated<number>;
  created_at: string;
}

export interface ListsTable {
  id: Generated<number>;
  tenant_id: string;
  key: string;
  name: string;
  description: string;
  created_at: string;
  /** public: offered on sign-up and in the preference centre; private: staff only (0023) */
  visibility: Generated<ListVisibility>;
  /** kept with its subscribers, offered nowhere */
  archived_at: Generated<string | null>;
  /** a tombstone: its subscriptions are gone, its name stays for campaign reports */
  deleted_at: Generated<string | null>;
}

export type ListVisibility = "public" | "private";

/** bounced and complained: suppressed (issue 12) — never mailed until they confirm again */
export type SubscriberStatus = "active" | "unsubscribed" | "unconfirmed" | "bounced" | "complained";

export interface SubscribersTable {
  id: Generated<number>;
  tenant_id: string;
  email: string;
  name: string;
  status: SubscriberStatus;
  subscribed_at: string | null;
  unsubscribed_at: string | null;
  created_at: string;
  updated_at: string;
  /** erased (GDPR Art. 17): the row stays anonymous so campaign counts hold; never shown (0024) */
  erased_at: Generated<string | null>;
}

export type SubscriberFieldType = "text" | "number" | "date" | "choice";

/** A tenant's custom subscriber field (0024). */
export interface SubscriberFieldsTable {
  tenant_id: string;
  key: string;
  label: string;
  type: SubscriberFieldType;
  /** JSON array of the choices of a "choice" field */
  choices: Generated<string>;
  position: number;
  created_at: string;
}

/** One subscriber's value of one custom field, as text (numbers and dates normalised). */
export interface SubscriberValuesTable {
  tenant_id: string;
  subscriber_id: number;
  field_key: string;
  value: string;
  /** the subscriber's status, null once erased: kept by triggers (0027), never written here */
  subscriber_status: Generated<SubscriberStatus | null>;
}

/** A subscriber's timeline (server/subscribers/events.ts names the kinds). */
export interface SubscriberEventsTable {
  id: Generated<number>;
  tenant_id: string;
  subscriber_id: number;
  kind: string;
  /** JSON object: what the event says (lists, the consent evidence, the changes, the reason) */
  detail: Generated<string>;
  created_at: string;
}

export interface SubscriptionsTable {
  /** the parent's tenant, kept here so the tenant guard can check this table (0011) */
  tenant_id: string;
  subscriber_id: number;
  list_id: number;
  created_at: string;
}

export interface PreferenceChangesTable {
  /** the parent's tenant, kept here so the tenant guard can check this table (0011) */
  tenant_id: string;
  subscriber_id: number;
  token_hash: string;
  /** JSON array of list keys to be on after the change */
  active_lists: string;
  /** JSON array of list keys to leave */
  inactive_lists: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface UnsubscribeFeedbackTable {
  id: Generated<number>;
  tenant_id: string;
  subscriber_id: number | null;
  reason: string;
  details: string | null;
  /** the unsubscribe this answers (one answer each); null on rows from before issue 14 */
  unsubscribed_at: string | null;
  created_at: string;
}

export type MailStatus = "pending" | "sent" | "outbox" | "failed";

export interface MailLogTable {
  id: Generated<number>;
  tenant_id: string | null;
  kind: string;
  to_address: string;
  from_address: string;
  subject: string;
  html: string;
  text: string;
  /** JSON object of extra headers (List-Unsubscribe…) */
  headers: string;
  status: MailStatus;
  attempts: Generated<number>;
  error: string | null;
  message_id: string | null;
  created_at: string;
  sent_at: string | null;
  next_attempt_at: string | null;
}

/** draft | scheduled | sending | sent | paused | failed | cancelled (app/schemas/campaign.ts) */
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

export interface CampaignsTable {
  id: string;
  tenant_id: string;
  newsletter_id: string | null;
  name: string;
  subject: string;
  from_name: string;
  from_email: string;
  /** the cleaned content (SPEC §5), before the email wrapper */
  content: string;
  /** JSON array of list ids */
  list_ids: string;
  track_opens: number;
  track_clicks: number;
  status: CampaignStatus;
  scheduled_at: string | null;
  started_at: string | null;
  finished_at: string | null;
  /** JSON array of the URLs a tracked click may go to */
  links: Generated<string>;
  /** recipients, counted when the delivery rows were written */
  total: Generated<number>;
  created_by: string | null;
  created_at: string;
  updated_at: string;
  /** Reply-To of this campaign; null: the tenant's (email settings), else none */
  reply_to: Generated<string | null>;
  /** JSON array of segment ids: with list_ids, the audience (0025) */
  segment_ids: Generated<string>;
  /** a step of this list's welcome sequence (0026): sent to each who joins, after its delay */
  sequence_list_id: Generated<number | null>;
  sequence_position: Generated<number | null>;
  sequence_delay_days: Generated<number | null>;
  /** "Send to those who did not open" (0032): the campaign whose unopened recipients get this one */
  unopened_of: Generated<string | null>;
  /** A/B subject lines (0038): JSON AbTest (server/campaigns/ab-test.ts); null: one subject */
  ab_test: Generated<string | null>;
  /** when the test's winner is chosen (set when the campaign starts) */
  ab_decide_at: Generated<string | null>;
  /** the winning subject's index, set once */
  ab_winner: Generated<number | null>;
  ab_decided_at: Generated<string | null>;
  /** JSON: the figures the winner was chosen on, and by whom */
  ab_decision: Generated<string | null>;
}

/** A saved filter of a tenant's audience (server/subscribers/segments.ts reads its rule). */
export interface SegmentsTable {
  id: Generated<number>;
  tenant_id: string;
  name: string;
  /** JSON: the SegmentRule */
  rule: string;
  created_at: string;
  updated_at: string;
}

/**
 * +1/−1 rows appended by triggers on subscribers and subscriptions (0027): summed per key, the
 * number of a tenant's subscribers (not erased) in a status, in all (list_id 0) or on a list.
 */
export interface AudienceCountsTable {
  id: Generated<number>;
  tenant_id: string;
  list_id: number;
  status: string;
  n: number;
}

/** A CSV import, written in the background in chunks (server/subscribers/imports.ts). */
export interface SubscriberImportsTable {
  id: Generated<number>;
  tenant_id: string;
  file_name: string;
  csv: string;
  status: "queued" | "running" | "done" | "failed";
  total_rows: Generated<number>;
  done_rows: Generated<number>;
  done_through_line: Generated<number>;
  created: Generated<number>;
  updated: Generated<number>;
  kept_unsubscribed: Generated<number>;
  refused_count: Generated<number>;
  /** JSON: the first refused rows */
  refused: Generated<string>;
  error: string | null;
  created_by: string;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  claimed_by: string | null;
  heartbeat_at: string | null;
  /** where the people come from (0029) */
  source: Generated<ImportSource>;
  /** a MailerLite move: the cursor of the next page to write; null: from the first page */
  cursor: string | null;
}

/** A Herald CSV, a Ghost members CSV, a Substack email list, or a MailerLite account. */
export type ImportSource = "herald" | "ghost" | "substack" | "mailerlite";

/** Newsletters coming from Ghost or Substack (server/newsletters/archive-imports.ts). */
export interface ArchiveImportsTable {
  id: Generated<number>;
  tenant_id: string;
  source: "ghost" | "substack";
  file_name: string;
  /** JSON: the posts to write; emptied once the import ends */
  posts: string;
  status: "queued" | "running" | "done" | "failed";
  total_posts: Generated<number>;
  done_posts: Generated<number>;
  imported: Generated<number>;
  skipped_count: Generated<number>;
  /** JSON: the first skipped items and their reasons */
  skipped: Generated<string>;
  /** JSON: images that could not be copied */
  warnings: Generated<string>;
  /** JSON: image URL → its /uploads/… copy */
  images: Generated<string>;
  error: string | null;
  created_by: string;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  claimed_by: string | null;
  heartbeat_at: string | null;
}

export type DeliveryStatus = "pending" | "sending" | "sent" | "failed" | "cancelled";

export interface DeliveriesTable {
  /** the parent's tenant, kept here so the tenant guard can check this table (0011) */
  tenant_id: string;
  id: Generated<number>;
  campaign_id: string;
  subscriber_id: number;
  email: string;
  status: DeliveryStatus;
  attempts: Generated<number>;
  next_attempt_at: string;
  claimed_by: string | null;
  claimed_at: string | null;
  message_id: string | null;
  error: string | null;
  sent_at: string | null;
  /** a hard bounce: a 5xx at send time or a DSN (0009) */
  bounced_at: string | null;
  /** an abuse complaint (ARF) */
  complained_at: string | null;
  /** what the bounce or complaint said */
  feedback: string | null;
  /** an A/B test's subject this delivery carries (0038); null: the campaign's one subject */
  ab_variant: Generated<number | null>;
  /** "test": the test share; "remainder": sent the winner after the decision */
  ab_phase: Generated<"test" | "remainder" | null>;
}

export type CampaignEventKind = "open" | "click" | "unsubscribe" | "bounce" | "complaint";

export interface CampaignEventsTable {
  /** the parent's tenant, kept here so the tenant guard can check this table (0011) */
  tenant_id: string;
  id: Generated<number>;
  campaign_id: string;
  delivery_id: number;
  kind: CampaignEventKind;
  url: string | null;
  created_at: string;
  /** 1: a machine's open (privacy proxy, scanner), reported apart from people's (0025) */
  machine: Generated<number>;
}

export interface TenantChangesTable {
  id: Generated<number>;
  tenant_id: string;
  action: "created" | "updated" | "deleted";
  actor: string;
  /** JSON array of { field, before, after } */
  changes: string;
  created_at: string;
}

export interface ApiTokensTable {
  id: string;
  name: string;
  token_hash: string;
  user_id: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  /** JSON array of TOKEN_SCOPES (0013) */
  scopes: string;
  /** null: never */
  expires_at: string | null;
}

export interface ImagesTable {
  /** store key of the email-safe file: {tenant}/{32 hex}.{jpg|png|gif} */
  key: string;
  tenant_id: string;
  content_type: string;
  width: number;
  height: number;
  bytes: number;
  /** JSON array of ImageVariant */
  variants: string;
  created_at: string;
}

/** A tenant's DKIM key (0008_dkim): the private key never leaves the server. */
/** A tenant's signing secret for a provider's webhook (0012): written, never shown again. */
export interface WebhookSecretsTable {
  tenant_id: string;
  provider: "mailerlite";
  secret: string;
  created_by: string;
  created_at: string;
}

/** The webhook events a tenant has applied, by the provider's id: a replay is ignored (0012). */
export interface WebhookEventsTable {
  tenant_id: string;
  provider: "mailerlite";
  event_id: string;
  received_at: string;
}

/** A tenant's last sender domain check (0035; server/tenants/domain-checks.ts). */
export interface DomainChecksTable {
  tenant_id: string;
  /** JSON: DomainHealth (server/tenants/domain-health.ts) */
  result: string;
  checked_at: string;
  /** who asked: "staff" (the tenant page's button) or "daily" */
  trigger: "staff" | "daily";
  /** when the daily check is due next (claimed by moving it on) */
  next_check_at: string;
}

export interface DkimKeysTable {
  id: Generated<number>;
  tenant_id: string;
  /** active: signs the tenant's mail; pending: a rotation's new key, waiting for its DNS record */
  status: "active" | "pending";
  selector: string;
  domain: string;
  algorithm: "rsa" | "ed25519";
  /** base64 DER SubjectPublicKeyInfo: the p= of the TXT record */
  public_key: string;
  /** PKCS#8 PEM */
  private_key: string;
  created_by: string;
  created_at: string;
}

/** The LinkedIn member or organization page a tenant posts as (0037, server/linkedin/connections.ts). */
export interface LinkedInConnectionsTable {
  tenant_id: string;
  author_kind: "member" | "organization";
  /** urn:li:person:… or urn:li:organization:… */
  author_urn: string;
  author_name: string;
  /** the scopes LinkedIn granted, space-separated */
  scope: string;
  /** sealed JSON {access, refresh}: the OAuth tokens (server/secret-box.ts) */
  tokens: string;
  access_expires_at: string;
  /** null: LinkedIn gave no refresh token (the member reconnects before access_expires_at) */
  refresh_expires_at: string | null;
  refreshed_at: string | null;
  connected_by: string;
  connected_at: string;
  /** what LinkedIn said when it last refused the tokens: shown with the "Reconnect" prompt */
  problem: string | null;
}

export type LinkedInPostState = "scheduled" | "uploading" | "posted" | "failed";

/** A newsletter's LinkedIn post and where it is (0037, server/linkedin/posts.ts). */
export interface LinkedInPostsTable {
  id: Generated<number>;
  tenant_id: string;
  newsletter_id: string;
  state: LinkedInPostState;
  /** when it goes (or is tried again) */
  due_at: string;
  attempts: Generated<number>;
  /** LinkedIn's image, recorded as soon as initializeUpload answers */
  image_urn: string | null;
  /** set before the Posts API is called: after a crash the post may exist, so LinkedIn is asked first */
  post_started_at: string | null;
  post_urn: string | null;
  posted_at: string | null;
  /** LinkedIn's refusal in plain words */
  error: string | null;
  claimed_by: string | null;
  claimed_at: string | null;
  requested_by: string;
  created_at: string;
  updated_at: string;
}

export interface Database {
  tenants: TenantsTable;
  contact_messages: ContactMessagesTable;
  users: UsersTable;
  sessions: SessionsTable;
  staff_tokens: StaffTokensTable;
  stored_files: StoredFilesTable;
  settings: SettingsTable;
  newsletters: NewslettersTable;
  newsletter_slugs: NewsletterSlugsTable;
  tags: TagsTable;
  newsletter_tags: NewsletterTagsTable;
  newsletter_search: NewsletterSearchTable;
  newsletter_social: NewsletterSocialTable;
  comments: CommentsTable;
  lists: ListsTable;
  subscribers: SubscribersTable;
  subscriptions: SubscriptionsTable;
  subscriber_fields: SubscriberFieldsTable;
  subscriber_values: SubscriberValuesTable;
  subscriber_events: SubscriberEventsTable;
  segments: SegmentsTable;
  audience_counts: AudienceCountsTable;
  subscriber_imports: SubscriberImportsTable;
  archive_imports: ArchiveImportsTable;
  preference_changes: PreferenceChangesTable;
  unsubscribe_feedback: UnsubscribeFeedbackTable;
  mail_log: MailLogTable;
  campaigns: CampaignsTable;
  deliveries: DeliveriesTable;
  campaign_events: CampaignEventsTable;
  tenant_changes: TenantChangesTable;
  api_tokens: ApiTokensTable;
  images: ImagesTable;
  dkim_keys: DkimKeysTable;
  webhook_secrets: WebhookSecretsTable;
  webhook_events: WebhookEventsTable;
  domain_checks: DomainChecksTable;
  linkedin_connections: LinkedInConnectionsTable;
  linkedin_posts: LinkedInPostsTable;
  newsletter_view_sources: NewsletterViewSourcesTable;
  tenant_voice_notes: TenantVoiceNotesTable;
  tenant_limits: TenantLimitsTable;
  jobs: JobsTable;
}

/** A newsletter's views of one day from one source (decision 047): no reader is named. */
export interface NewsletterViewSourcesTable {
  id: Generated<number>;
  tenant_id: string;
  newsletter_id: string;
  /** YYYY-MM-DD, UTC */
  day: string;
  source: "email" | "linkedin" | "other" | "direct" | "internal";
  /** the referring site's host for "other"; '' otherwise */
  host: Generated<string>;
  views: Generated<number>;
}

/** The tenant's voice notes for LLM drafts (decision 047). */
export interface TenantVoiceNotesTable {
  tenant_id: string;
  notes: string;
  updated_by: string;
  updated_at: string;
}

/**
 * A tenant's own limits (0041, decision 057): null is the install's default, -1 unlimited.
 * bigint: PostgreSQL answers them as text, so read them with Number().
 */
export interface TenantLimitsTable {
  tenant_id: string;
  subscribers: number | string | null;
  campaign_mails_per_month: number | string | null;
  test_sends_per_day: number | string | null;
  storage_bytes: number | string | null;
  imports_at_once: number | string | null;
  api_requests_per_minute: number | string | null;
  updated_by: string;
  updated_at: string;
}

/** One background job (server/jobs/, decision 056): claimed by a runner under a lease. */
export interface JobsTable {
  id: Generated<number>;
  /** null: the install's own work (the purge, backups) */
  tenant_id: string | null;
  kind: string;
  /** JSON, checked by the job's zod schema when run */
  payload: string;
  status: "waiting" | "running" | "done" | "failed";
  /** a recurring job's name: one row each */
  unique_key: string | null;
  run_at: string;
  attempts: Generated<number>;
  max_attempts: number;
  claimed_by: string | null;
  lease_until: string | null;
  /** JSON: what the job last reported */
  progress: string | null;
  last_error: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export type JobRow = Selectable<JobsTable>;

export type CampaignRow = Selectable<CampaignsTable>;
export type DeliveryRow = Selectable<DeliveriesTable>;

export type UserRow = Selectable<UsersTable>;
export type NewsletterRow = Selectable<NewslettersTable>;
export type CommentRow = Selectable<CommentsTable>;

export type TenantRow = Selectable<TenantsTable>;
export type NewContactMessage = Insertable<ContactMessagesTable>;
export type ListRow = Selectable<ListsTable>;
export type SubscriberRow = Selectable<SubscribersTable>;
export type MailLogRow = Selectable<MailLogTable>;
