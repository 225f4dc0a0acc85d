import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { testPng } from "../support/images";
import { expect, type Locator, type Page, test } from "./fixtures";
import { createSuperAdmin, signIn } from "./staff";

/*
 * Issue 35, target 2: every block inserted from the toolbar, saved, and the same after a reload;
 * a block edited through its dialog; a bookmark filled in from its page's Open Graph tags (a page
 * served on loopback, which the e2e server may reach: playwright.config.ts).
 */

let pages: Server;
let pagesUrl = "";

test.beforeAll(async () => {
  pages = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    response.end(
      '<title>x</title><meta property="og:title" content="A page worth a card"><meta property="og:description" content="Read it with coffee.">',
    );
  });
  await new Promise<void>((resolve) => pages.listen(0, "127.0.0.1", resolve));
  pagesUrl = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;
});
test.afterAll(() => new Promise<void>((resolve) => pages.close(() => resolve())));

const toolbarOf = (page: Page): Locator => page.getByRole("toolbar", { name: "Formatting" });
const editorOf = (page: Page): Locator => page.getByRole("textbox", { name: "Content" });
const postedContent = (page: Page): Locator => page.locator('input[type="hidden"][name="content"]');
const clickTool = (page: Page, name: string) =>
  toolbarOf(page).getByRole("button", { name, exact: true }).click();

/** Text in a paragraph of its own at the end (the empty one after the last block, if any). */
async function newParagraph(page: Page, text: string) {
  await editorOf(page).press("Control+End");
  const lastIsEmpty = await editorOf(page).evaluate(
    (element) =>
      element.lastElementChild?.tagName === "P" && element.lastElementChild.textContent === "",
  );
  if (!lastIsEmpty) await page.keyboard.press("Enter");
  await page.keyboard.type(text);
}

/** The content as the editor writes it, whatever the server's sanitiser added on save. */
const normalised = (html: string) =>
  html.replace(/ rel="noopener noreferrer nofollow" target="_blank"/g, "").replace(/ \/>/g, ">");

async function answer(page: Page, title: string, fields: Record<string, string>, confirm: string) {
  const dialog = page.getByRole("dialog", { name: title });
  await expect(dialog).toBeVisible();
  for (const [label, value] of Object.entries(fields)) {
    const field = dialog.getByLabel(label, { exact: true });
    if ((await field.evaluate((element) => element.tagName)) === "SELECT") {
      await field.selectOption(value);
    } else {
      await field.fill(value);
    }
  }
  await dialog.getByRole("button", { name: confirm, exact: true }).click();
  await expect(dialog).toBeHidden();
}

