import { createNewsletter } from "../../server/newsletters/editing";
import { publishNewsletter } from "../../server/newsletters/newsletters";
import { listTenantLists } from "../../server/subscribers/lists";
import { getTenant } from "../../server/tenants/store";
import { insertSubscriber } from "../support/subscribers";
import { scaled } from "../support/timing";
import { expect, test } from "./fixtures";
import { createSuperAdmin, signIn, withE2eDatabase } from "./staff";

/**
 * A published newsletter and 120 new subscribers of its list, straight in the e2e server's
 * database; answers its title and how many active subscribers the list has now (earlier tests of
 * the run may have added some).
 */
function seed() {
  const stamp = Date.now();
  return withE2eDatabase(async (db) => {
    const scope = { db, tenantId: "main", authorId: null };
    const newsletter = await createNewsletter(scope, {
      title: `Campaign issue ${stamp}`,
      excerpt: "Sent from the admin in an end-to-end test",
      content: '<p>Read <a href="https://example.com/guide">the guide</a>.</p>',
      readTime: 3,
    });
    await publishNewsletter(scope, newsletter.id);
    const lists = await listTenantLists(db, (await getTenant(db, "main")).config);
    const list = lists.find((candidate) => candidate.key === "newsletter");
    for (let index = 0; index < 120; index++) {
      await insertSubscriber(db, {
        email: `e2e-campaign-${stamp}-${index}@example.com`,
        listIds: [list?.id ?? 0],
      });
    }
    const { active } = await db
      .selectFrom("subscriptions")
      .innerJoin("subscribers", "subscribers.id", "subscriptions.subscriber_id")
      .select((eb) => eb.fn.countAll<number>().as("active"))
      .where("subscriptions.tenant_id", "=", "main")
      .where("subscribers.tenant_id", "=", "main")
      .where("subscriptions.list_id", "=", list?.id ?? 0)
      .where("subscribers.status", "=", "active")
      .executeTakeFirstOrThrow();
    return { title: newsletter.title, recipients: Number(active) };
  });
}

test("staff send a newsletter by email and watch the progress bar reach 100%", async ({ page }) => {
  const { title, recipients } = await seed();
  await signIn(page, await createSuperAdmin("campaign"));

  await page
    .getByRole("article")
    .filter({ hasText: title })
    .getByRole("link", { name: "Send as email" })
    .click();
  await expect(page.getByRole("heading", { level: 2, name: title })).toBeVisible();
  await expect(page.getByLabel("Subject", { exact: true })).toHaveValue(title);

  await page.getByRole("button", { name: "Preview" }).click();
  const preview = page.frameLocator('iframe[title="Email preview"]');
  await expect(preview.getByText("the guide")).toBeVisible();

  // The review: how many get it, the email at desktop and phone width, then "Send to N recipients".
  await page.getByRole("button", { name: "Review and send" }).click();
  await expect(page.getByTestId("recipient-count")).toContainText(`${recipients} recipients`);
  await expect(
    page.frameLocator('iframe[title="Email preview, phone width"]').getByText("the guide"),
  ).toBeVisible();
  await page.getByRole("button", { name: `Send to ${recipients} recipients` }).click();
  await expect(page).toHaveURL(/\/admin\/campaigns\/[0-9a-f-]{36}$/);
  const bar = page.getByRole("progressbar", { name: "Sending progress" });
  // 120 and more messages at the default 50 a second: the page follows the campaign without a reload.
  await expect(bar).toHaveAttribute("aria-valuenow", "100", { timeout: scaled(30_000) });
  await expect(page.getByTestId("campaign-progress")).toContainText(
    `100% · ${recipients} sent · 0 failed · ${recipients} recipients`,
  );
  await expect(page.getByText("sent", { exact: true }).first()).toBeVisible();

  // Who did what (issue 35, target 4): nobody has opened it yet, so all can get it again, once.
  await page.getByRole("link", { name: `Did not open (${recipients})` }).click();
  await expect(
    page.getByRole("table", { name: `Did not open: ${recipients} recipients` }),
  ).toBeVisible();
  await page.getByRole("button", { name: "Send to those who did not open" }).click();
  await expect(
    page.getByRole("heading", { level: 2, name: `${title} (to those who did not open)` }),
  ).toBeVisible();
  await expect(page.getByText("only those who did not open")).toBeVisible();
  await page.getByRole("button", { name: "Send now" }).click();
  await expect(page.getByTestId("recipient-count")).toContainText(`${recipients} recipients`);
});
