import { createNewsletter } from "../../server/newsletters/editing";
import { expect, test } from "./fixtures";
import { createSuperAdmin, followStaffLink, signIn, withE2eDatabase } from "./staff";

/*
 * Issue 17: staff pages put their kept parts (the staff tabs, the newsletter cards) in as the
 * markup React rendered for them once. The browser hydrates that markup: it must find exactly
 * what it would have rendered, on the first load and on the loads served from kept parts.
 */
test("staff pages hydrate without a mismatch once their parts are kept", async ({ page }) => {
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error" || message.type() === "warning") problems.push(message.text());
  });
  page.on("pageerror", (error) => problems.push(error.message));

  const title = `Hydration check ${Date.now()}`;
  await withE2eDatabase((db) =>
    createNewsletter(
      { db, tenantId: "main", authorId: null },
      { title, excerpt: "A card to hydrate.", content: "<p>Cards.</p>" },
    ),
  );
  await signIn(page, await createSuperAdmin("hydration"));
  for (let load = 0; load < 3; load++) {
    await page.goto("/admin/dashboard");
    await expect(page.getByRole("heading", { name: title })).toBeVisible();
    await page.waitForLoadState("networkidle");
  }
  const tabs = page.getByRole("navigation", { name: "Staff" });
  await followStaffLink(page, "Audience", "Lists");
  await expect(page).toHaveURL(/\/admin\/lists$/);
  await tabs.locator("summary:visible", { hasText: "Audience" }).click();
  await expect(tabs.getByRole("link", { name: "Lists" })).toHaveAttribute("aria-current", "page");
  await followStaffLink(page, "Newsletters", "Newsletters");
  await expect(page).toHaveURL(/\/admin\/dashboard$/);
  await tabs.locator("summary:visible", { hasText: "Newsletters" }).click();
  await expect(tabs.getByRole("link", { name: "Newsletters", exact: true })).toHaveAttribute(
    "aria-current",
    "page",
  );
  expect(problems).toEqual([]);
});
