import { listTenantLists } from "../../server/subscribers/lists";
import { getTenant } from "../../server/tenants/store";
import { insertSubscriber } from "../support/subscribers";
import { expect, test } from "./fixtures";
import { createSuperAdmin, signIn, withE2eDatabase } from "./staff";

/** Subscribers of the newsletter list named after this run, straight in the e2e database. */
function seedSubscribers(stamp: number, count: number) {
  return withE2eDatabase(async (db) => {
    const lists = await listTenantLists(db, (await getTenant(db, "main")).config);
    const list = lists.find((candidate) => candidate.key === "newsletter");
    for (let index = 0; index < count; index++) {
      await insertSubscriber(db, {
        email: `audience-${stamp}-${index}@example.com`,
        listIds: [list?.id ?? 0],
      });
    }
  });
}

test("staff add a subscriber with a custom field, edit them, and read their timeline", async ({
  page,
}) => {
  const stamp = Date.now();
  await signIn(page, await createSuperAdmin("audience"));
  await page.goto("/admin/subscribers/fields");
  await page.getByLabel("Name").fill(`Practice area ${stamp}`);
  await page.getByLabel("Type").selectOption("choice");
  await page.getByLabel("Choices").fill("Litigation\nRegulatory");
  await page.getByRole("button", { name: "Add field" }).click();
  await expect(
    page.getByRole("status").filter({ hasText: `Added “Practice area ${stamp}”.` }),
  ).toBeVisible();

  await page.goto("/admin/subscribers");
  await page.getByRole("link", { name: "Add subscriber" }).click();
  await page.getByLabel("Email", { exact: true }).fill(`profile-${stamp}@lawfirm.example`);
  await page.locator("#name").fill("Robin");
  await page.getByLabel(`Practice area ${stamp}`).selectOption("Regulatory");
  await page.getByLabel("Add as active now").check();
  await page.getByRole("button", { name: "Add subscriber" }).click();
  await expect(
    page.getByRole("status").filter({ hasText: "Subscriber added as active." }),
  ).toBeVisible();
  await expect(
    page.getByRole("heading", { name: `profile-${stamp}@lawfirm.example` }),
  ).toBeVisible();
  await expect(page.getByText(/Added by staff \(audience-/)).toBeVisible();

  await page.locator("#name").fill("Robin Ortiz");
  await page.getByLabel("Industry News").check();
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Changes saved." })).toBeVisible();
  const history = page.getByRole("region", { name: "History" });
  await expect(history.getByText("Changed: name")).toBeVisible();
  await expect(history.getByText("added to Industry News")).toBeVisible();
});

test("staff unsubscribe a searched selection in bulk, after confirming", async ({ page }) => {
  const stamp = Date.now();
  await seedSubscribers(stamp, 3);
  await signIn(page, await createSuperAdmin("bulk"));
  await page.goto(`/admin/subscribers?q=audience-${stamp}`);
  await expect(page.getByText(/^3 subscribers match · page/)).toBeVisible();
  await page.getByLabel(`Select audience-${stamp}-0@example.com`).check();
  await page.getByLabel(`Select audience-${stamp}-2@example.com`).check();
  await page.getByLabel("Action", { exact: true }).selectOption("unsubscribe");
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(page.getByRole("heading", { name: "Unsubscribe 2 subscribers?" })).toBeVisible();
  await page.getByRole("button", { name: "Yes, go ahead" }).click();
  await expect(
    page.getByRole("status").filter({ hasText: "2 subscribers unsubscribed." }),
  ).toBeVisible();
  await page.goto(`/admin/subscribers?q=audience-${stamp}&status=unsubscribed`);
  await expect(page.getByText(/^2 subscribers match · page/)).toBeVisible();
});

test("a segment counts as its conditions change, before it is saved", async ({ page }) => {
  const stamp = Date.now();
  await seedSubscribers(stamp, 2);
  await signIn(page, await createSuperAdmin("segment"));
  await page.goto("/admin/segments/new");
  const count = page.getByTestId("segment-count");
  await expect(count).toHaveText("Set conditions to see how many match.");
  await page.getByLabel("Unsubscribed").check();
  await expect(count).toContainText(/subscribers? match/);
  const unsubscribedOnly = await count.textContent();
  await page.getByLabel("Active").check();
  await expect(count).not.toHaveText(unsubscribedOnly ?? "");
  await page.getByLabel("Name").fill(`Everyone ${stamp}`);
  await page.getByRole("button", { name: "Save segment" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Segment saved." })).toBeVisible();
  await page.goto("/admin/segments");
  await expect(page.getByRole("link", { name: `Everyone ${stamp}` })).toBeVisible();
});
