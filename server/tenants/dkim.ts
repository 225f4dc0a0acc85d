import { generateKeyPairSync } from "node:crypto";
import {
  DKIM_ALGORITHM_LABELS,
  DKIM_ALGORITHMS,
  DKIM_MESSAGES,
  type DkimAlgorithm,
  dkimAlgorithmField,
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
 * until staff switch to the new one. An RSA and an Ed25519 key may sign side by side (issue 36;
 * docs/decisions/049-dkim-both-ways.md): at most one active and one pending key per algorithm. The private key is read in one place only, dkimSigningKey
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
  /** the keys that sign the tenant's mail: none, one, or an RSA and an Ed25519 key (in that order) */
  active: DkimRecord[];
  /**
   * new keys waiting for staff to publish their records: a rotation's (replacing the active key of
   * its algorithm) or a second algorithm's (signing beside the active key), at most one per algorithm
   */
  pending: DkimRecord[];
}

/** RSA before Ed25519, as the signatures stand in a message (server/mail/dkim.ts). */
const byAlgorithm = (a: Pick<DkimRecord, "algorithm">, b: Pick<DkimRecord, "algorithm">) =>
  DKIM_ALGORITHMS.indexOf(a.algorithm) - DKIM_ALGORITHMS.indexOf(b.algorithm);

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
  const rows = (await publicRows(db, tenantId)).sort(byAlgorithm);
  return {
    active: rows.filter((row) => row.status === "active").map(recordOf),
    pending: rows.filter((row) => row.status === "pending").map(recordOf),
  };
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
 * Generates a key pair. Without any key the new one signs at once. Beside a key it waits as its
 * algorithm's pending key (its selector must differ from every other key's, so the records can be
 * published side by side) until staff switch: a rotation when a key of its algorithm signs, a
 * second signature when none does.
 */
