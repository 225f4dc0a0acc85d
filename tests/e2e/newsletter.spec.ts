import { expect, type Locator, type Page, test } from "./fixtures";
import { createSuperAdmin, signIn } from "./staff";

/** The number in "12 views" / "1 comment" shown on the newsletter page. */
async function countOf(page: Page, noun: "view" | "comment"): Promise<number> {
  const label = page.getByText(new RegExp(`^\\s*\\d[\\d,]*\\s+${noun}s?\\s*$`)).first();
  const text = (await label.textContent()) ?? "";
  return Number(text.replace(/[^\d]/g, ""));
}

const editorOf = (page: Page): Locator => page.getByRole("textbox", { name: "Content" });

test("staff write a newsletter in the rich-text editor, publish it, and readers comment", async ({
  page,
  browser,
  extraHTTPHeaders,
}) => {
  const email = await createSuperAdmin();
  await signIn(page, email);

  await page.goto("/admin/newsletter/new");
  await expect(
    page.getByRole("heading", { level: 1, name: "Create New Newsletter" }),
  ).toBeVisible();
  const title = `Proportionality, quarter by quarter ${Date.now()}`;
  await page.getByLabel("Title").fill(title);
  await page.getByLabel("Excerpt").fill("What courts expect from discovery requests this year.");
  await page.getByLabel("Read Time (minutes)").fill("4");

  // The editor replaces the plain textarea once the page is interactive.
  const toolbar = page.getByRole("toolbar", { name: "Formatting" });
  await expect(toolbar).toBeVisible();
  const editor = editorOf(page);
  await editor.click();
  const tail = " in every request.";
  await page.keyboard.type(`Courts now expect proportionality${tail}`);
  // Select the word "proportionality" and make it bold with the toolbar.
  for (let i = 0; i < tail.length; i++) await page.keyboard.press("ArrowLeft");
  await page.keyboard.press("Shift+Control+ArrowLeft");
  const bold = toolbar.getByRole("button", { name: "Bold" });
  await expect(bold).toHaveAttribute("aria-pressed", "false");
  await bold.click();
  await expect(bold).toHaveAttribute("aria-pressed", "true");
  await expect(editor.locator("strong")).toHaveText("proportionality");

  await page.keyboard.press("End");
  await page.keyboard.press("Enter");
  const heading2 = toolbar.getByRole("button", { name: "H2 heading" });
  await heading2.click();
  await expect(heading2).toHaveAttribute("aria-pressed", "true");
  await page.keyboard.type("What to watch");
  await page.keyboard.press("Enter");
  await page.keyboard.type("Meet-and-confer sessions are getting shorter.");
  await expect(editor.locator("h2")).toHaveText("What to watch");

  await page.getByRole("button", { name: "Create Newsletter" }).click();
  await expect(page).toHaveURL(/\/admin\/newsletter\/edit\/[0-9a-f-]{36}/);
  await expect(page.getByRole("status").filter({ hasText: "Newsletter saved" })).toBeVisible();
  await expect(page.getByRole("heading", { level: 1, name: "Edit Newsletter" })).toBeVisible();
  const id = new URL(page.url()).pathname.split("/").pop() as string;

  await page.getByRole("button", { name: "Publish", exact: true }).click();
  await expect(page.getByTestId("newsletter-status")).toHaveText("Published");
  // The readable address: made from the title.
  const view = page.getByRole("link", { name: "View", exact: true });
  await expect(view).toHaveAttribute("href", /^\/newsletter\/[a-z0-9-]+$/);
  const articlePath = (await view.getAttribute("href")) ?? "";
  expect(articlePath).not.toContain(id);

  // A visitor, in a browser with no staff cookies; the id's old address leads there too.
  const visitorContext = await browser.newContext({ extraHTTPHeaders });
  const visitor = await visitorContext.newPage();
  await visitor.goto(`/newsletter/${id}`);
  await expect(visitor).toHaveURL(new RegExp(`${articlePath}$`));
  await expect(visitor.getByRole("heading", { level: 1, name: title })).toBeVisible();
  await expect(visitor.locator("strong", { hasText: "proportionality" })).toBeVisible();
  await expect(visitor.getByRole("heading", { level: 2, name: "What to watch" })).toBeVisible();
  const viewsBefore = await countOf(visitor, "view");
  const commentsBefore = await countOf(visitor, "comment");

  const comment = `Useful summary, thank you (${Date.now()}).`;
  await visitor.getByPlaceholder("Share your thoughts...").fill(comment);
  await visitor.getByRole("button", { name: "Post Comment" }).click();
  await expect(visitor.getByText(comment)).toBeVisible();
  await expect.poll(() => countOf(visitor, "comment")).toBe(commentsBefore + 1);

  await visitor.reload();
  await expect(visitor.getByText(comment)).toBeVisible();
  expect(await countOf(visitor, "view")).toBeGreaterThan(viewsBefore);
  expect(await countOf(visitor, "comment")).toBe(commentsBefore + 1);
  await visitorContext.close();

  // Back in the staff browser: Sign Out from the navigation bar.
  const nav = page.getByRole("navigation", { name: "Main" });
  await nav.getByRole("button", { name: "Sign Out" }).click();
  await expect(page).toHaveURL(/\/$/);
  await expect(nav.getByRole("link", { name: "Sign In" })).toBeVisible();
  await expect(nav.getByRole("button", { name: "Sign Out" })).toHaveCount(0);
});

