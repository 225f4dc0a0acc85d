import { testPng } from "../support/images";
import { expect, type Page, test } from "./fixtures";
import { createSuperAdmin, signIn } from "./staff";

/*
 * Issue 15 in the browser: tags as chips with suggestions, a cover image uploaded from the form,
 * the save bar that never covers the editor's toolbar, scheduling in the tenant's time zone, the
 * preview at desktop and phone width, and a share link opened by someone without an account.
 */

const unique = () => Math.random().toString(36).slice(2, 8);

async function newDraft(page: Page, title: string) {
  await page.goto("/admin/newsletter/new");
  await page.getByLabel("Title").fill(title);
  await page.getByLabel("Excerpt").fill(`What ${title} is about.`);
  await page.getByRole("textbox", { name: "Content" }).click();
  await page.keyboard.type("A first paragraph that readers will see.");
  await page.getByRole("button", { name: "Create Newsletter" }).click();
  await expect(page).toHaveURL(/\/admin\/newsletter\/edit\/[0-9a-f-]+\?notice=saved$/);
}

test("tags as chips with suggestions, and a cover image, reach the public page", async ({
  page,
}) => {
  await signIn(page, await createSuperAdmin("tags"));
  const title = `Tagged ${unique()}`;
  await newDraft(page, title);

  const tagInput = page.getByRole("combobox", { name: "Tags" });
  await tagInput.fill("Defensible review");
  await tagInput.press("Enter");
  await tagInput.fill("Privilege");
  await tagInput.press(",");
  await tagInput.fill("Typo tag");
  await tagInput.press("Enter");
  await page.getByRole("button", { name: "Remove tag Typo tag" }).click();
  await expect(page.getByRole("list", { name: "Tags of this newsletter" })).toHaveText(
    /Defensible review.*Privilege/,
  );

  // The cover is uploaded as soon as it is chosen, then described.
  await page
    .locator('input[type="file"][accept*="image/png"]')
    .first()
    .setInputFiles({
      name: "cover.png",
      mimeType: "image/png",
      buffer: Buffer.from(testPng(1600, 900)),
    });
  await expect(page.getByText("Cover image added.")).toBeVisible();
  await page.getByLabel("Describe the cover image").fill("A gavel on a stack of documents");
  await page.getByRole("button", { name: "Publish", exact: true }).click();
  await expect(page.getByTestId("newsletter-status")).toHaveText("Published");

  await page.getByRole("link", { name: "View", exact: true }).click();
  await expect(page.getByRole("heading", { level: 1, name: title })).toBeVisible();
  await expect(page.getByRole("img", { name: "A gavel on a stack of documents" })).toBeVisible();
  await page.getByRole("list", { name: "Tags" }).getByRole("link", { name: "Privilege" }).click();
  await expect(page).toHaveURL(/\/newsletter\/tag\/privilege$/);
  await expect(page.getByRole("link", { name: title })).toBeVisible();

  // The next newsletter is offered the tags already in use.
  await page.goto("/admin/newsletter/new");
  await expect(page.locator('datalist option[value="Defensible review"]')).toHaveCount(1);
});

test("the save bar never covers the editor's toolbar, wherever the page is scrolled", async ({
  page,
}) => {
  await signIn(page, await createSuperAdmin("savebar"));
  await newDraft(page, `Long ${unique()}`);
  const editor = page.getByRole("textbox", { name: "Content" });
  await editor.click();
  await page.keyboard.press("Control+End");
  for (let i = 0; i < 40; i++) await page.keyboard.type(`Paragraph ${i}.\n`);

  const toolbar = page.getByRole("toolbar", { name: "Formatting" });
  const bar = page.getByTestId("save-bar");
  for (const y of [0, 200, 400, 700, 1000, 1500, 2500]) {
    await page.evaluate((top) => window.scrollTo(0, top), y);
    const [tool, save] = [await toolbar.boundingBox(), await bar.boundingBox()];
    if (!tool || !save) throw new Error("toolbar or save bar not laid out");
    const overlap = tool.y < save.y + save.height && save.y < tool.y + tool.height;
    expect(overlap, `scrolled to ${y}`).toBe(false);
    // What is on top where the Bold button is drawn is the button itself, when it is on screen.
    const bold = await toolbar.getByRole("button", { name: "Bold", exact: true }).boundingBox();
    const viewport = page.viewportSize();
    if (bold && viewport && bold.y > 0 && bold.y + bold.height < viewport.height) {
      const hit = await page.evaluate(
        ([x, yy]) =>
          document.elementFromPoint(x, yy)?.closest("button")?.getAttribute("aria-label"),
        [bold.x + bold.width / 2, bold.y + bold.height / 2],
      );
      expect(hit, `scrolled to ${y}`).toBe("Bold");
    }
  }
});

test("a draft is scheduled in the tenant's time zone, previewed at phone width and shared for review", async ({
  page,
  browser,
  extraHTTPHeaders,
}) => {
  await signIn(page, await createSuperAdmin("schedule"));
  // The tenant manager sets the site's time zone.
  await page.goto("/admin/tenants/main?edit=1");
  await page.getByLabel("Time zone").selectOption("America/New_York");
  await page.getByRole("button", { name: "Save" }).first().click();
  await expect(page.getByText("Time zone", { exact: true })).toBeVisible();
  await expect(page.locator("dd", { hasText: "America/New York" })).toBeVisible();
  const title = `Scheduled ${unique()}`;
  await newDraft(page, title);

  await expect(page.getByText("Publish at (America/New York)")).toBeVisible();
  const date = new Date(Date.now() + 5 * 86_400_000).toISOString().slice(0, 10);
  await page.getByLabel("Publish at").fill(`${date}T08:30`);
  await page.getByLabel(/Also send it by email/).check();
  await page.getByRole("button", { name: "Schedule" }).click();
  await expect(page.getByTestId("newsletter-status")).toHaveText("Scheduled");
  await expect(page.getByTestId("scheduled-for")).toContainText(
    "08:30 America/New York, then is sent by email",
  );

  // The preview opens in a tab of its own; its phone view is a real 390 px wide page.
  const [preview] = await Promise.all([
    page.context().waitForEvent("page"),
    page.getByRole("link", { name: "Preview" }).click(),
  ]);
  await expect(preview.getByRole("heading", { level: 1, name: title })).toBeVisible();
  await expect(preview.getByText("Preview of a draft: readers cannot see it yet")).toBeVisible();
  await preview.getByRole("button", { name: "Phone" }).click();
  const phone = preview.frameLocator('iframe[title="The newsletter at phone width"]');
  await expect(phone.getByRole("heading", { level: 1, name: title })).toBeVisible();
  expect(
    await phone.locator("body").evaluate(() => document.documentElement.clientWidth),
  ).toBeLessThanOrEqual(390);
  await preview.close();

  await page.getByRole("button", { name: "Create a share link" }).click();
  const url = await page.getByLabel("Share link").inputValue();
  const reviewer = await browser.newContext({ extraHTTPHeaders });
  const reviewerPage = await reviewer.newPage();
  await reviewerPage.goto(url);
  await expect(reviewerPage.getByRole("heading", { level: 1, name: title })).toBeVisible();
  await expect(reviewerPage.getByText(/It is not published yet/)).toBeVisible();

  await page.getByRole("button", { name: "Revoke share links" }).click();
  await expect(page.getByText("Every share link of this newsletter stopped working")).toBeVisible();
  await reviewerPage.reload();
  await expect(
    reviewerPage.getByRole("heading", { name: "This preview link has expired or was revoked" }),
  ).toBeVisible();
  await reviewer.close();
});
