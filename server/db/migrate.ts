import { type Migration, type MigrationProvider, Migrator } from "kysely";
import type { Db } from "./index";
import * as m0001 from "./migrations/0001_initial";
import * as m0002 from "./migrations/0002_staff_and_newsletters";
import * as m0003 from "./migrations/0003_subscriptions_and_mail";
import * as m0004 from "./migrations/0004_newsletter_render_version";
import * as m0005 from "./migrations/0005_campaigns";
import * as m0006 from "./migrations/0006_tenant_admin";
import * as m0007 from "./migrations/0007_images";
import * as m0008 from "./migrations/0008_dkim";
import * as m0009 from "./migrations/0009_bounces";
import * as m0010 from "./migrations/0010_reply_to";
import * as m0011 from "./migrations/0011_child_tenant_ids";
import * as m0012 from "./migrations/0012_webhooks";
import * as m0013 from "./migrations/0013_api_token_scopes";
import * as m0016 from "./migrations/0016_feedback_once";
import * as m0017 from "./migrations/0017_staff_accounts";
import * as m0018 from "./migrations/0018_stored_files";
import * as m0019 from "./migrations/0019_display_names";
import * as m0020 from "./migrations/0020_newsletter_slugs";
import * as m0021 from "./migrations/0021_newsletter_publishing";
import * as m0022 from "./migrations/0022_newsletter_search";
import * as m0023 from "./migrations/0023_list_admin";
import * as m0024 from "./migrations/0024_subscriber_profiles";
import * as m0025 from "./migrations/0025_segments";
import * as m0026 from "./migrations/0026_welcome_sequences";
import * as m0027 from "./migrations/0027_audience_at_scale";
import * as m0028 from "./migrations/0028_staff_newsletter_list";
import * as m0029 from "./migrations/0029_audience_import_sources";
import * as m0030 from "./migrations/0030_archive_imports";
import * as m0031 from "./migrations/0031_tenant_not_null";
import * as m0032 from "./migrations/0032_resend_unopened";
import * as m0033 from "./migrations/0033_one_sender_name";
import * as m0034 from "./migrations/0034_social_pack";
import * as m0035 from "./migrations/0035_domain_checks";
import * as m0036 from "./migrations/0036_dkim_both_ways";
import * as m0037 from "./migrations/0037_linkedin";
import * as m0038 from "./migrations/0038_ab_subjects";
import * as m0039 from "./migrations/0039_sources_and_voice";
import * as m0040 from "./migrations/0040_published_order_index";
import * as m0041 from "./migrations/0041_tenant_limits";
import * as m0042 from "./migrations/0042_jobs";
import { crossTenant } from "./tenant-guard";

// Migrations are imported, not read from disk, so they work in the bundled server and under tsx alike.
const migrations: Record<string, Migration> = {
  "0001_initial": m0001,
  "0002_staff_and_newsletters": m0002,
  "0003_subscriptions_and_mail": m0003,
  "0004_newsletter_render_version": m0004,
  "0005_campaigns": m0005,
  "0006_tenant_admin": m0006,
  "0007_images": m0007,
  "0008_dkim": m0008,
  "0009_bounces": m0009,
  "0010_reply_to": m0010,
  "0011_child_tenant_ids": m0011,
  "0012_webhooks": m0012,
  "0013_api_token_scopes": m0013,
  "0016_feedback_once": m0016,
  "0017_staff_accounts": m0017,
  "0018_stored_files": m0018,
  "0019_display_names": m0019,
  "0020_newsletter_slugs": m0020,
  "0021_newsletter_publishing": m0021,
  "0022_newsletter_search": m0022,
  "0023_list_admin": m0023,
  "0024_subscriber_profiles": m0024,
  "0025_segments": m0025,
  "0026_welcome_sequences": m0026,
  "0027_audience_at_scale": m0027,
  "0028_staff_newsletter_list": m0028,
  "0029_audience_import_sources": m0029,
  "0030_archive_imports": m0030,
  "0031_tenant_not_null": m0031,
  "0032_resend_unopened": m0032,
  "0033_one_sender_name": m0033,
  "0034_social_pack": m0034,
  "0035_domain_checks": m0035,
  "0036_dkim_both_ways": m0036,
  "0037_linkedin": m0037,
  "0038_ab_subjects": m0038,
  "0039_sources_and_voice": m0039,
  "0040_published_order_index": m0040,
  "0041_tenant_limits": m0041,
  "0042_jobs": m0042,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

/** Herald's migrator on `db` (tests use it to stop at a given migration). */
export function migratorFor(db: Db): Migrator {
  // Migrations written in parallel land out of order (0008 after 0009 on a database that already has
  // 0009): each pending one still runs, in name order, instead of the whole migration failing.
  // Migrations work on every tenant's rows at once (and in raw SQL): the tenant guard is off.
  return new Migrator({ db: crossTenant(db), provider, allowUnorderedMigrations: true });
}

/** Brings the schema up to date; throws with the failing migration's error. */
export async function migrateToLatest(db: Db): Promise<string[]> {
  const { error, results } = await migratorFor(db).migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
}
