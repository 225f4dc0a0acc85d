import { join } from "node:path";
import { expect, type Page } from "@playwright/test";
import { createUser } from "../../server/auth/users";
import { createDb, type Db } from "../../server/db";

export const PASSWORD = "e2e password 1234";

/** Works on the e2e server's own SQLite database (the server has migrated it already). */
export async function withE2eDatabase<T>(work: (db: Db) => Promise<T>): Promise<T> {
  const dir = process.env.E2E_DATA_DIR;
  if (!dir) throw new Error("E2E_DATA_DIR is not set (see playwright.config.ts)");
  const db = createDb(`file:${join(dir, "herald.db")}`);
  try {
    return await work(db);
  } finally {
    await db.destroy();
  }
}

/** A new super admin, unique per call so a retry does not trip over the first attempt's user. */
export function createSuperAdmin(prefix = "staff"): Promise<string> {
  const email = `${prefix}-${Date.now()}-${Math.random().toString(36).slice(2, 6)}@example.com`;
  return withE2eDatabase(async (db) => {
    await createUser(db, { email, password: PASSWORD, role: "super_admin" });
    return email;
  });
}

export async function signIn(page: Page, email: string) {
  await page.goto("/admin/login");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await page.getByRole("button", { name: "Sign In" }).click();
  await expect(page).toHaveURL(/\/admin\/dashboard$/);
}

/** Follows a link of the staff navigation: opens its section's menu, then clicks the link. */
export async function followStaffLink(page: Page, section: string, link: string) {
  const nav = page.getByRole("navigation", { name: "Staff" });
  await nav.locator("summary:visible", { hasText: section }).click();
  await nav.getByRole("link", { name: link, exact: true }).click();
}