test("the content field is a plain HTML textarea without JavaScript", async ({
  browser,
  extraHTTPHeaders,
}) => {
  const email = await createSuperAdmin();
  const context = await browser.newContext({ javaScriptEnabled: false, extraHTTPHeaders });
  const page = await context.newPage();
  await signIn(page, email);
  await page.goto("/admin/newsletter/new");
  const content = page.getByRole("textbox", { name: "Content" });
  await expect(content).toHaveAttribute("rows", "20");
  await expect(page.getByRole("toolbar", { name: "Formatting" })).toHaveCount(0);

  await page.getByLabel("Title").fill("Written without JavaScript");
  await page.getByLabel("Excerpt").fill("Plain HTML still works.");
  await content.fill("<p>Hello <strong>readers</strong></p>");
  await page.getByLabel("Read Time (minutes)").fill("2");
  await page.getByRole("button", { name: "Create Newsletter" }).click();
  await expect(page.getByText("Newsletter saved")).toBeVisible();
  await expect(page.getByRole("textbox", { name: "Content" })).toHaveValue(
    "<p>Hello <strong>readers</strong></p>",
  );

  // Delete asks first, on a page of its own.
  await page.getByRole("link", { name: "Delete" }).click();
  await expect(page.getByRole("heading", { name: "Delete this newsletter?" })).toBeVisible();
  await page.getByRole("link", { name: "Keep it" }).click();
  await expect(page.getByRole("heading", { name: "Delete this newsletter?" })).toHaveCount(0);
  await page.getByRole("link", { name: "Delete" }).click();
  await page.getByRole("button", { name: "Yes, delete" }).click();
  await expect(page).toHaveURL(/\/admin\/dashboard$/);
  await context.close();
});

test("errors of an empty submit are gone once the newsletter is saved", async ({ page }) => {
  await signIn(page, await createSuperAdmin("stale-errors"));
  await page.goto("/admin/newsletter/new");
  await expect(page.getByRole("toolbar", { name: "Formatting" })).toBeVisible();
  await page.getByRole("button", { name: "Create Newsletter" }).click();
  await expect(page.getByText("Title is required")).toBeVisible();

  await page.getByLabel("Title").fill(`Stale errors ${Date.now()}`);
  await page.getByLabel("Excerpt").fill("Nothing stale here.");
  await editorOf(page).click();
  await page.keyboard.type("A body worth reading.");
  await page.getByRole("button", { name: "Create Newsletter" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Newsletter saved" })).toBeVisible();
  await expect(page.getByText("Title is required")).toHaveCount(0);
  await expect(page.getByText("Content is required")).toHaveCount(0);
});
