import { isValidEmail } from "../../shared/schemas/email";
import type { FieldType } from "../../shared/schemas/subscriber-fields";
import type { Db } from "../db";
import type { SubscriberStatus } from "../db/schema";
import {
  createField,
  FieldError,
  listFields,
  readFieldValue,
  type SubscriberField,
} from "../subscribers/fields";
import {
  ImportFileError,
  type ImportRow,
  NAME_MAX_LENGTH,
  type RefusedRow,
} from "../subscribers/import-rows";
import { createList, ListError, listTenantLists, type MailingList } from "../subscribers/lists";
import { normaliseSubscriberEmail } from "../subscribers/subscribers";
import { saveTenantSettings } from "../tenants/admin";
import type { TenantConfig } from "../tenants/config";
import { getTenantView, settingsOf } from "../tenants/views";
import { mailerLiteFor, mailerLiteGroupIds, providerNameFor } from "./choice";
import type { MailerLiteAccountSubscriber, MailerLiteProvider } from "./mailerlite";
import { ProviderError } from "./types";

/*
 * A tenant on MailerLite moves to Herald's own sending (issue 33, target 3). Every subscriber in
 * the account comes across, page by page through MailerLite's cursor, with their status, their
 * fields and their groups as lists; server/subscribers/imports.ts writes each page as a chunk of
 * an import job, the cursor of the next page committed with it, so a move MailerLite interrupts
 * goes on from there. Only when every subscriber came across does the tenant's provider change
 * to builtin, through the tenant manager's own save (audited in tenant_changes).
 */

/** MailerLite's statuses as Herald's: junk (a spam complaint) is Herald's complained. */
const STATUS_FROM_MAILERLITE: Record<string, SubscriberStatus> = {
  active: "active",
  unsubscribed: "unsubscribed",
  unconfirmed: "unconfirmed",
  bounced: "bounced",
  junk: "complained",
};

/** MailerLite's own name fields: they make Herald's name, not custom fields. */
const NAME_FIELDS = new Set(["name", "last_name"]);

const FIELD_TYPE_FROM_MAILERLITE: Record<string, FieldType> = {
  text: "text",
  number: "number",
  date: "date",
};

/** The MailerLite remote of a tenant that may move; why not, as an ImportFileError. */
export function mailerLiteToLeave(tenant: TenantConfig): MailerLiteProvider {
  if (providerNameFor(tenant) !== "mailerlite") {
    throw new ImportFileError(
      `${tenant.name} already sends with Herald: there is no MailerLite account to move from.`,
    );
  }
  try {
    return mailerLiteFor(tenant);
  } catch (error) {
    if (error instanceof ProviderError) throw new ImportFileError(error.message);
    throw error;
  }
}

/** MailerLite field key → the Herald field its values go to; missing fields are created. */
export async function heraldFieldsFor(
  db: Db,
  tenantId: string,
  provider: MailerLiteProvider,
): Promise<Map<string, SubscriberField>> {
  const theirs = (await provider.accountFields()).filter((field) => !NAME_FIELDS.has(field.key));
  const ours = await listFields(db, tenantId);
  const map = new Map<string, SubscriberField>();
  for (const field of theirs) {
    const label = field.name.trim().slice(0, 60) || field.key;
    let found = ours.find((each) => each.label.toLowerCase() === label.toLowerCase());
    if (!found) {
      try {
        found = await createField(db, tenantId, {
          label,
          type: FIELD_TYPE_FROM_MAILERLITE[field.type] ?? "text",
          choices: [],
        });
        ours.push(found);
      } catch (error) {
        // At the tenant's limit of fields: this field's values stay in MailerLite's export.
        if (error instanceof FieldError) continue;
        throw error;
      }
    }
    map.set(field.key, found);
  }
  return map;
}

