import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { Db } from "../db";
import type { StaffTokenPurpose, StaffTokensTable } from "../db/schema";
import { renderEmail } from "../emails/templates";
import { sendMail } from "../mail/send";
import type { Scope } from "../scope";
import { tenantLink } from "../subscribers/links";
import { isSuperAdmin, type Products, parseProducts, type StaffUser } from "./permissions";
import { createUser, findUserByEmail, normaliseEmail, setUserPassword, UserError } from "./users";

/*
 * Emailed, single-use links for staff (issue 14, part 4): "Forgot password?" (1 hour) and
 * invitations (7 days). The link carries a random token; the database keeps its hash only, so a
 * copy of the database opens nothing. A link is spent in the same transaction as what it allows.
 */

export const RESET_LIFETIME_MS = 60 * 60 * 1000;
export const INVITATION_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;
export const INVALID_STAFF_LINK = "This link is not valid any more. Ask for a new one.";

type MailScope = Pick<Scope, "db" | "logger" | "transport" | "tenant" | "origin">;

const hashOf = (token: string) => createHash("sha256").update(token).digest("hex");

/**
 * Issues a new link, revoking — in the same transaction — every earlier unspent link of the same
 * purpose for the same address: one working reset link per account, one invitation per address.
 */
async function issueToken(
  db: Db,
  row: Omit<StaffTokensTable, "id" | "token_hash" | "created_at" | "used_at" | "revoked_at">,
): Promise<string> {
  const token = randomBytes(32).toString("base64url");
  const now = new Date().toISOString();
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable("staff_tokens")
      .set({ revoked_at: now })
      .where("purpose", "=", row.purpose)
      .where("email", "=", row.email)
      .where("used_at", "is", null)
      .where("revoked_at", "is", null)
      .execute();
    await trx
      .insertInto("staff_tokens")
      .values({
        ...row,
        id: randomUUID(),
        token_hash: hashOf(token),
        created_at: now,
        used_at: null,
        revoked_at: null,
      })
      .execute();
  });
  return token;
}

/**
 * Deletes the links that expired before `before` (the hourly purge, server/jobs/purge.ts, passes
 * a week ago: an expired invitation stays on the staff page a while to be sent again); how many.
 */
