import type { Db } from "../db";
import { revokeInvitationsFrom } from "./account-links";
import { type StaffUser, SUPER_ADMIN_ROLE } from "./permissions";
import { deleteUser, getUser, listUsers, UserError, updateUserAccess } from "./users";

/**
 * Staff management rules for the admin area: a super admin cannot remove or demote themself, and
 * the last super admin always stays, so nobody locks the installation out.
 */
export async function changeUserAccess(
  db: Db,
  actor: StaffUser,
  input: { userId: string; role: string; products: string[] },
): Promise<void> {
  if (input.userId === actor.id && input.role !== SUPER_ADMIN_ROLE) {
    throw new UserError("You cannot remove your own super admin role.", "role");
  }
  const products = Object.fromEntries(input.products.map((key) => [key, true] as const));
  const target = await getUser(db, input.userId);
  await db.transaction().execute(async (trx) => {
    await updateUserAccess(trx, input.userId, { role: input.role, products });
    // No longer a super admin: their pending invitations go with the role (issue 32, finding 8).
    if (target?.isSuperAdmin && input.role !== SUPER_ADMIN_ROLE) {
      await revokeInvitationsFrom(trx, target.email);
    }
  });
}

export async function removeUser(db: Db, actor: StaffUser, userId: string): Promise<void> {
  if (userId === actor.id) throw new UserError("You cannot remove your own account.");
  const users = await listUsers(db);
  const target = users.find((user) => user.id === userId);
  if (!target) throw new UserError("User not found.");
  if (target.isSuperAdmin && users.filter((user) => user.isSuperAdmin).length <= 1) {
    throw new UserError("The last super admin cannot be removed.");
  }
  await db.transaction().execute(async (trx) => {
    await deleteUser(trx, userId);
    await revokeInvitationsFrom(trx, target.email);
  });
}
