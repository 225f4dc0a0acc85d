import { createNewsletter } from "../../server/newsletters/editing";
import { expect, type Page, test } from "./fixtures";
import { createSuperAdmin, signIn, withE2eDatabase } from "./staff";

const SHOTS = process.env.E2E_SCREENSHOTS;

/** A draft newsletter of the main tenant, straight in the e2e server's database. */
function seedDraft() {
  const stamp = Date.now();
  return withE2eDatabase(async (db) => {
    const draft = await createNewsletter(
      { db, tenantId: "main", authorId: null },
      {
        title: `One errand ${stamp}`,
        excerpt: "Published and sent in one step",
        content: '<p>Read <a href="https://example.com/guide">the guide</a>.</p>',
        readTime: 3,
      },
    );
    return { id: draft.id, title: draft.title };
  });
}

/** The frame's inner width: what the email is laid out in. */
const frameWidth = (page: Page, title: string) =>
  page
    .locator(`iframe[title="${title}"]`)
    .evaluate((frame) => (frame as HTMLIFrameElement).clientWidth);

test("Publish and send reaches the review, whose previews are 600 px (desktop) and 375 px (phone) wide", async ({
  page,
}) => {
  const { id, title } = await seedDraft();
  await page.setViewportSize({ width: 1280, height: 900 });
  await signIn(page, await createSuperAdmin("publish-send"));

  await page.goto(`/admin/newsletter/edit/${id}`);
  await expect(page.getByTestId("newsletter-status")).toHaveText("Draft");
  if (SHOTS) await page.screenshot({ path: `${SHOTS}/editor-draft-1280.png`, fullPage: true });
  await page.getByRole("button", { name: "Publish and send" }).click();

  // Published, and on to the send form: nothing is mailed until the review's confirm.
  await expect(page).toHaveURL(new RegExp(`/admin/newsletter/send/${id}$`));
  await expect(page.getByRole("heading", { level: 2, name: title })).toBeVisible();
  await expect(page.getByLabel(/^KeyDiscovery Newsletter/)).toBeChecked();
  await expect(page.getByTestId("audience-size").first()).toHaveText(
    /^· [\d,]+ active subscribers?$/,
  );

  // A test to two colleagues, the field starting with the signed-in address.
  const testField = page.getByLabel("Send a test to");
  await expect(testField).toHaveValue(/@example\.com$/);
  await testField.fill("ana@example.com, ben@example.com");
  await page.getByRole("button", { name: "Send a test", exact: true }).click();
  await expect(page.getByRole("status").filter({ hasText: "Test email sent to" })).toHaveText(
    "Test email sent to ana@example.com, ben@example.com.",
  );
  // Enter in the field sends the test too, not the form's first button ("Review and send").
  await testField.fill("ana@example.com");
  await testField.press("Enter");
  await expect(page.getByRole("status").filter({ hasText: "Test email sent to" })).toHaveText(
    "Test email sent to ana@example.com.",
  );
  await expect(page.getByRole("heading", { name: "Review" })).toHaveCount(0);

  await page.getByRole("button", { name: "Review and send" }).click();
  await expect(page.getByRole("heading", { name: "Review" })).toBeVisible();
  const desktop = 'iframe[title="Email preview, desktop width"]';
  const phone = 'iframe[title="Email preview, phone width"]';
  await expect(page.frameLocator(desktop).getByText("the guide")).toBeVisible();
  await expect(page.frameLocator(phone).getByText("the guide")).toBeVisible();
  expect(await frameWidth(page, "Email preview, desktop width")).toBe(600);
  expect(await frameWidth(page, "Email preview, phone width")).toBe(375);
  await expect(page.getByRole("button", { name: /^Send to [\d,]+ recipients?$/ })).toBeVisible();
  if (SHOTS) {
    await page.screenshot({ path: `${SHOTS}/send-review-1280.png`, fullPage: true });
    await page.locator(desktop).scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SHOTS}/send-review-frames-1280.png` });
  }

  // On a phone the frames keep their widths and scroll sideways inside the page.
  await page.setViewportSize({ width: 375, height: 800 });
  expect(await frameWidth(page, "Email preview, desktop width")).toBe(600);
  expect(await frameWidth(page, "Email preview, phone width")).toBe(375);
  const pageOverflows = await page.evaluate(
    () => document.documentElement.scrollWidth > document.documentElement.clientWidth,
  );
  expect(pageOverflows).toBe(false);
  if (SHOTS) {
    await page.screenshot({ path: `${SHOTS}/send-review-375.png`, fullPage: true });
    for (const [name, frame] of [
      ["desktop", desktop],
      ["phone", phone],
    ]) {
      await page.locator(frame).scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${SHOTS}/send-review-${name}-375.png` });
    }
  }

  // Back in the editor, the published newsletter offers Send as email.
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`/admin/newsletter/edit/${id}`);
  await expect(page.getByTestId("newsletter-status")).toHaveText("Published");
  await expect(page.getByRole("link", { name: "Send as email" })).toHaveAttribute(
    "href",
    `/admin/newsletter/send/${id}`,
  );
  if (SHOTS) await page.screenshot({ path: `${SHOTS}/editor-published-1280.png`, fullPage: true });
  await page.setViewportSize({ width: 375, height: 800 });
  if (SHOTS) await page.screenshot({ path: `${SHOTS}/editor-published-375.png`, fullPage: true });
});
