import { generateKeyPairSync } from "node:crypto";
import {
  DKIM_ALGORITHM_LABELS,
  DKIM_MESSAGES,
  type DkimAlgorithm,
  dkimKeySchema,
} from "../../shared/schemas/dkim";
import { ApiError } from "../api/errors";
import type { Db } from "../db";
import type { DkimKeysTable } from "../db/schema";
import { crossTenant, tenantDb } from "../db/tenant-guard";
import { dkimPrivateKeyAt } from "../mail/dkim";
import { getSecretBox, type Reseal, resealAll } from "../secret-box";
import { recordChange } from "./history";
import { getTenantView } from "./views";

/**
 * DKIM keys per tenant (issue 12, part 5; docs/decisions/012-dkim.md). Staff generate a key, publish
 * its TXT record and every mail of the tenant is signed; a rotation keeps the current key signing
 * until staff switch to the new one. The private key is read in one place only, dkimSigningKey
 * (server/mail/dkim.ts) for the transport: nothing a page, the API or the audit history shows includes it.
 */

/** What staff see of a key: everything needed to publish it, nothing secret. */
export interface DkimRecord {
  selector: string;
  domain: string;
  algorithm: DkimAlgorithm;
  /** the TXT record's name: {selector}._domainkey.{domain} */
  recordName: string;
  /** the TXT record's value: v=DKIM1; k=rsa; p=… */
  recordValue: string;
  createdBy: string;
  createdAt: string;
}

export interface TenantDkim {
  /** signs the tenant's mail */
  active: DkimRecord | null;
  /** a rotation's new key, waiting for staff to publish its record and switch */
  pending: DkimRecord | null;
}

const PUBLIC_COLUMNS = [
  "status",
  "selector",
  "domain",
  "algorithm",
  "public_key",
  "created_by",
  "created_at",
] as const;

type PublicRow = Pick<DkimKeysTable, (typeof PUBLIC_COLUMNS)[number]>;

function recordOf(row: PublicRow): DkimRecord {
  return {
    selector: row.selector,
    domain: row.domain,
    algorithm: row.algorithm,
    recordName: `${row.selector}._domainkey.${row.domain}`,
    recordValue: `v=DKIM1; k=${row.algorithm}; p=${row.public_key}`,
    createdBy: row.created_by,
    createdAt: row.created_at,
  };
}

function keyLabel(row: PublicRow | undefined): string | null {
  return row
    ? `${row.selector}._domainkey.${row.domain} (${DKIM_ALGORITHM_LABELS[row.algorithm]})`
    : null;
}

async function publicRows(root: Db, tenantId: string): Promise<PublicRow[]> {
  const db = tenantDb(root, tenantId);
  // Never selectAll: the private key is not read here.
  return db.selectFrom("dkim_keys").select(PUBLIC_COLUMNS).execute();
}

export async function tenantDkim(db: Db, tenantId: string): Promise<TenantDkim> {
  const rows = await publicRows(db, tenantId);
  const active = rows.find((row) => row.status === "active");
  const pending = rows.find((row) => row.status === "pending");
  return { active: active ? recordOf(active) : null, pending: pending ? recordOf(pending) : null };
}

function newKeyPair(algorithm: DkimAlgorithm): { publicKey: string; privateKey: string } {
  const { publicKey, privateKey } =
    algorithm === "rsa"
      ? generateKeyPairSync("rsa", { modulusLength: 2048 })
      : generateKeyPairSync("ed25519");
  return {
    // RSA: the SubjectPublicKeyInfo DER, as RFC 6376 §3.6.1 publishes it. Ed25519 (RFC 8463): the
    // bare 32-byte key, the last 32 bytes of its SPKI.
    publicKey: (algorithm === "rsa"
      ? publicKey.export({ type: "spki", format: "der" })
      : publicKey.export({ type: "spki", format: "der" }).subarray(-32)
    ).toString("base64"),
    privateKey: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
  };
}

/**
 * Generates a key pair. Without a key the new one signs at once; with one it waits as the pending
 * key (its selector must differ, so both records can be published side by side) until staff switch.
 */