test("every block is inserted, saved, and the same after a reload; a button is edited", async ({
  page,
}) => {
  await signIn(page, await createSuperAdmin("blocks"));
  await page.goto("/admin/newsletter/new");
  await page.getByLabel("Title").fill("Blocks, all of them");
  await page.getByLabel("Excerpt").fill("An issue with every block.");
  await editorOf(page).click();
  await page.keyboard.type("Opening words.");
  await page.keyboard.press("Enter");

  await clickTool(page, "Button");
  await answer(
    page,
    "Button",
    { Label: "Join the club", "Web address": "https://example.com/join" },
    "Insert",
  );
  await clickTool(page, "Divider");

  await newParagraph(page, "Mind the gap.");
  await clickTool(page, "Callout");
  await answer(page, "Callout", { "Icon (optional)": "💡", Colour: "warning" }, "Insert");

  await newParagraph(page, "A picture:");
  const chooser = page.waitForEvent("filechooser");
  await toolbarOf(page).getByRole("button", { name: "Image", exact: true }).click();
  await (await chooser).setFiles({
    name: "team.png",
    mimeType: "image/png",
    buffer: Buffer.from(testPng(400, 200)),
  });
  await answer(
    page,
    "Describe the image",
    { "Alt text": "The team on the roof", "Caption (optional)": "All of us, in May" },
    "Upload image",
  );
  await expect(editorOf(page).locator("figcaption")).toHaveText("All of us, in May");

  await newParagraph(page, "Reading:");
  await clickTool(page, "Bookmark");
  const bookmark = page.getByRole("dialog", { name: "Bookmark" });
  await bookmark.getByLabel("Web address").fill(`${pagesUrl}/post`);
  await bookmark.getByRole("button", { name: "Fill in from the page" }).click();
  await expect(bookmark.getByLabel("Title (optional)")).toHaveValue("A page worth a card");
  await expect(bookmark.getByLabel("Description (optional)")).toHaveValue("Read it with coffee.");
  await bookmark.getByRole("button", { name: "Insert", exact: true }).click();

  await newParagraph(page, "Watch:");
  await clickTool(page, "Video or post");
  await answer(
    page,
    "Video or post",
    { "Web address": "https://youtu.be/dQw4w9WgXcQ", "Title (optional)": "Our birthday talk" },
    "Insert",
  );
  // The caret waits after the card: typing goes on there, and leaves the card as it is.
  await page.keyboard.type("Watched?");

  await newParagraph(page, "Comment below.");
  await clickTool(page, "Web only");
  await newParagraph(page, "Reply to this mail.");
  await clickTool(page, "Email only");

  const expected = [
    /<div data-block="button"><a href="https:\/\/example.com\/join">Join the club<\/a><\/div><hr>/,
    /<div data-block="callout" data-tone="warning" data-icon="💡"><p>Mind the gap.<\/p><\/div>/,
    /<figure><img src="\/uploads\/main\/[0-9a-f]{32}\.(png|jpg)" alt="The team on the roof" width="400" height="200"><figcaption>All of us, in May<\/figcaption><\/figure>/,
    /<div data-block="bookmark"><a href="http:\/\/127.0.0.1:\d+\/post"><span data-part="title">A page worth a card<\/span><span data-part="description">Read it with coffee.<\/span><span data-part="site">127.0.0.1<\/span><\/a><\/div>/,
    /<div data-block="embed" data-provider="youtube"><a href="https:\/\/youtu.be\/dQw4w9WgXcQ"><img data-part="image" src="https:\/\/i.ytimg.com\/vi\/dQw4w9WgXcQ\/hqdefault.jpg" alt=""><span data-part="title">Our birthday talk<\/span><span data-part="site">Watch on YouTube<\/span><\/a><\/div><p>Watched\?<\/p>/,
    /<div data-block="web-only"><p>Comment below.<\/p><\/div>/,
    /<div data-block="email-only"><p>Reply to this mail.<\/p><\/div>/,
  ];
  for (const pattern of expected) await expect(postedContent(page)).toHaveValue(pattern);
  const before = await postedContent(page).inputValue();

  await page.getByRole("button", { name: "Create Newsletter" }).click();
  await expect(page).toHaveURL(/\/admin\/newsletter\/edit\/[0-9a-f-]+\?notice=saved$/);
  await page.reload();
  await expect(editorOf(page).locator('[data-block="bookmark"]')).toBeVisible();
  expect(normalised(await postedContent(page).inputValue())).toBe(before);
  // What the editor makes of the stored content is the same again.
  await newParagraph(page, " ");
  await page.keyboard.press("Backspace");
  await expect(postedContent(page)).toHaveValue(before);

  // Edited through its dialog: the button selected, its fields shown as they are.
  await editorOf(page).locator('[data-block="button"]').click();
  await clickTool(page, "Button");
  const dialog = page.getByRole("dialog", { name: "Button" });
  await expect(dialog.getByLabel("Label")).toHaveValue("Join the club");
  await dialog.getByLabel("Label").fill("Join us today");
  await dialog.getByRole("button", { name: "Save", exact: true }).click();
  await expect(postedContent(page)).toHaveValue(
    /<div data-block="button"><a href="https:\/\/example.com\/join">Join us today<\/a><\/div>/,
  );
  await page.getByRole("button", { name: "Update Newsletter" }).click();
  await expect(page).toHaveURL(/notice=saved/);
  await page.reload();
  await expect(postedContent(page)).toHaveValue(/Join us today/);
});

test("a video card refuses a link that is not a video or social post, and says so", async ({
  page,
}) => {
  await signIn(page, await createSuperAdmin("blocks-bad"));
  await page.goto("/admin/newsletter/new");
  await editorOf(page).click();
  await clickTool(page, "Video or post");
  const dialog = page.getByRole("dialog", { name: "Video or post" });
  await dialog.getByLabel("Web address").fill("https://example.com/page");
  await dialog.getByRole("button", { name: "Insert", exact: true }).click();
  await expect(
    dialog.getByText("That is not a YouTube, Vimeo, X or LinkedIn address"),
  ).toBeVisible();
  await dialog.getByLabel("Web address").fill("javascript:alert(1)");
  await dialog.getByRole("button", { name: "Insert", exact: true }).click();
  await expect(dialog.getByText("Use a web address starting with https://")).toBeVisible();
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(postedContent(page)).not.toHaveValue(/data-block/);
});