export async function generateDkimKey(
  root: Db,
  actor: string,
  tenantId: string,
  input: unknown,
): Promise<{ status: "active" | "pending"; second: boolean; record: DkimRecord }> {
  const db = tenantDb(root, tenantId);
  const valid = dkimKeySchema.parse(input);
  await getTenantView(db, tenantId);
  const keys = newKeyPair(valid.algorithm);
  return db.transaction().execute(async (trx) => {
    const rows = await publicRows(trx, tenantId);
    const replaced = rows.find(
      (row) => row.status === "pending" && row.algorithm === valid.algorithm,
    );
    const clash = rows.find(
      (row) => row !== replaced && row.selector === valid.selector && row.domain === valid.domain,
    );
    if (clash) {
      const message =
        clash.status === "active" ? DKIM_MESSAGES.sameSelector : DKIM_MESSAGES.selectorTaken;
      throw new ApiError("INVALID_ARGUMENT", message, { selector: [message] });
    }
    const status = rows.some((row) => row.status === "active") ? "pending" : "active";
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
    const before = rows.find((each) => each.status === status && each.algorithm === row.algorithm);
    await trx
      .deleteFrom("dkim_keys")
      .where("status", "=", status)
      .where("algorithm", "=", row.algorithm)
      .execute();
    await trx.insertInto("dkim_keys").values(row).execute();
    await recordChange(trx, tenantId, "updated", actor, [
      { field: `dkim.${status}`, before: keyLabel(before), after: keyLabel(row) },
    ]);
    const second =
      status === "pending" &&
      !rows.some((each) => each.status === "active" && each.algorithm === row.algorithm);
    return { status, second, record: recordOf(row) };
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

/**
 * The switch to a pending key (the one of `algorithm`, or the only one): it replaces the active key
 * of its algorithm, or signs beside the other algorithm's. Says whether two keys sign now.
 */
export async function activatePendingDkimKey(
  root: Db,
  actor: string,
  tenantId: string,
  algorithm?: DkimAlgorithm,
): Promise<{ both: boolean }> {
  const db = tenantDb(root, tenantId);
  return db.transaction().execute(async (trx) => {
    const rows = await publicRows(trx, tenantId);
    const waiting = rows.filter(
      (row) => row.status === "pending" && (!algorithm || row.algorithm === algorithm),
    );
    const pending = waiting.length === 1 ? waiting[0] : undefined;
    if (!pending) throw new ApiError("ABORTED", DKIM_MESSAGES.noPending);
    const active = rows.find(
      (row) => row.status === "active" && row.algorithm === pending.algorithm,
    );
    await trx
      .deleteFrom("dkim_keys")
      .where("status", "=", "active")
      .where("algorithm", "=", pending.algorithm)
      .execute();
    await trx
      .updateTable("dkim_keys")
      .set({ status: "active" })
      .where("status", "=", "pending")
      .where("algorithm", "=", pending.algorithm)
      .execute();
    await recordChange(trx, tenantId, "updated", actor, [
      { field: "dkim.active", before: keyLabel(active), after: keyLabel(pending) },
      { field: "dkim.pending", before: keyLabel(pending), after: null },
    ]);
    return {
      both: rows.some((row) => row.status === "active" && row.algorithm !== pending.algorithm),
    };
  });
}

/**
 * Removes a pending key (`which: "pending"`: the one of `algorithm`, or every pending one) or every
 * key of the tenant (`"all"`).
 */
export async function removeDkimKey(
  root: Db,
  actor: string,
  tenantId: string,
  which: "pending" | "all",
  algorithm?: DkimAlgorithm,
) {
  const db = tenantDb(root, tenantId);
  await db.transaction().execute(async (trx) => {
    const rows = await publicRows(trx, tenantId);
    const gone =
      which === "all"
        ? rows
        : rows.filter(
            (row) => row.status === "pending" && (!algorithm || row.algorithm === algorithm),
          );
    if (gone.length === 0) {
      throw new ApiError(
        "ABORTED",
        which === "all" ? DKIM_MESSAGES.noKey : DKIM_MESSAGES.noPending,
      );
    }
    await trx
      .deleteFrom("dkim_keys")
      .$if(which === "pending", (qb) => qb.where("status", "=", "pending"))
      .$if(which === "pending" && algorithm !== undefined, (qb) =>
        qb.where("algorithm", "=", algorithm ?? "rsa"),
      )
      .execute();
    await recordKeysGone(trx, tenantId, actor, gone);
  });
}

/**
 * Stops one algorithm's signature while the other algorithm's key signs on (a receiver mishandles
 * it, say): removes that algorithm's active key and its pending one, if any, as it was never
 * generated. The key signing alone is removed with the others (`removeDkimKey(…, "all")`), whose
 * confirmation says mail goes out unsigned: this one refuses it rather than leave mail unsigned.
 */
export async function removeDkimKeyOfType(
  root: Db,
  actor: string,
  tenantId: string,
  input: unknown,
) {
  const algorithm = dkimAlgorithmField.parse(input);
  const db = tenantDb(root, tenantId);
  await db.transaction().execute(async (trx) => {
    const rows = await publicRows(trx, tenantId);
    const active = (row: PublicRow) => row.status === "active";
    if (!rows.some((row) => active(row) && row.algorithm === algorithm)) {
      throw new ApiError("ABORTED", DKIM_MESSAGES.noKeyOfType);
    }
    if (!rows.some((row) => active(row) && row.algorithm !== algorithm)) {
      throw new ApiError("ABORTED", DKIM_MESSAGES.onlyKey);
    }
    const gone = rows
      .filter((row) => row.algorithm === algorithm)
      .sort((a, b) => a.status.localeCompare(b.status));
    await trx.deleteFrom("dkim_keys").where("algorithm", "=", algorithm).execute();
    await recordKeysGone(trx, tenantId, actor, gone);
  });
}

/** The tenant's history of removed keys: one change per key, its label before, nothing after. */
function recordKeysGone(trx: Db, tenantId: string, actor: string, gone: readonly PublicRow[]) {
  return recordChange(
    trx,
    tenantId,
    "updated",
    actor,
    gone.map((row) => ({ field: `dkim.${row.status}`, before: keyLabel(row), after: null })),
  );
}