/** The lists MailerLite groups are: the tenant's mapped list, else the list of the group's name. */
async function listsForGroups(
  db: Db,
  tenant: TenantConfig,
  subscribers: readonly MailerLiteAccountSubscriber[],
): Promise<Map<string, MailingList>> {
  const lists = await listTenantLists(db, tenant);
  const byGroup = new Map<string, MailingList>();
  for (const [key, groupId] of Object.entries(mailerLiteGroupIds(tenant))) {
    const list = lists.find((each) => each.key === key);
    if (list) byGroup.set(groupId, list);
  }
  for (const group of subscribers.flatMap((each) => each.groups)) {
    if (byGroup.has(group.id)) continue;
    const name = group.name.trim().slice(0, 100) || `MailerLite group ${group.id}`;
    let list = lists.find((each) => each.name.toLowerCase() === name.toLowerCase());
    if (!list) {
      try {
        list = await createList(db, tenant, {
          name,
          description: "Imported from MailerLite.",
          visibility: "private",
        });
      } catch (error) {
        if (!(error instanceof ListError)) throw error;
        list = (await listTenantLists(db, tenant)).find(
          (each) => each.name.toLowerCase() === name.toLowerCase(),
        );
        if (!list) throw error;
      }
      lists.push(list);
    }
    byGroup.set(group.id, list);
  }
  return byGroup;
}

/** A MailerLite date ("2024-01-05 10:00:00" or ISO) as ISO; null when it is none. */
function isoOf(text: string | null): string | null {
  if (!text) return null;
  const date = new Date(/^\d{4}-\d\d-\d\d \d/.test(text) ? `${text.replace(" ", "T")}Z` : text);
  return Number.isNaN(date.getTime()) || date.getTime() > Date.now() ? null : date.toISOString();
}

/**
 * One page of the account as import rows; `firstLine` numbers them (the report's "Row" is their
 * place in the account). An address Herald cannot send to is refused with the reason.
 */
export async function readMailerLitePage(
  db: Db,
  tenant: TenantConfig,
  provider: MailerLiteProvider,
  fields: Map<string, SubscriberField>,
  cursor: string | null,
  firstLine: number,
): Promise<{ rows: ImportRow[]; refused: RefusedRow[]; next: string | null }> {
  const page = await provider.subscriberPage(cursor);
  const lists = await listsForGroups(db, tenant, page.subscribers);
  const rows: ImportRow[] = [];
  const refused: RefusedRow[] = [];
  const seen = new Set<string>();
  for (const [index, subscriber] of page.subscribers.entries()) {
    const line = firstLine + index;
    const email = subscriber.email.trim();
    if (!isValidEmail(email)) {
      refused.push({ line, email: subscriber.email, reason: `Not an address Herald can send to` });
      continue;
    }
    const address = normaliseSubscriberEmail(email);
    if (seen.has(address)) continue;
    seen.add(address);
    const values: Record<string, string> = {};
    for (const [key, raw] of Object.entries(subscriber.fields)) {
      const field = fields.get(key);
      if (!field || raw === null) continue;
      const text = field.type === "date" ? raw.slice(0, 10) : raw;
      const read = readFieldValue(field, text);
      if ("value" in read && read.value !== null) values[field.key] = read.value;
    }
    const name = [subscriber.fields.name, subscriber.fields.last_name]
      .map((part) => (part ?? "").trim())
      .filter(Boolean)
      .join(" ")
      .slice(0, NAME_MAX_LENGTH);
    const status = STATUS_FROM_MAILERLITE[subscriber.status] ?? "unsubscribed";
    rows.push({
      line,
      email: address,
      name,
      status,
      lists: subscriber.groups.flatMap((group) => lists.get(group.id) ?? []),
      since: isoOf(subscriber.subscribedAt),
      values,
    });
  }
  return { rows, refused, next: page.next };
}

/**
 * The tenant sends with Herald from now on: the tenant manager's save with the provider set to
 * builtin, audited in tenant_changes under `actor`.
 */
export async function switchToHeraldSending(db: Db, tenantId: string, actor: string) {
  const view = await getTenantView(db, tenantId);
  await saveTenantSettings(db, actor, tenantId, { ...settingsOf(view), mailProvider: "builtin" });
}