export async function generateDkimKey(
  root: Db,
  actor: string,
  tenantId: string,
  input: unknown,
): Promise<{ status: "active" | "pending"; record: DkimRecord }> {
  const db = tenantDb(root, tenantId);
  const valid = dkimKeySchema.parse(input);
  await getTenantView(db, tenantId);
  const keys = newKeyPair(valid.algorithm);
  return db.transaction().execute(async (trx) => {
    const rows = await publicRows(trx, tenantId);
    const active = rows.find((row) => row.status === "active");
    const pending = rows.find((row) => row.status === "pending");
    if (active && active.selector === valid.selector && active.domain === valid.domain) {
      throw new ApiError("INVALID_ARGUMENT", DKIM_MESSAGES.sameSelector, {
        selector: [DKIM_MESSAGES.sameSelector],
      });
    }
    const status = active ? "pending" : "active";
    const row = {
      tenant_id: tenantId,
      status,
      selector: valid.selector,
      domain: valid.domain,
      algorithm: valid.algorithm,
      public_key: keys.publicKey,
      private_key: getSecretBox().seal(
        keys.privateKey,
        dkimPrivateKeyAt({ tenant_id: tenantId, selector: valid.selector, domain: valid.domain }),
      ),
      created_by: actor,
      created_at: new Date().toISOString(),
    } as const;
    await trx.deleteFrom("dkim_keys").where("status", "=", status).execute();
    await trx.insertInto("dkim_keys").values(row).execute();
    await recordChange(trx, tenantId, "updated", actor, [
      {
        field: `dkim.${status}`,
        before: keyLabel(status === "active" ? active : pending),
        after: keyLabel(row),
      },
    ]);
    return { status, record: recordOf(row) };
  });
}

/** Seals every private key not sealed under the current key (at start, `herald secrets rotate`). */
export async function resealDkimKeys(db: Db, which: Reseal): Promise<number> {
  return db.transaction().execute(async (trx) => {
    // Every tenant's keys at once, on purpose: the key is the installation's, not a tenant's.
    const all = crossTenant(trx);
    const rows = await all
      .selectFrom("dkim_keys")
      .select(["id", "tenant_id", "selector", "domain", "private_key"])
      .execute();
    return resealAll(
      which,
      rows,
      (row) => row.private_key,
      dkimPrivateKeyAt,
      async (row, sealed) => {
        await tenantDb(all, row.tenant_id)
          .updateTable("dkim_keys")
          .set({ private_key: sealed })
          .where("id", "=", row.id)
          .where("private_key", "=", row.private_key)
          .execute();
      },
    );
  });
}

/** The rotation's confirmation: the pending key replaces the active one. */
export async function activatePendingDkimKey(root: Db, actor: string, tenantId: string) {
  const db = tenantDb(root, tenantId);
  await db.transaction().execute(async (trx) => {
    const rows = await publicRows(trx, tenantId);
    const active = rows.find((row) => row.status === "active");
    const pending = rows.find((row) => row.status === "pending");
    if (!pending) throw new ApiError("ABORTED", DKIM_MESSAGES.noPending);
    await trx.deleteFrom("dkim_keys").where("status", "=", "active").execute();
    await trx
      .updateTable("dkim_keys")
      .set({ status: "active" })
      .where("status", "=", "pending")
      .execute();
    await recordChange(trx, tenantId, "updated", actor, [
      { field: "dkim.active", before: keyLabel(active), after: keyLabel(pending) },
      { field: "dkim.pending", before: keyLabel(pending), after: null },
    ]);
  });
}

/** Removes the pending key (`which: "pending"`) or every key of the tenant (`"all"`). */
export async function removeDkimKey(
  root: Db,
  actor: string,
  tenantId: string,
  which: "pending" | "all",
) {
  const db = tenantDb(root, tenantId);
  await db.transaction().execute(async (trx) => {
    const rows = await publicRows(trx, tenantId);
    const gone = which === "all" ? rows : rows.filter((row) => row.status === "pending");
    if (gone.length === 0) {
      throw new ApiError(
        "ABORTED",
        which === "all" ? DKIM_MESSAGES.noKey : DKIM_MESSAGES.noPending,
      );
    }
    await trx
      .deleteFrom("dkim_keys")
      .$if(which === "pending", (qb) => qb.where("status", "=", "pending"))
      .execute();
    await recordChange(
      trx,
      tenantId,
      "updated",
      actor,
      gone.map((row) => ({ field: `dkim.${row.status}`, before: keyLabel(row), after: null })),
    );
  });
}
