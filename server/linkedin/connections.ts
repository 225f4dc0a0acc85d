import type { Db } from "../db";
import { crossTenant, tenantDb } from "../db/tenant-guard";
import { getSecretBox, type Reseal, resealAll, type SealedAt } from "../secret-box";
import { LinkedInApi, type LinkedInEnv, type TokenAnswer } from "./api";

/*
 * A tenant's LinkedIn connection (docs/decisions/046-linkedin.md): the one writer of
 * linkedin_connections. The access and refresh tokens are sealed together in `tokens`
 * (server/secret-box.ts), opening only on the tenant's row. An access token is refreshed a day
 * before it lapses when LinkedIn gave a refresh token; the page asks staff to reconnect when
 * neither will last another week, or when LinkedIn refused the tokens.
 */

export type AuthorKind = "member" | "organization";

/** Where a tenant's tokens are sealed: they open on that row only. */
export const linkedInTokensAt = (tenantId: string): SealedAt => ({
  table: "linkedin_connections",
  column: "tokens",
  row: tenantId,
});

interface Tokens {
  access: string;
  refresh: string | null;
}

const REFRESH_AHEAD_MS = 86_400_000;
/** The page asks to reconnect this long before the connection would lapse. */
export const RECONNECT_AHEAD_MS = 7 * 86_400_000;

export const scopeFor = (kind: AuthorKind) =>
  `openid profile ${kind === "member" ? "w_member_social" : "w_organization_social"}`;

function expiries(answer: TokenAnswer, now: number) {
  return {
    access_expires_at: new Date(now + answer.expires_in * 1000).toISOString(),
    refresh_expires_at: answer.refresh_token_expires_in
      ? new Date(now + answer.refresh_token_expires_in * 1000).toISOString()
      : null,
  };
}

const seal = (tenantId: string, tokens: Tokens) =>
  getSecretBox().seal(JSON.stringify(tokens), linkedInTokensAt(tenantId));

/** Saves (or replaces) the tenant's connection after the OAuth round trip. */
export async function saveConnection(
  root: Db,
  tenantId: string,
  connection: {
    kind: AuthorKind;
    authorUrn: string;
    authorName: string;
    answer: TokenAnswer;
    actor: string;
  },
): Promise<void> {
  const now = Date.now();
  const values = {
    author_kind: connection.kind,
    author_urn: connection.authorUrn,
    author_name: connection.authorName,
    scope: connection.answer.scope,
    tokens: seal(tenantId, {
      access: connection.answer.access_token,
      refresh: connection.answer.refresh_token ?? null,
    }),
    ...expiries(connection.answer, now),
    refreshed_at: null,
    connected_by: connection.actor,
    connected_at: new Date(now).toISOString(),
    problem: null,
  };
  await tenantDb(root, tenantId)
    .insertInto("linkedin_connections")
    .values({ tenant_id: tenantId, ...values })
    .onConflict((oc) => oc.column("tenant_id").doUpdateSet(values))
    .execute();
}

export async function removeConnection(root: Db, tenantId: string): Promise<void> {
  await tenantDb(root, tenantId).deleteFrom("linkedin_connections").execute();
}

/** LinkedIn refused the tokens: kept, with what it said, until staff reconnect. */
export async function markConnectionProblem(root: Db, tenantId: string, problem: string) {
  await tenantDb(root, tenantId).updateTable("linkedin_connections").set({ problem }).execute();
}

export interface ConnectionStatus {
  kind: AuthorKind;
  authorUrn: string;
  authorName: string;
  connectedBy: string;
  connectedAt: string;
  accessExpiresAt: string;
  refreshExpiresAt: string | null;
  /** until when posting works without staff: the refresh token's end, else the access token's */
  lastsUntil: string;
  problem: string | null;
  /** show the "Reconnect" prompt: refused, or lapsing within RECONNECT_AHEAD_MS */
  reconnect: boolean;
}

/** What the page shows of the connection: never a token. */
export async function connectionStatus(
  root: Db,
  tenantId: string,
  now = Date.now(),
): Promise<ConnectionStatus | null> {
  const row = await tenantDb(root, tenantId)
    .selectFrom("linkedin_connections")
    .selectAll()
    .executeTakeFirst();
  if (!row) return null;
  const lastsUntil = row.refresh_expires_at ?? row.access_expires_at;
  return {
    kind: row.author_kind,
    authorUrn: row.author_urn,
    authorName: row.author_name,
    connectedBy: row.connected_by,
    connectedAt: row.connected_at,
    accessExpiresAt: row.access_expires_at,
    refreshExpiresAt: row.refresh_expires_at,
    lastsUntil,
    problem: row.problem,
    reconnect: row.problem !== null || Date.parse(lastsUntil) - now < RECONNECT_AHEAD_MS,
  };
}

/** What the publisher needs: the author and an access token that lasts, refreshed when due. */
export async function authorAndToken(
  root: Db,
  tenantId: string,
  env: LinkedInEnv,
  now = Date.now(),
): Promise<{ author: string; accessToken: string } | null> {
  const db = tenantDb(root, tenantId);
  const row = await db.selectFrom("linkedin_connections").selectAll().executeTakeFirst();
  if (!row) return null;
  const tokens = JSON.parse(getSecretBox().open(row.tokens, linkedInTokensAt(tenantId))) as Tokens;
  const refreshUsable =
    tokens.refresh && (!row.refresh_expires_at || Date.parse(row.refresh_expires_at) > now);
  if (Date.parse(row.access_expires_at) - now > REFRESH_AHEAD_MS || !refreshUsable) {
    return { author: row.author_urn, accessToken: tokens.access };
  }
  const answer = await new LinkedInApi(env).refresh(tokens.refresh ?? "");
  const next = {
    access: answer.access_token,
    // LinkedIn may send the same refresh token again, or none: the old one stays then.
    refresh: answer.refresh_token ?? tokens.refresh,
  };
  const { access_expires_at, refresh_expires_at } = expiries(answer, now);
  await db
    .updateTable("linkedin_connections")
    .set({
      tokens: seal(tenantId, next),
      access_expires_at,
      refresh_expires_at: refresh_expires_at ?? row.refresh_expires_at,
      refreshed_at: new Date(now).toISOString(),
      problem: null,
    })
    .execute();
  return { author: row.author_urn, accessToken: next.access };
}

/** Seals every connection's tokens not sealed under the current key (at start, `herald secrets rotate`). */
export async function resealLinkedInTokens(db: Db, which: Reseal): Promise<number> {
  return db.transaction().execute(async (trx) => {
    // Every tenant's rows at once, on purpose: the key is the installation's, not a tenant's.
    const all = crossTenant(trx);
    const rows = await all
      .selectFrom("linkedin_connections")
      .select(["tenant_id", "tokens"])
      .execute();
    return resealAll(
      which,
      rows,
      (row) => row.tokens,
      (row) => linkedInTokensAt(row.tenant_id),
      async (row, sealed) => {
        await tenantDb(all, row.tenant_id)
          .updateTable("linkedin_connections")
          .set({ tokens: sealed })
          .where("tokens", "=", row.tokens)
          .execute();
      },
    );
  });
}