export async function deleteExpiredStaffTokens(db: Db, before: Date): Promise<number> {
  const result = await db
    .deleteFrom("staff_tokens")
    .where("expires_at", "<=", before.toISOString())
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The unspent, unrevoked, unexpired link of `purpose` a token opens, or undefined. */
async function openToken(db: Db, token: string, purpose: StaffTokenPurpose) {
  if (!token || token.length > 100) return undefined;
  const row = await db
    .selectFrom("staff_tokens")
    .selectAll()
    .where("token_hash", "=", hashOf(token))
    .where("purpose", "=", purpose)
    .executeTakeFirst();
  if (!row || row.used_at || row.revoked_at) return undefined;
  if (row.expires_at <= new Date().toISOString()) return undefined;
  return purpose === "invite" && !(await senderMayStillInvite(db, row.created_by))
    ? undefined
    : row;
}

/**
 * An invitation grants only what its sender could still grant (issue 32, finding 8): inviting is
 * a super admin's act, so one whose sender has since been removed or demoted opens nothing.
 */
async function senderMayStillInvite(db: Db, senderEmail: string | null): Promise<boolean> {
  const sender = senderEmail ? await findUserByEmail(db, senderEmail) : undefined;
  return sender !== undefined && isSuperAdmin(sender.role);
}

/** Withdraws the pending invitations a staff member sent (they were removed or demoted). */
export async function revokeInvitationsFrom(db: Db, senderEmail: string): Promise<void> {
  await db
    .updateTable("staff_tokens")
    .set({ revoked_at: new Date().toISOString() })
    .where("purpose", "=", "invite")
    .where("created_by", "=", senderEmail)
    .where("used_at", "is", null)
    .where("revoked_at", "is", null)
    .execute();
}

/** Marks a link spent; false when someone else spent it first. */
async function spend(db: Db, id: string): Promise<boolean> {
  const result = await db
    .updateTable("staff_tokens")
    .set({ used_at: new Date().toISOString() })
    .where("id", "=", id)
    .where("used_at", "is", null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

async function mailLink(
  scope: MailScope,
  to: string,
  content: Parameters<typeof renderEmail>[1],
): Promise<void> {
  const email = await renderEmail(scope.tenant, content, scope.origin);
  await sendMail(
    { db: scope.db, transport: scope.transport, logger: scope.logger },
    { ...email, to, headers: {}, tenantId: scope.tenant.id, kind: content.kind },
    // A late copy would carry a link that may have expired: no retries.
    { retryLater: false },
  );
}

/**
 * "Forgot password?": mails a reset link when the address belongs to a staff account, nothing
 * otherwise; the caller answers the same either way. An earlier unspent link is revoked.
 */
export async function requestPasswordReset(scope: MailScope, email: string): Promise<boolean> {
  const user = await findUserByEmail(scope.db, email);
  if (!user) return false;
  const now = new Date();
  const token = await issueToken(scope.db, {
    purpose: "reset",
    user_id: user.id,
    email: user.email,
    role: null,
    products: null,
    created_by: null,
    expires_at: new Date(now.getTime() + RESET_LIFETIME_MS).toISOString(),
  });
  await mailLink(scope, user.email, {
    kind: "password-reset",
    url: tenantLink(scope, `/admin/reset-password/${token}`),
  });
  return true;
}

/** The account a reset link is for, while it can be used. */
export async function resetLinkAccount(db: Db, token: string): Promise<{ email: string } | null> {
  const row = await openToken(db, token, "reset");
  return row ? { email: row.email } : null;
}

/** Sets the new password, spends the link and ends every session of the account, at once. */
export async function resetPassword(db: Db, token: string, password: string): Promise<string> {
  const row = await openToken(db, token, "reset");
  if (!row?.user_id) throw new UserError(INVALID_STAFF_LINK);
  await setUserPassword(db, row.user_id, password, async (trx) => {
    if (!(await spend(trx, row.id))) throw new UserError(INVALID_STAFF_LINK);
  });
  return row.user_id;
}

export interface InvitationView {
  id: string;
  email: string;
  role: string;
  products: Products;
  invitedBy: string | null;
  createdAt: string;
  expiresAt: string;
  expired: boolean;
}

/** Invites an address to become staff with `role` and `products`; it sets its own password. */
export async function inviteStaff(
  scope: MailScope,
  actor: StaffUser,
  input: { email: string; role: string; products: Products },
): Promise<void> {
  const email = normaliseEmail(input.email);
  if (await findUserByEmail(scope.db, email)) {
    throw new UserError("A user with this email already exists.", "email");
  }
  const token = await issueToken(scope.db, {
    purpose: "invite",
    user_id: null,
    email,
    role: input.role,
    products: JSON.stringify(input.products),
    created_by: actor.email,
    expires_at: new Date(Date.now() + INVITATION_LIFETIME_MS).toISOString(),
  });
  await mailLink(scope, email, {
    kind: "staff-invitation",
    url: tenantLink(scope, `/admin/accept-invitation/${token}`),
    invitedBy: actor.email,
  });
}

export async function listInvitations(db: Db): Promise<InvitationView[]> {
  const rows = await db
    .selectFrom("staff_tokens")
    .selectAll()
    .where("purpose", "=", "invite")
    .where("used_at", "is", null)
    .where("revoked_at", "is", null)
    .orderBy("created_at", "desc")
    .execute();
  const now = new Date().toISOString();
  return rows.map((row) => ({
    id: row.id,
    email: row.email,
    role: row.role ?? "",
    products: parseProducts(row.products ?? "{}"),
    invitedBy: row.created_by,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    expired: row.expires_at <= now,
  }));
}

export async function revokeInvitation(db: Db, id: string): Promise<void> {
  const result = await db
    .updateTable("staff_tokens")
    .set({ revoked_at: new Date().toISOString() })
    .where("id", "=", id)
    .where("purpose", "=", "invite")
    .where("used_at", "is", null)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) throw new UserError("Invitation not found.");
}

/** Sends an invitation again with a new link (the old one stops working). */
export async function resendInvitation(scope: MailScope, actor: StaffUser, id: string) {
  const invitation = (await listInvitations(scope.db)).find((row) => row.id === id);
  if (!invitation) throw new UserError("Invitation not found.");
  // A new link for the same address revokes the old one (issueToken).
  await inviteStaff(scope, actor, invitation);
}

/** The invitation a link opens, while it can be accepted. */
export async function invitationFor(
  db: Db,
  token: string,
): Promise<{ email: string; role: string; invitedBy: string | null } | null> {
  const row = await openToken(db, token, "invite");
  return row ? { email: row.email, role: row.role ?? "", invitedBy: row.created_by } : null;
}

/** Creates the invited account with the name and password its owner chose; spends the link. */
export async function acceptInvitation(
  db: Db,
  token: string,
  chosen: { password: string; displayName?: string },
): Promise<StaffUser> {
  const row = await openToken(db, token, "invite");
  if (!row) throw new UserError(INVALID_STAFF_LINK);
  return db.transaction().execute(async (trx) => {
    if (!(await spend(trx, row.id))) throw new UserError(INVALID_STAFF_LINK);
    return createUser(trx, {
      email: row.email,
      password: chosen.password,
      displayName: chosen.displayName,
      role: row.role ?? "",
      products: parseProducts(row.products ?? "{}"),
    });
  });
}
