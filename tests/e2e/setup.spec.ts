import { createTestDatabase } from "../support/database";
import { startServer } from "../support/server";
import { expect, test } from "./fixtures";

/*
 * Issue 35, target 7: on the first-run page, after a validation error the corrected "Create super
 * admin" click did nothing — leaving the field revalidated it, the error vanished and the button
 * moved up under the pointer between mousedown and mouseup. Its own server: setup needs a
 * database without users.
 */
test("the first click after correcting a setup error creates the super admin", async ({ page }) => {
  const database = await createTestDatabase("sqlite");
  const server = await startServer({ databaseUrl: database.url });
  try {
    const link = server.output().match(/\/admin\/setup\?token=[\w-]+/)?.[0];
    expect(link).toBeTruthy();
    await page.goto(`${server.url}${link}`);
    await page.waitForLoadState("networkidle");
    await page.getByLabel("Email").fill("first@example.com");
    await page.getByLabel("Password", { exact: true }).fill("a-long-password");
    await page.getByLabel("Repeat password").fill("a-long-pasword");
    const create = page.getByRole("button", { name: "Create super admin" });
    await create.click();
    await expect(page.getByText("The passwords do not match.")).toBeVisible();

    // Corrected, and one click, the pointer going down while the field still has the focus.
    await page.getByLabel("Repeat password").fill("a-long-password");
    await create.click();
    await expect(page).toHaveURL(/\/admin\/dashboard$/);
    const users = await database.db.selectFrom("users").select(["email", "role"]).execute();
    expect(users).toEqual([{ email: "first@example.com", role: "super_admin" }]);
  } finally {
    await server.stop();
    await database.drop();
  }
});
